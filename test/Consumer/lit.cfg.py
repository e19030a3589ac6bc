# -*- Python -*-
# Lit configuration of the consumer test: run by run-consumer-test.sh with
# the consumer's tool; the main suite skips this directory.
import os

import lit.formats

config.name = "remat-consumer"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
# Outputs go to the consumer's build directory, never into the sources.
config.test_exec_root = lit_config.params.get("exec_root", config.test_source_root)
tool = lit_config.params.get("consumer_tool")
if tool:
    config.available_features.add("consumer")
    config.substitutions.append(("%consumer_tool", tool))
tools_dir = lit_config.params.get("llvm_tools_dir", "/usr/lib/llvm-22/bin")
config.environment["PATH"] = tools_dir + os.pathsep + os.environ.get("PATH", "")
