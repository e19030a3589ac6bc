#!/usr/bin/env python3
"""table.py - the GPU check's results as a Markdown table.

  table.py OUT_DIR

Reads OUT_DIR/manifest.json (prepare.sh) and, per model, what check.sh left
in OUT_DIR/gpu/: <name>.harness.json (the CUDA harness's JSON line),
<name>.compare.json (summarize.py compare against remat-run's results),
<name>.torch-eager.json and <name>.torch-checkpoint.json (torch_step.py),
<name>.status (why a stage failed, if one did). Prints the table and the
notes under it; a missing file shows as a dash or the failure it records.
"""

import json
import os
import sys


def load(path):
    try:
        with open(path) as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None


def mb(value):
    return "-" if value is None else f"{value / 1e6:,.1f} MB"


def ms(record):
    if not record or record.get("ms_per_step") is None:
        return "-"
    return f"{record['ms_per_step']:.2f}"


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: table.py OUT_DIR [MODEL,MODEL,...]")
    out = sys.argv[1]
    only = set(sys.argv[2].split(",")) if len(sys.argv) == 3 and sys.argv[2] else None
    manifest = load(os.path.join(out, "manifest.json"))
    if manifest is None:
        sys.exit(f"table.py: error: cannot read {out}/manifest.json")
    gpu = os.path.join(out, "gpu")

    rows, notes, info = [], [], {}
    for entry in manifest["models"]:
        name = entry["name"]
        if only is not None and name not in only:
            continue
        harness = load(os.path.join(gpu, f"{name}.harness.json"))
        verdict = load(os.path.join(gpu, f"{name}.compare.json"))
        eager = load(os.path.join(gpu, f"{name}.torch-eager.json"))
        checkpoint = load(os.path.join(gpu, f"{name}.torch-checkpoint.json"))
        try:
            with open(os.path.join(gpu, f"{name}.status")) as handle:
                failures = [line.strip() for line in handle if line.strip()]
        except OSError:
            failures = []
        planned = entry["planned_bytes"]

        measured = ratio = library = remat_ms = "-"
        if harness:
            device_bytes = harness["allocated_bytes"] + harness["run_growth_bytes"]
            measured = f"{mb(device_bytes)} ({harness['allocated_bytes']:,} + {harness['run_growth_bytes']:,})"
            ratio = f"{device_bytes / planned:.3f}"
            library = mb(harness["library_bytes"])
            remat_ms = ms(harness)
            if harness.get("planned_bytes") != planned:
                notes.append(f"{name}: the harness plans {harness.get('planned_bytes')} bytes, "
                             f"the report {planned}")
        if verdict:
            worst, relative = verdict["worst"], verdict["worst_relative"]
            difference = (f"{'pass' if verdict['pass'] else 'FAIL'}: "
                          f"{worst['sample_diff']:.2g} (tol {worst['tolerance']:.2g}); "
                          f"rel {relative['relative_diff']:.2g}")
            if verdict["excused"]:
                difference += f"; {len(verdict['excused'])} excused"
                notes.append(f"{name}: {len(verdict['excused'])} samples of Adam-updated weights "
                             "excused (gradients within rounding of zero: "
                             + ", ".join(f"{e['name']}[{e['sample']}]" for e in verdict["excused"][:5])
                             + ")")
            notes.append(f"{name}: worst sample difference {worst['sample_diff']:.3g} in "
                         f"{worst['name']} (tolerance {worst['tolerance']:.3g}); relative to "
                         f"max |ref|: {relative['relative_diff']:.3g} in {relative['name']}")
            if not verdict["pass"]:
                notes += [f"{name}: {problem}" for problem in verdict["problems"][:5]]
        else:
            difference = "-"
        segments = f" ({checkpoint['segments']} segments)" if checkpoint and "segments" in checkpoint else ""
        rows.append([
            f"{name}", str(entry["batch"]),
            f"{entry['budget']} ({mb(entry['budget_bytes'])})",
            mb(planned), measured, ratio, library, difference,
            remat_ms, ms(eager), ms(checkpoint) + segments,
            mb(eager.get("max_memory_allocated") if eager else None),
            mb(checkpoint.get("max_memory_allocated") if checkpoint else None),
        ])
        notes += [f"{name}: {failure}" for failure in failures]
        if entry.get("recomputed"):
            notes.append(f"{name}: {entry['solver']} recomputes {len(entry['recomputed'])} values "
                         f"({', '.join(entry['recomputed'][:6])}"
                         f"{', ...' if len(entry['recomputed']) > 6 else ''}), estimated "
                         f"+{100 * (entry.get('extra_time') or 0):.1f}% time; peak without "
                         f"rematerialization {mb(entry['peak_bytes_before'])}")
        for record in (eager, checkpoint, harness):
            if record:
                for key in ("gpu", "torch", "cuda", "cudnn", "model_source"):
                    if record.get(key) is not None:
                        info.setdefault(key, set()).add(str(record[key]))
        if harness:
            info.setdefault("steps", set()).add(str(harness.get("steps")))

    header = ["model", "batch", "budget", "planned (args + arena)",
              "device memory (allocated + run growth)", "device / planned",
              "library overhead", "results vs remat-run: max sample diff", "remat ms/step",
              "eager ms/step", "checkpoint ms/step", "eager peak", "checkpoint peak"]
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join(["---"] * 2 + ["---:"] * (len(header) - 2)) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    lines.append("")
    lines.append("Device memory: what the harness's cudaMalloc of arguments and arena took "
                 "(cudaMemGetInfo) plus any growth while running; library overhead: the CUDA "
                 "stream and the cuBLAS and cuDNN handles. PyTorch peaks are "
                 "torch.cuda.max_memory_allocated (fp32, TF32 off, warm-up included). "
                 "Results: CUDA vs remat-run on the CPU, same plan and seed; pass when every "
                 "sample is within 1e-3 * max|ref| + 1e-5 and sums within 1e-3 of sum|ref|; "
                 "rel: the largest sample difference over its result's max|ref|.")
    for key in ("gpu", "torch", "cuda", "cudnn", "model_source", "steps"):
        if key in info:
            lines.append(f"- {key}: {', '.join(sorted(info[key]))}")
    lines += [f"- {note}" for note in notes]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
