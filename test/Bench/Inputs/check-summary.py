#!/usr/bin/env python3
"""check-summary.py - checks a summarize.py summary against the .npy files it summarizes.

  check-summary.py SUMMARY.json DIR

Recomputes, with NumPy and independently of summarize.py, what the summary
says of every DIR/<name>.npy: shape, dtype, count, sum, sum of |x|, max |x|
and the samples at the indices bench/gpu/summarize.py documents (every index
of a result of at most 2048 elements; else one per stratum k of 2048 equal
strata, at begin_k + splitmix64(k) mod (end_k - begin_k)). Prints "summary
matches: N results" or the first mismatch, and exits 1 on a mismatch.
"""

import json
import os
import sys

import numpy as np

MASK = (1 << 64) - 1


def splitmix64(z):
    z = (z + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def indices(count, samples):
    if count <= samples:
        return list(range(count))
    return [k * count // samples + splitmix64(k) % ((k + 1) * count // samples - k * count // samples)
            for k in range(samples)]


def main():
    summary_path, directory = sys.argv[1:3]
    with open(summary_path) as handle:
        summary = json.load(handle)
    samples = summary["samples"]
    names = sorted(f[:-4] for f in os.listdir(directory) if f.endswith(".npy"))
    if sorted(summary["results"]) != names:
        sys.exit(f"mismatch: results {sorted(summary['results'])}, files {names}")
    for name in names:
        data = np.load(os.path.join(directory, name + ".npy"))
        got = summary["results"][name]
        flat = data.reshape(-1).astype(np.float64)
        expected = {"shape": list(data.shape), "dtype": str(data.dtype), "count": int(data.size)}
        for key, value in expected.items():
            if got[key] != value:
                sys.exit(f"mismatch: {name}.{key} is {got[key]}, expected {value}")
        for key, value in (("sum", flat.sum()), ("abs_sum", np.abs(flat).sum()),
                           ("max_abs", np.abs(flat).max())):
            if abs(got[key] - value) > 1e-12 * max(1.0, abs(value)):
                sys.exit(f"mismatch: {name}.{key} is {got[key]}, expected {value}")
        want = data.reshape(-1)[indices(data.size, samples)]
        if len(got["samples"]) != len(want) or not np.array_equal(
                np.asarray(got["samples"], dtype=data.dtype), want):
            sys.exit(f"mismatch: samples of {name}")
    print(f"summary matches: {len(names)} results, {samples} samples at most")


if __name__ == "__main__":
    main()
