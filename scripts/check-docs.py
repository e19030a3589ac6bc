#!/usr/bin/env python3
"""check-docs.py - the user guide documents every option the tools have.

Reads `remat-opt --help` and `remat-translate --help` and checks that each
option of remat's own category and each option of every remat-* pass appears
in docs/user-guide.md, and that the generated references in docs/reference
match the build's (`ninja mlir-doc`). Exits 1 listing what is missing.

Usage: check-docs.py BUILD_DIR
"""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def help_text(tool):
    return subprocess.run([tool, "--help"], capture_output=True, text=True, check=True).stdout


def remat_options(text):
    """Options of the 'remat options' category and of the remat-* passes."""
    options = set()
    in_category = False
    in_pass = False
    for line in text.splitlines():
        if line.strip().endswith("options:"):
            in_category = line.startswith("remat options")
            continue
        match = re.match(r"^(\s*)--([a-z0-9-]+)", line)
        if not match:
            continue
        indent, name = len(match.group(1)), match.group(2)
        if indent == 6:
            in_pass = name.startswith("remat-")
            if in_pass:
                options.add(name)
            continue
        if in_category and indent == 2:
            options.add(name)
        elif in_pass and indent == 8:
            options.add(name)
    return options


def check_driver(build, missing):
    """docs/driver.md names every option of every remat command, and each default --help shows
    (the driver is built with LibTorch only)."""
    tool = os.path.join(build, "bin", "remat")
    if not os.path.exists(tool):
        return 0
    doc = open(os.path.join(ROOT, "docs", "driver.md")).read()
    checked = set()
    for command in ["max-batch", "compile", "sweep", "ops"]:
        text = help_text_of([tool, command])
        for name in remat_options(text):
            checked.add(name)
            if f"--{name}" not in doc:
                missing.append(f"docs/driver.md does not mention '--{name}' (remat {command} --help)")
        for name, default in re.findall(r"^\s+--([a-z0-9-]+)(?:=<\w+>)?\s+- .*\(default:? ([^)]*)\)$",
                                        text, re.M):
            value = default.split(":")[0].strip()
            if value in ("none", "<output>.weights") or value.startswith("0"):
                continue
            if value not in doc:
                missing.append(f"docs/driver.md does not state --{name}'s default {value} "
                               f"(remat {command} --help)")
    return len(checked)


def help_text_of(command):
    return subprocess.run(command + ["--help"], capture_output=True, text=True,
                          check=True).stdout


def main():
    build = sys.argv[1]
    guide = open(os.path.join(ROOT, "docs", "user-guide.md")).read()
    missing = []
    options = remat_options(help_text(os.path.join(build, "bin", "remat-opt")))
    for name in sorted(options):
        if name not in guide:
            missing.append(f"docs/user-guide.md does not mention '{name}' (remat-opt --help)")
    if "--import-graph-json" not in help_text(os.path.join(build, "bin", "remat-translate")):
        missing.append("remat-translate --help lacks --import-graph-json")
    for generated, committed in [("docs/Dialects/NNDialect.md", "NNDialect.md"),
                                 ("docs/Dialects/RematDialect.md", "RematDialect.md"),
                                 ("docs/RematPasses.md", "RematPasses.md")]:
        with open(os.path.join(build, generated)) as a, \
             open(os.path.join(ROOT, "docs", "reference", committed)) as b:
            if a.read() != b.read():
                missing.append(f"docs/reference/{committed} differs from the generated "
                               f"{generated}; copy it over")
    driver_options = check_driver(build, missing)
    for line in missing:
        print(line, file=sys.stderr)
    print(f"checked {len(options)} options, {driver_options} remat driver options and 3 "
          f"generated references")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
