#!/usr/bin/env python3
"""emulate.py - builds a CPU emulation of an emitted CUDA step (test only).

  emulate.py STEP.cu -o BINARY [--cxx CXX] [-- EXTRA_FLAGS...]

TEST INFRASTRUCTURE ONLY. Turns the source `remat-translate --emit-cuda`
writes into host C++ that runs on cuda_emulation.h (beside this script: a
host emulation of the CUDA runtime, cuBLAS and cuDNN calls and the kernel
launches the emitted code uses) and compiles it with the host C++ compiler
(`c++ -std=c++20 -O1 -pthread`). The binary takes the harness's options
(docs/cuda.md) and writes the step's results as the harness does on a GPU,
to be compared with remat-run's (test/Target/Cuda/emulated.test);
REMAT_EMU_ORDER=reverse in its environment runs blocks and threads in the
opposite order. BINARY.host.cpp keeps the translated source.

The translation, textual and deliberately small:
  - the CUDA, cuBLAS and cuDNN includes are dropped and cuda_emulation.h is
    included first;
  - `kernel<<<grid, block, shmem, stream>>>(args)` (one or more lines)
    becomes `remat_emu::Launch(kernel, "kernel", grid, block, shmem,
    stream)(args)`;
  - `__global__`, `__device__`, `__host__` and `__launch_bounds__(...)` go,
    `__forceinline__` becomes `inline` and `__shared__` becomes `static`
    (the emulation runs one block at a time).
Anything CUDA-only that is left (`<<<`, a CUDA qualifier) is an error here,
not a puzzling compiler message.
"""

import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# A launch: the kernel's name (possibly qualified), the configuration up to
# `>>>` (it may span lines), and the opening parenthesis of the arguments.
LAUNCH = re.compile(r"\b([A-Za-z_][\w:]*)\s*<<<(.*?)>>>\s*\(", re.S)
CUDA_INCLUDE = re.compile(
    r"^[ \t]*#[ \t]*include[ \t]*<(cuda|cuda_runtime|cuda_runtime_api|cublas_v2|"
    r"cublas|cudnn|cuda_fp16|curand_kernel)\.h>[ \t]*\n", re.M)
LEFTOVER = re.compile(r"<<<|>>>|\b__(global|device|host|shared|constant|managed)__\b")


def translate(source):
    source = CUDA_INCLUDE.sub("", source)
    source = LAUNCH.sub(
        lambda m: 'remat_emu::Launch(%s, "%s", %s)(' % (m.group(1), m.group(1),
                                                   " ".join(m.group(2).split())),
        source)
    source = re.sub(r"\b__launch_bounds__\s*\([^)]*\)\s*", "", source)
    source = re.sub(r"\b__(global|device|host)__\b[ \t]*", "", source)
    source = re.sub(r"\b__forceinline__\b", "inline", source)
    source = re.sub(r"\b__shared__\b", "static", source)
    leftover = LEFTOVER.search(source)
    if leftover:
        line = source.count("\n", 0, leftover.start()) + 1
        raise ValueError("line %d of the translation still holds '%s'"
                         % (line, leftover.group(0)))
    return ('// Host emulation of an emitted CUDA step (test/Target/Cuda/Emulation/'
            'emulate.py): not CUDA.\n#include "cuda_emulation.h"\n\n' + source)


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", help="the .cu file remat-translate --emit-cuda wrote")
    parser.add_argument("-o", dest="output", required=True, help="the binary to write")
    parser.add_argument("--cxx", default=os.environ.get("CXX", "c++"),
                        help="host C++ compiler (default: $CXX or c++)")
    args = parser.parse_args(argv)

    try:
        with open(args.source) as f:
            host = translate(f.read())
    except (OSError, ValueError) as error:
        sys.exit("emulate.py: error: %s: %s" % (args.source, error))
    host_source = args.output + ".host.cpp"
    with open(host_source, "w") as f:
        f.write(host)
    command = [args.cxx, "-std=c++20", "-O1", "-pthread", "-I", HERE,
               "-o", args.output, host_source] + extra
    result = subprocess.run(command)
    if result.returncode != 0:
        sys.exit("emulate.py: error: the host compiler failed on %s (%s)"
                 % (host_source, " ".join(command)))


if __name__ == "__main__":
    main()
