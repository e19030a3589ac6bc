#!/usr/bin/env python3
"""compare-npy.py - checks that two directories hold the same arrays.

  compare-npy.py EXPECTED_DIR ACTUAL_DIR [--rtol R] [--atol A] [--allow-extra]

Every EXPECTED_DIR/<name>.npy must exist in ACTUAL_DIR with the same shape
and dtype and agree: max |actual - expected| <= atol + rtol * max |expected|
(the largest difference relative to the array's largest magnitude, so that
rounding in sums of many terms is judged against the sum's scale).
ACTUAL_DIR may hold no array that EXPECTED_DIR lacks (with --allow-extra it
may: the CUDA harness writes the final state beside the results). Prints the largest
differences; exits 1 on any mismatch.
"""

import argparse
import os
import sys

import numpy as np


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("expected")
    parser.add_argument("actual")
    parser.add_argument("--rtol", type=float, default=1e-5)
    parser.add_argument("--atol", type=float, default=1e-6)
    parser.add_argument("--allow-extra", action="store_true")
    args = parser.parse_args()

    expected = sorted(f for f in os.listdir(args.expected) if f.endswith(".npy"))
    actual = sorted(f for f in os.listdir(args.actual) if f.endswith(".npy"))
    ok = True
    for extra in [] if args.allow_extra else sorted(set(actual) - set(expected)):
        print(f"{extra[:-4]}: not expected")
        ok = False
    for name in expected:
        want = np.load(os.path.join(args.expected, name))
        path = os.path.join(args.actual, name)
        if not os.path.exists(path):
            print(f"{name[:-4]}: missing")
            ok = False
            continue
        got = np.load(path)
        if got.shape != want.shape or got.dtype != want.dtype:
            print(f"{name[:-4]}: {got.dtype}{list(got.shape)} instead of "
                  f"{want.dtype}{list(want.shape)}")
            ok = False
            continue
        diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
        largest = float(np.abs(want.astype(np.float64)).max()) if want.size else 0.0
        worst = float(diff.max()) if diff.size else 0.0
        within = worst <= args.atol + args.rtol * largest
        relative = worst / largest if largest > 0 else worst
        print(f"{name[:-4]}: max abs diff {worst:.3g}, relative {relative:.3g}"
              f"{'' if within else ' (over tolerance)'}")
        ok = ok and within
    print("match" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
