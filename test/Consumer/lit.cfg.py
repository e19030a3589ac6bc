# -*- Python -*-
# Lit configuration of the consumer test: run by run-consumer-test.sh with
# the consumer's tool; the main suite skips this directory.
import os

import lit.formats

config.name = "remat-consumer"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
# Outputs go to the consumer's build directory, never into the sources.
config.test_exec_root = lit_config.params.get("exec_root", config.test_source_root)
tool = lit_config.params.get("consumer_tool")
if tool:
    config.available_features.add("consumer")
    config.substitutions.append(("%consumer_tool", tool))
# The installed tools themselves (installed-*.test), from the prefix's bin/.
installed_bin = lit_config.params.get("installed_bin")
if installed_bin:
    config.available_features.add("installed")
    config.substitutions.append(("%installed_bin", installed_bin))
    if os.access(os.path.join(installed_bin, "remat"), os.X_OK):
        config.available_features.add("torch-tools")
repo = os.path.join(config.test_source_root, "..", "..")
config.substitutions.append(("%fixtures", os.path.join(repo, "test", "Fixtures")))
config.substitutions.append(
    ("%graph_inputs", os.path.join(repo, "test", "Target", "GraphJson", "Inputs")))
config.substitutions.append(("%examples", os.path.join(repo, "examples")))
# The project's Python environment (see test/lit.cfg.py).
config.substitutions.append(("%python", lit_config.params.get(
    "python", os.path.join(repo, ".venv", "bin", "python"))))
tools_dir = lit_config.params.get("llvm_tools_dir", "/usr/lib/llvm-22/bin")
config.environment["PATH"] = tools_dir + os.pathsep + os.environ.get("PATH", "")
