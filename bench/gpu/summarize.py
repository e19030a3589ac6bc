#!/usr/bin/env python3
"""summarize.py - a step's results as a small JSON summary, and the comparison of two summaries.

The GPU check compares what the CUDA harness computes with what remat-run
computes on the CPU for the same planned step and the same seed. The results
themselves (updated weights and optimizer state) are tens of megabytes, too
much to carry to the GPU machine, so each side is reduced to a summary:

  summarize.py summarize DIR -o SUMMARY.json [--samples 2048]
      For every DIR/<name>.npy (as remat-run --output-dir and the CUDA
      harness write them): shape, dtype, element count, sum, sum of |x|,
      max |x| (all three in float64) and the values at `--samples`
      deterministic indices. A result of at most that many elements is
      sampled whole; a larger one is cut into that many equal strata and
      one index is taken in each, picked by splitmix64 of the stratum's
      number, so that both sides sample the same elements without storing
      the indices.

  summarize.py compare REF.json GOT.json [--rtol 1e-3] [--atol 1e-5] [--json-out F]
      Passes when both hold the same results with the same shapes and
      dtypes and, for every result, with M = max |x| of the reference:
        - every sample:  |got - ref| <= rtol * M + atol
        - max |x|:       |got - ref| <= rtol * M + atol
        - sum of |x|:    |got - ref| <= rtol * (sum of |x| of ref) + atol
        - sum:           |got - ref| <= rtol * (sum of |x| of ref) + atol
      (The sum is held to a tolerance relative to the sum of |x|, not to
      |sum|: gradients and biases sum to almost nothing, so a tolerance
      relative to |sum| would ask for more digits than float32 keeps.)
      NaN or infinity in either side fails. One exception: a sample of an
      Adam-updated weight `<w>.new` beyond the tolerance is excused (and
      counted) where the two sides' `<w>.exp_avg.new` - the gradient times
      (1 - beta1) - differ in sign or by over 10% at that index: the first
      Adam step moves a weight by about lr * sign(gradient), so a gradient
      within rounding of zero may move it either way (--strict: no excuse).
      Prints one line with the worst sample difference, against the
      tolerance and relative to the result's max |ref|; on failure lists
      every result beyond tolerance and exits 1. `--json-out` also writes the
      verdict as JSON.

NumPy is used when the interpreter has it; otherwise (or with
REMAT_SUMMARIZE_PURE=1) the .npy files are read by the plain-Python reader
below, which gives the same summary up to float64 rounding of the sums.
"""

import argparse
import array
import ast
import json
import math
import os
import struct
import sys

SAMPLES = 2048
MASK64 = (1 << 64) - 1


def splitmix64(z):
    """splitmix64's finalizer (the same mix as remat's generator)."""
    z = (z + 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def sample_indices(count, samples):
    """Deterministic flat indices: all of them for a small result, else one per stratum."""
    if count <= samples:
        return list(range(count))
    indices = []
    for k in range(samples):
        begin = k * count // samples
        end = (k + 1) * count // samples
        indices.append(begin + splitmix64(k) % (end - begin))
    return indices


# --- reading .npy files -------------------------------------------------------

# dtype descriptor (little endian or byte-order free) -> array typecode
PURE_TYPECODES = {"f4": "f", "f8": "d", "i4": "i", "i8": "q", "u1": "B", "i1": "b",
                  "b1": "B", "u4": "I", "u8": "Q", "i2": "h", "u2": "H"}


def read_npy_header(handle, path):
    """Returns (descr, fortran_order, shape) and leaves `handle` at the data."""
    magic = handle.read(6)
    if magic != b"\x93NUMPY":
        raise SystemExit(f"summarize.py: error: {path}: not a .npy file")
    major = handle.read(2)[0]
    if major == 1:
        (length,) = struct.unpack("<H", handle.read(2))
    elif major in (2, 3):
        (length,) = struct.unpack("<I", handle.read(4))
    else:
        raise SystemExit(f"summarize.py: error: {path}: unknown .npy version {major}")
    header = ast.literal_eval(handle.read(length).decode("latin1"))
    return header["descr"], header["fortran_order"], tuple(header["shape"])


class PureArray:
    """A flat little-endian array read without NumPy."""

    def __init__(self, path):
        with open(path, "rb") as handle:
            descr, fortran, shape = read_npy_header(handle, path)
            if fortran:
                raise SystemExit(f"summarize.py: error: {path}: Fortran order is not supported")
            order, code = descr[0], descr[1:]
            if order not in "<|=" or code not in PURE_TYPECODES:
                raise SystemExit(f"summarize.py: error: {path}: unsupported dtype {descr!r}")
            self.values = array.array(PURE_TYPECODES[code])
            self.values.frombytes(handle.read())
            if sys.byteorder != "little":
                self.values.byteswap()
        self.shape = shape
        self.dtype = dtype_name(code)
        count = math.prod(shape)
        if len(self.values) != count:
            raise SystemExit(f"summarize.py: error: {path}: {len(self.values)} elements, "
                             f"shape {list(shape)} needs {count}")

    def stats(self):
        values = self.values
        finite = all(map(math.isfinite, values)) if self.dtype.startswith("float") else True
        total = math.fsum(values) if finite else float("nan")
        abs_total = math.fsum(map(abs, values)) if finite else float("nan")
        max_abs = max(map(abs, values), default=0.0) if finite else float("nan")
        return float(total), float(abs_total), float(max_abs)

    def at(self, indices):
        return [self.values[i] for i in indices]


class NumpyArray:
    def __init__(self, path, numpy):
        self.np = numpy
        data = numpy.load(path, allow_pickle=False)
        self.shape = tuple(data.shape)
        self.dtype = dtype_name(data.dtype.str[1:])
        self.flat = numpy.ascontiguousarray(data).reshape(-1)

    def stats(self):
        np = self.np
        wide = self.flat.astype(np.float64)
        if wide.size and not np.all(np.isfinite(wide)):
            nan = float("nan")
            return nan, nan, nan
        magnitudes = np.abs(wide)
        max_abs = float(magnitudes.max()) if wide.size else 0.0
        return float(wide.sum()), float(magnitudes.sum()), max_abs

    def at(self, indices):
        return self.flat[self.np.asarray(indices, dtype=self.np.int64)].tolist()


def dtype_name(code):
    names = {"f4": "float32", "f8": "float64", "i4": "int32", "i8": "int64", "u1": "uint8",
             "i1": "int8", "b1": "bool", "u4": "uint32", "u8": "uint64", "i2": "int16",
             "u2": "uint16", "f2": "float16"}
    return names.get(code, code)


def load(path):
    if os.environ.get("REMAT_SUMMARIZE_PURE") != "1":
        try:
            import numpy
        except ImportError:
            numpy = None
        if numpy is not None:
            return NumpyArray(path, numpy)
    return PureArray(path)


def short(value):
    """A sample as JSON: integers as they are, floats with 9 significant digits
    (enough to give a float32 back exactly)."""
    if isinstance(value, float):
        return float(f"{value:.9g}")
    return int(value)


def summarize(directory, samples, like=None):
    names = sorted(entry[:-4] for entry in os.listdir(directory) if entry.endswith(".npy"))
    if like is not None:
        with open(like) as handle:
            wanted = json.load(handle)["results"]
        # Only the reference's names; a missing one still shows in compare.
        names = [name for name in names if name in wanted]
    if not names:
        raise SystemExit(f"summarize.py: error: no .npy files in {directory}")
    results = {}
    for name in names:
        data = load(os.path.join(directory, name + ".npy"))
        count = math.prod(data.shape)
        total, abs_total, max_abs = data.stats()
        results[name] = {
            "shape": list(data.shape),
            "dtype": data.dtype,
            "count": count,
            "sum": total,
            "abs_sum": abs_total,
            "max_abs": max_abs,
            "samples": [short(v) for v in data.at(sample_indices(count, samples))],
        }
    return {"format": "remat-result-summary-1", "samples": samples, "results": results}


# --- comparing ----------------------------------------------------------------

def finite(*values):
    return all(math.isfinite(v) for v in values)


def sign(value):
    return (value > 0) - (value < 0)


def adam_moments(name, ref, got):
    """For an Adam-updated weight `<w>.new`, the samples of `<w>.exp_avg.new`
    (which is (1 - beta1) * gradient after the first step) on both sides, else None."""
    if not name.endswith(".new") or name.endswith((".exp_avg.new", ".exp_avg_sq.new")):
        return None
    moment = name[:-len(".new")] + ".exp_avg.new"
    if moment not in ref or moment not in got:
        return None
    if not (ref[moment]["count"] == ref[name]["count"] == got[moment]["count"]):
        return None
    return ref[moment]["samples"], got[moment]["samples"]


def ill_conditioned(k, moments):
    """Whether the Adam update of sample k cannot be compared: the two sides'
    gradients differ in sign or by more than a tenth of the reference. The
    first Adam step moves a weight by lr * g / (|g| + eps), about lr * sign(g),
    so a gradient within rounding of zero may move it either way."""
    if moments is None:
        return False
    m_ref, m_got = float(moments[0][k]), float(moments[1][k])
    return sign(m_ref) != sign(m_got) or abs(m_got - m_ref) > 0.1 * abs(m_ref)


def compare_result(name, ref, got, rtol, atol, moments=None):
    """Compares one result. Returns (problems, worst sample difference, its
    tolerance, excused samples as (index, ref, got))."""
    problems, excused = [], []
    if ref["shape"] != got["shape"] or ref["dtype"] != got["dtype"]:
        problems.append(f"{name}: {got['dtype']} {got['shape']}, "
                        f"the reference is {ref['dtype']} {ref['shape']}")
        return problems, math.inf, 0.0, excused
    if len(ref["samples"]) != len(got["samples"]):
        problems.append(f"{name}: {len(got['samples'])} samples, the reference has "
                        f"{len(ref['samples'])} (summaries made with different --samples)")
        return problems, math.inf, 0.0, excused
    scale = ref["max_abs"]
    if not finite(ref["sum"], ref["abs_sum"], scale):
        problems.append(f"{name}: the reference holds NaN or infinity")
        return problems, math.inf, 0.0, excused
    if not finite(got["sum"], got["abs_sum"], got["max_abs"]):
        problems.append(f"{name}: holds NaN or infinity")
        return problems, math.inf, 0.0, excused

    tolerance = rtol * scale + atol
    worst, worst_at = 0.0, -1
    for k, (a, b) in enumerate(zip(ref["samples"], got["samples"])):
        diff = abs(float(a) - float(b))
        if diff > tolerance and ill_conditioned(k, moments):
            excused.append((k, a, b))
        elif diff > worst:
            worst, worst_at = diff, k
    if worst > tolerance:
        problems.append(f"{name}: sample {worst_at} is {got['samples'][worst_at]!r}, "
                        f"the reference {ref['samples'][worst_at]!r}: |diff| {worst:.3g} > "
                        f"tolerance {tolerance:.3g}")
    # Excused samples widen the other tolerances by what they explain.
    explained = sum(abs(float(a) - float(b)) for _, a, b in excused)
    largest = max((abs(float(a) - float(b)) for _, a, b in excused), default=0.0)
    diff = abs(got["max_abs"] - scale)
    if diff > tolerance + largest:
        problems.append(f"{name}: max |x| {got['max_abs']!r}, the reference {scale!r}: "
                        f"|diff| {diff:.3g} > tolerance {tolerance + largest:.3g}")
    sum_tolerance = rtol * ref["abs_sum"] + atol + explained
    for key, label in (("sum", "sum"), ("abs_sum", "sum of |x|")):
        diff = abs(got[key] - ref[key])
        if diff > sum_tolerance:
            problems.append(f"{name}: {label} {got[key]!r}, the reference {ref[key]!r}: "
                            f"|diff| {diff:.3g} > tolerance {sum_tolerance:.3g}")
    return problems, worst, tolerance, excused


def compare(ref_path, got_path, rtol, atol, excuse_adam=True):
    with open(ref_path) as handle:
        ref = json.load(handle)["results"]
    with open(got_path) as handle:
        got = json.load(handle)["results"]
    problems, excused = [], []
    missing = sorted(set(ref) - set(got))
    extra = sorted(set(got) - set(ref))
    if missing:
        problems.append(f"missing results (in the reference only): {', '.join(missing)}")
    if extra:
        problems.append(f"unexpected results (not in the reference): {', '.join(extra)}")
    worst = {"name": None, "sample_diff": 0.0, "tolerance": None, "ratio": 0.0}
    # The largest sample difference relative to its result's max |ref|: the
    # agreement without the absolute floor `atol`, which dominates the
    # tolerance of results of small magnitude (gradients, optimizer moments).
    relative = {"name": None, "relative_diff": 0.0}
    for name in sorted(set(ref) & set(got)):
        moments = adam_moments(name, ref, got) if excuse_adam else None
        found, diff, tolerance, skipped = compare_result(name, ref[name], got[name], rtol, atol,
                                                         moments)
        problems += found
        excused += [{"name": name, "sample": k, "reference": a, "got": b} for k, a, b in skipped]
        ratio = diff / tolerance if tolerance > 0 else math.inf
        if worst["name"] is None or ratio > worst["ratio"]:
            worst = {"name": name, "sample_diff": diff, "tolerance": tolerance, "ratio": ratio}
        scale = ref[name]["max_abs"]
        rel = diff / scale if scale > 0 else (0.0 if diff == 0 else math.inf)
        if relative["name"] is None or rel > relative["relative_diff"]:
            relative = {"name": name, "relative_diff": rel}
    return {"pass": not problems, "results": len(ref), "compared": len(set(ref) & set(got)),
            "rtol": rtol, "atol": atol, "worst": worst, "worst_relative": relative,
            "excused": excused, "problems": problems}


def dump_summary(summary):
    """The summary as JSON with one line per result (readable, and greppable by name)."""
    lines = [f"  {json.dumps(name)}: {json.dumps(result)}"
             for name, result in summary["results"].items()]
    return (f'{{"format": {json.dumps(summary["format"])}, "samples": {summary["samples"]},\n'
            ' "results": {\n' + ",\n".join(lines) + "\n }\n}")


def json_safe(value):
    """Infinities (a shape mismatch's 'difference') as strings, so the JSON stays standard."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_safe(v) for v in value]
    return value


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("summarize", help="summarize DIR/*.npy")
    make.add_argument("directory")
    make.add_argument("-o", "--output", help="the summary (default: stdout)")
    make.add_argument("--samples", type=int, default=SAMPLES)
    make.add_argument("--like", metavar="SUMMARY",
                      help="only the arrays this summary has (the CUDA harness also "
                           "writes the final state, <argument name>.npy)")
    check = sub.add_parser("compare", help="compare a summary with a reference summary")
    check.add_argument("reference")
    check.add_argument("summary")
    check.add_argument("--rtol", type=float, default=1e-3)
    check.add_argument("--atol", type=float, default=1e-5)
    check.add_argument("--json-out", help="also write the verdict here")
    check.add_argument("--strict", action="store_true",
                       help="excuse no sample of an Adam-updated weight")
    args = parser.parse_args()

    if args.command == "summarize":
        if not os.path.isdir(args.directory):
            raise SystemExit(f"summarize.py: error: {args.directory} is not a directory")
        text = dump_summary(summarize(args.directory, args.samples, args.like))
        if args.output:
            with open(args.output, "w") as handle:
                handle.write(text + "\n")
        else:
            print(text)
        return 0

    for path in (args.reference, args.summary):
        if not os.path.isfile(path):
            raise SystemExit(f"summarize.py: error: {path} does not exist")
    verdict = compare(args.reference, args.summary, args.rtol, args.atol,
                      excuse_adam=not args.strict)
    if args.json_out:
        with open(args.json_out, "w") as handle:
            json.dump(json_safe(verdict), handle, indent=1)
            handle.write("\n")
    worst, relative = verdict["worst"], verdict["worst_relative"]
    where = (f"worst sample difference {worst['sample_diff']:.3g} in '{worst['name']}' "
             f"(tolerance {worst['tolerance']:.3g}); relative to max |ref|: "
             f"{relative['relative_diff']:.3g} in '{relative['name']}'"
             if worst["name"] else "nothing compared")
    tolerance = f"rtol {args.rtol:g} of max |ref|, atol {args.atol:g}"
    if verdict["excused"]:
        where += (f"; {len(verdict['excused'])} samples of Adam-updated weights excused "
                  "(the two gradients differ in sign or by over 10%: "
                  + ", ".join(f"{e['name']}[{e['sample']}]" for e in verdict["excused"][:5])
                  + (", ..." if len(verdict["excused"]) > 5 else "") + ")")
    if verdict["pass"]:
        print(f"compare: pass: {verdict['compared']} results within tolerance ({tolerance}); {where}")
        return 0
    print(f"compare: FAIL: {len(verdict['problems'])} differences beyond tolerance "
          f"({tolerance}) between {args.summary} and the reference {args.reference}:")
    for problem in verdict["problems"]:
        print(f"  {problem}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
