#!/usr/bin/env python3
"""perturb.py - changes a summary or a .npy file, for the tests of summarize.py compare.

  perturb.py add IN.json OUT.json NAME SAMPLE DELTA   adds DELTA to sample SAMPLE of NAME
  perturb.py drop IN.json OUT.json NAME               removes result NAME
  perturb.py adam-flip IN.json OUT.json WEIGHT        what a gradient within rounding of
      zero does to the first Adam step: at the sample where |WEIGHT.exp_avg.new| is
      smallest, negates the moment and moves WEIGHT.new by 2e-3 (2 * lr)
  perturb.py npy FILE.npy SCALE DELTA                 x <- x * SCALE + DELTA, in place
"""

import json
import sys


def main():
    kind = sys.argv[1]
    if kind == "npy":
        import numpy as np
        path, scale, delta = sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
        data = np.load(path)
        np.save(path, (data * scale + delta).astype(data.dtype))
        return
    source, target, name = sys.argv[2:5]
    with open(source) as handle:
        summary = json.load(handle)
    results = summary["results"]
    if kind == "add":
        sample, delta = int(sys.argv[5]), float(sys.argv[6])
        results[name]["samples"][sample] += delta
    elif kind == "drop":
        del results[name]
    elif kind == "adam-flip":
        moment = results[name + ".exp_avg.new"]["samples"]
        k = min(range(len(moment)), key=lambda i: abs(moment[i]))
        moment[k] = -moment[k]
        results[name + ".new"]["samples"][k] += 2e-3
        print(f"perturb.py: flipped sample {k} of {name} (exp_avg {moment[k]:.3g})")
    else:
        sys.exit(f"perturb.py: unknown kind {kind}")
    with open(target, "w") as handle:
        json.dump(summary, handle)


if __name__ == "__main__":
    main()
