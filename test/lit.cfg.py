# -*- Python -*-
# Lit configuration for remat's tests: finds the tools in the build tree and
# LLVM's FileCheck, not and count, and sets the features tests may require.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "remat"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".json", ".test", ".td"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs", "Consumer", "Utils"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.remat_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%remat_obj_root", config.remat_obj_root))
config.substitutions.append(("%fixtures", os.path.join(config.test_source_root, "Fixtures")))
config.substitutions.append(("%examples", os.path.join(config.test_source_root, "..", "examples")))
# The project's Python environment (scripts/setup-python.sh): PyTorch,
# torchvision, numpy and scikit-learn.
config.substitutions.append(("%python", config.remat_python))

# remat-tblgen's include path: remat's .td files and MLIR's.
tblgen_includes = [os.path.join(config.remat_src_root, "include")]
tblgen_includes += [d for d in config.mlir_include_dirs.split(";") if d]
config.substitutions.append(
    ("%tblgen_includes", " ".join("-I " + d for d in tblgen_includes)))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.remat_tools_dir, config.llvm_tools_dir]
tools = ["remat-opt", "remat-translate", "remat-tblgen"]
if config.remat_enable_torch:
    tools.extend(["remat", "remat-import", "remat-run"])
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.remat_tools_dir, append_path=True)

if config.remat_enable_torch:
    config.available_features.add("torch")
# `import remat` from this build's package (python/), not whichever build
# the environment's path file names.
if config.remat_enable_python:
    config.available_features.add("remat-python")
    config.environment["PYTHONPATH"] = os.path.join(config.remat_obj_root, "python")
# scikit-learn for examples/train-digits.py.
import subprocess
if subprocess.run([config.remat_python, "-c", "import sklearn"],
                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
    config.available_features.add("sklearn")
if config.remat_enable_cbc:
    config.available_features.add("cbc")
# A build under sanitizers (scripts/sanitize.sh): the largest end-to-end
# model checks, whose code paths smaller tests reach too, run only in the
# normal build, where they take a third of the time.
if config.remat_sanitizers:
    config.available_features.add("sanitizers")

# The public benchmark graphs (bench/graphs, with their sources and licences).
bench_graphs = os.path.join(config.test_source_root, "..", "bench", "graphs")
config.substitutions.append(("%bench_graphs", os.path.abspath(bench_graphs)))

# nvcc compiles the sources --emit-cuda writes (scripts/build-cuda.sh); CUDA
# lives in /usr/local/cuda on the project's machines, CUDA_HOME elsewhere.
cuda_home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
if os.access(os.path.join(cuda_home, "bin", "nvcc"), os.X_OK):
    config.available_features.add("nvcc")
    config.environment["CUDA_HOME"] = cuda_home
else:
    lit_config.note("nvcc not found in %s (set CUDA_HOME): the tests that "
                    "compile emitted CUDA sources are skipped" % cuda_home)
config.substitutions.append(
    ("%build_cuda", os.path.join(config.test_source_root, "..", "scripts", "build-cuda.sh")))

# Debian's chromium renders the charts and the HTML report headless
# (scripts/render-report.py; scripts/install-deps.sh installs it).
import shutil
if shutil.which("chromium"):
    config.available_features.add("chromium")
config.substitutions.append(
    ("%render_report", config.remat_python + " " + os.path.join(
        config.test_source_root, "..", "scripts", "render-report.py")))
