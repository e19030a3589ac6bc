"""The compiled step on CUDA tensors: the planned step emitted as CUDA
(remat-translate --emit-cuda), compiled by nvcc into a shared library
(scripts/build-cuda.sh --library) cached by the source's content, and called
on the user's device buffers through its C entry points (docs/cuda.md).

A library is cached under $REMAT_CACHE_DIR (default ~/.cache/remat)/cuda as
<sha256 of the source>.so: the same step (the same model, shapes, budget and
optimizer's initial hyperparameters) compiles once per machine.
"""

import ctypes
import hashlib
import os
import subprocess
import sys
import tempfile

from ._remat import Error

_HERE = os.path.dirname(os.path.abspath(__file__))


def build_with_nvcc(source_path, library_path):
    """Compiles an emitted step into a shared library for the GPU here."""
    command = ["bash", os.path.join(_HERE, "build-cuda.sh"), source_path,
               "-o", library_path, "--library"]
    result = subprocess.run(command, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        raise Error("nvcc could not compile the step (%s):\n%s"
                    % (" ".join(command), result.stdout[-4000:]))


# How a step's CUDA source becomes a library: nvcc, or (in remat's own
# tests, without a GPU) the host emulation of the CUDA runtime that runs
# the same source on CPU buffers.
_builder = build_with_nvcc
_emulated = False


def _use_emulation(builder):
    """For remat's tests: build steps with `builder` (the host emulation of
    test/Target/Cuda/Emulation) and run them on CPU tensors."""
    global _builder, _emulated
    _builder, _emulated = builder, True


def is_emulated():
    return _emulated


def _cache_dir():
    root = os.environ.get("REMAT_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "remat")
    return os.path.join(root, "cuda-emulated" if _emulated else "cuda")


def _load(source):
    digest = hashlib.sha256(source.encode()).hexdigest()
    directory = _cache_dir()
    library = os.path.join(directory, digest + ".so")
    if not os.path.exists(library):
        print("remat: compiling the CUDA step (once; cached as %s)" % library,
              file=sys.stderr, flush=True)
        os.makedirs(directory, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=directory) as work:
            source_path = os.path.join(work, "step.cu")
            with open(source_path, "w") as f:
                f.write(source)
            built = os.path.join(work, "step.so")
            _builder(source_path, built)
            # Whole or not at all: a concurrent build of the same step
            # renames the same bytes.
            os.replace(built, library)
    return ctypes.CDLL(library)


def _declare(library):
    c_int, c_char_p, c_void_p = ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p
    signatures = {
        "remat_step_error": ([], c_char_p),
        "remat_step_num_arguments": ([], c_int),
        "remat_step_argument_name": ([c_int], c_char_p),
        "remat_step_arena_bytes": ([], ctypes.c_longlong),
        "remat_step_num_updates": ([], c_int),
        "remat_step_update_weight": ([c_int], c_char_p),
        "remat_step_update_kind": ([c_int], c_char_p),
        "remat_step_num_hyperparameters": ([], c_int),
        "remat_step_num_losses": ([], c_int),
        "remat_step_loss_name": ([c_int], c_char_p),
        "remat_step_create": ([ctypes.POINTER(c_void_p)], c_int),
        "remat_step_run": ([c_void_p, c_void_p, ctypes.POINTER(c_void_p),
                            c_void_p, ctypes.POINTER(ctypes.c_double),
                            ctypes.POINTER(ctypes.c_float)], c_int),
        "remat_step_destroy": ([c_void_p], None),
    }
    for name, (arguments, result) in signatures.items():
        function = getattr(library, name)
        function.argtypes = arguments
        function.restype = result


class CudaStep:
    """One emitted step loaded as a library, with its cuBLAS and cuDNN
    handles (made on the current device)."""

    def __init__(self, source):
        self.library = _load(source)
        _declare(self.library)
        lib = self.library
        self.argument_names = [
            lib.remat_step_argument_name(i).decode()
            for i in range(lib.remat_step_num_arguments())]
        self.arena_bytes = lib.remat_step_arena_bytes()
        self.updates = [(lib.remat_step_update_weight(i).decode(),
                         lib.remat_step_update_kind(i).decode())
                        for i in range(lib.remat_step_num_updates())]
        self.values_per_update = lib.remat_step_num_hyperparameters()
        self.loss_names = [lib.remat_step_loss_name(i).decode()
                           for i in range(lib.remat_step_num_losses())]
        self.handle = ctypes.c_void_p()
        self._check(lib.remat_step_create(ctypes.byref(self.handle)))

    def _check(self, status):
        if status != 0:
            raise Error("the CUDA step failed: %s"
                        % self.library.remat_step_error().decode())

    def run(self, stream, buffers, arena, hyperparameters):
        """One step on `stream` (a cudaStream_t as an int; None: the default
        stream) over the device buffers (address, bytes), one per argument,
        and `arena` (arena_bytes, 256-byte aligned); returns the losses by
        name."""
        arguments = (ctypes.c_void_p * len(buffers))(
            *(address for address, _ in buffers))
        values = (ctypes.c_double * max(1, len(hyperparameters)))(
            *hyperparameters)
        losses = (ctypes.c_float * max(1, len(self.loss_names)))()
        lent = list(buffers) + [(arena, self.arena_bytes)] if _emulated else []
        for address, size in lent:
            self.library.remat_emu_lend(ctypes.c_void_p(address),
                                        ctypes.c_size_t(size))
        try:
            self._check(self.library.remat_step_run(
                self.handle, stream, arguments, arena, values, losses))
        finally:
            for address, _ in lent:
                self.library.remat_emu_take_back(ctypes.c_void_p(address))
        return {name: losses[i] for i, name in enumerate(self.loss_names)}

    def __del__(self):
        handle = getattr(self, "handle", None)
        if handle:
            self.library.remat_step_destroy(handle)
