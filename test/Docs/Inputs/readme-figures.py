"""Prints the figures the README quotes for its conv-bn-relu example, from the
report and step that `remat-opt --budget=70% --report=... -o ...` wrote.

Usage: readme-figures.py STEP.json STEP.mlir
"""
import json
import re
import sys

report = json.load(open(sys.argv[1]))
step = open(sys.argv[2]).read()
mib = lambda b: f"{b / 2**20:.2f} MiB"
extra = 100 * (report["compute_cost_after"] / report["compute_cost_before"] - 1)
print(f"as given: {report['peak_bytes_before']:,} bytes ({mib(report['peak_bytes_before'])}, "
      f"of which {report['argument_bytes']:,} are arguments)")
recomputed = sorted(set(re.findall(r'remat.recompute_of = "([^"]+)"', step)))
print("recomputed: " + ", ".join(recomputed))
print(f"peaks at {mib(report['peak_bytes_after'])}, arena {mib(report['arena_bytes'])}")
print(f"({report['solver']}, {report['status']}, {extra:+.1f}% compute")
