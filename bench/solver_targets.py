#!/usr/bin/env python3
"""Reads the markdown of remat-bench-solvers (stdin or a file) and checks the
solver targets:

- `auto` within 0.5% of the proven optimum wherever `exact` proves one;
- `auto` under 1 s where `exact` proves the optimum, and on every public graph;
- `exact` proving a gap of at most 1% (the MILP gap: (cost - bound) / cost)
  within its cap on every graph of up to 100 nodes;
- Moccasin's random layered graphs at 0.9 and 0.8 of the peak: `auto` meets
  every budget at no more than 10% extra compute;
- training steps (tables of .mlir files): at every budget, `auto` no
  costlier than the cheapest baseline that fits (chain, sqrt, segments=K,
  block-checkpoints, heuristic and any other column but none and exact).

Usage: remat-bench-solvers ... | .venv/bin/python bench/solver_targets.py
       .venv/bin/python bench/solver_targets.py bench-output.md
"""

import re
import sys

CELL = re.compile(
    r"^\s*(?P<extra>[+-]?[0-9.]+)%"
    r"(?: (?P<optimal>optimal))?"
    r"(?: \((?P<over>over)\))?"
    r"(?: \(bound (?P<bound>[+-]?[0-9.]+)%, gap (?P<gap>[0-9.]+)%\))?"
    r", (?P<seconds>[0-9.]+)s\s*$")


def parse_cell(text):
    match = CELL.match(text)
    if not match:
        return None  # n/a or an older format
    return {
        "extra": float(match["extra"]),
        "optimal": bool(match["optimal"]),
        "over": bool(match["over"]),
        "gap": float(match["gap"]) if match["gap"] else (0.0 if match["optimal"] else None),
        "seconds": float(match["seconds"]),
    }


def read_tables(lines):
    """Yields (graph, nodes, budget label, {solver: cell})."""
    graph, nodes, header = None, None, None
    for line in lines:
        if line.startswith("### "):
            graph, header = line[4:].strip(), None
        elif re.match(r"^\d+ nodes, peak", line):
            nodes = int(line.split()[0])
        elif line.startswith("| budget | bytes |"):
            header = [name.strip() for name in line.strip().strip("|").split("|")][2:]
        elif header and line.startswith("| ") and not line.startswith("|---"):
            cells = [cell for cell in line.strip().strip("|").split("|")]
            if len(cells) != len(header) + 2:
                continue
            yield graph, nodes, cells[0].strip(), {
                name: parse_cell(cell) for name, cell in zip(header, cells[2:])}


MOCCASIN_BUDGETS = ("0.90 x peak", "0.80 x peak")
MOCCASIN_MAX_EXTRA = 10.0


def fits(cell):
    return cell is not None and not cell["over"]


def main():
    source = open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin
    auto_worst = (0.0, None)
    auto_slowest = (0.0, None)
    auto_slowest_optimum = (0.0, None)
    exact_rows = exact_within = 0
    exact_misses = []
    exact_over = []
    optima = 0
    moccasin_rows, moccasin_misses = 0, []
    step_rows, step_misses = 0, []
    for graph, nodes, budget, cells in read_tables(source):
        where = f"{graph} at {budget}"
        auto, exact = cells.get("auto"), cells.get("exact")
        if graph.startswith("random_layered") and budget in MOCCASIN_BUDGETS:
            moccasin_rows += 1
            if not fits(auto) or auto["extra"] > MOCCASIN_MAX_EXTRA:
                moccasin_misses.append(
                    where + (f": {auto['extra']:+.2f}%" if fits(auto) else ": not met"))
        if graph.endswith(".mlir") and auto is not None:
            step_rows += 1
            baselines = {name: cell for name, cell in cells.items()
                         if name not in ("auto", "none", "exact") and fits(cell)}
            if baselines:
                name, cheapest = min(baselines.items(), key=lambda item: item[1]["extra"])
                if not fits(auto) or auto["extra"] > cheapest["extra"] + 0.005:
                    step_misses.append(
                        f"{where}: auto {auto['extra']:+.2f}%"
                        + ("" if fits(auto) else " (over)")
                        + f", {name} {cheapest['extra']:+.2f}%")
        if auto:
            if auto["seconds"] > auto_slowest[0]:
                auto_slowest = (auto["seconds"], where)
        if auto and exact and exact["optimal"] and not auto["over"]:
            optima += 1
            if auto["seconds"] > auto_slowest_optimum[0]:
                auto_slowest_optimum = (auto["seconds"], where)
            excess = (1 + auto["extra"] / 100) / (1 + exact["extra"] / 100) - 1
            if excess > auto_worst[0]:
                auto_worst = (excess, where)
        if exact and nodes is not None and nodes <= 100 and exact["over"]:
            exact_over.append(where)
        if exact and nodes is not None and nodes <= 100 and not exact["over"]:
            exact_rows += 1
            if exact["gap"] is not None and exact["gap"] <= 1.0:
                exact_within += 1
            else:
                exact_misses.append(f"{where}: gap {exact['gap']}%")
    print(f"auto against exact's {optima} proven optima: worst excess "
          f"{100 * auto_worst[0]:.2f}%" + (f" ({auto_worst[1]})" if auto_worst[1] else "")
          + (" - target met" if auto_worst[0] <= 0.005 else " - target missed"))
    print(f"auto's slowest solve where exact proves the optimum: "
          f"{auto_slowest_optimum[0]:.3f} s ({auto_slowest_optimum[1]})"
          + (" - target met" if auto_slowest_optimum[0] < 1.0 else " - target missed"))
    print(f"auto's slowest solve: {auto_slowest[0]:.3f} s ({auto_slowest[1]})"
          + (" - target met" if auto_slowest[0] < 1.0 else " - target missed"))
    print(f"exact on graphs of up to 100 nodes: gap <= 1% in {exact_within} of "
          f"{exact_rows} budgets it meets"
          + (" - target met" if exact_within == exact_rows else " - target missed"))
    for miss in exact_misses:
        print(f"  {miss}")
    if exact_over:
        print(f"exact found no schedule within the budget at {len(exact_over)} "
              "budgets of graphs of up to 100 nodes (nor did any other solver "
              "where their cells say over):")
        for where in exact_over:
            print(f"  {where}")
    if moccasin_rows:
        print(f"Moccasin's graphs at 0.9 and 0.8 of the peak: auto meets "
              f"{moccasin_rows - len(moccasin_misses)} of {moccasin_rows} budgets "
              f"at <= {MOCCASIN_MAX_EXTRA:g}% extra"
              + (" - target met" if not moccasin_misses else " - target missed"))
        for miss in moccasin_misses:
            print(f"  {miss}")
    if step_rows:
        print(f"training steps: auto no costlier than every baseline that fits at "
              f"{step_rows - len(step_misses)} of {step_rows} budgets"
              + (" - target met" if not step_misses else " - target missed"))
        for miss in step_misses:
            print(f"  {miss}")


if __name__ == "__main__":
    main()
