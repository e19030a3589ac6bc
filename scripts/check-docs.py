#!/usr/bin/env python3
"""check-docs.py - the docs document every option the tools have, and no other.

Checks, from the tools' `--help`:
- each option of remat-opt's own category and of every remat-* pass appears in
  docs/user-guide.md;
- each option of every `remat` subcommand appears in docs/driver.md, with the
  default its help states (`(default: X)`) on a line that names the option;
- each option of remat-run appears in docs/execution.md, and each of
  remat-import in docs/import.md;
- every `--option` the README and docs/*.md mention is an option of one of
  remat's tools, of a script in bench/, scripts/ or examples/ (its argparse
  options), or of the few other programs the docs show (cmake, nvcc,
  chromium);
- the generated references in docs/reference match the build's
  (`ninja mlir-doc`);
- the Markdown files stand alone: no relative link leads outside the
  repository or to a file it does not have, and no text names a design
  document or a tracker entry that a clone does not hold.
Exits 1 listing what is wrong.

Usage: check-docs.py BUILD_DIR
       check-docs.py --standalone ROOT   (only the last check, on ROOT)
"""

import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def help_text(tool, *args, flag="--help"):
    return subprocess.run([tool, *args, flag], capture_output=True, text=True,
                          check=True).stdout


# Options of programs that are not remat's which the docs show on purpose.
OTHER_PROGRAMS = {"install", "prefix", "build", "target", "config", "parallel",
                  "headless", "screenshot", "window-size", "dump-dom",
                  "virtual-time-budget", "no-sandbox", "disable-gpu", "arch",
                  "gpu-architecture", "std", "output-on-failure", "test-dir"}

HELP_OPTION = re.compile(r"^\s+(-{1,2}[a-zA-Z][a-zA-Z0-9-]*)(?:=<[^>]*>)?\s+- (.*)$")


def tool_options(text):
    """Option name -> help line, for the options a --help lists."""
    options = {}
    for line in text.splitlines():
        match = HELP_OPTION.match(line)
        if match:
            options[match.group(1).lstrip("-")] = match.group(2)
    return options


def script_options():
    """The options of the repository's Python (argparse) and shell scripts."""
    options = set()
    for pattern in ("bench/*.py", "bench/*/*.py", "scripts/*.py", "examples/*.py"):
        for path in glob.glob(os.path.join(ROOT, pattern)):
            options.update(re.findall(r'add_argument\(\s*"--([a-z0-9-]+)"', open(path).read()))
    # The shell scripts' options, as their `case` patterns (`--library)`).
    for path in glob.glob(os.path.join(ROOT, "scripts", "*.sh")):
        options.update(re.findall(r"^\s+--([a-z0-9-]+)(?:=\*)?\)", open(path).read(), re.M))
    return options


def documented_options():
    """(file, option) for each `--option` the README and docs mention."""
    found = []
    for path in [os.path.join(ROOT, "README.md")] + sorted(
            glob.glob(os.path.join(ROOT, "docs", "*.md"))):
        text = open(path).read()
        for name in sorted(set(re.findall(r"(?:^|[\s`(\[])--([a-z][a-z0-9-]*)", text))):
            found.append((os.path.relpath(path, ROOT), name))
    return found


def check_doc_lists(doc, options, missing, source):
    """Each option of `options` appears in `doc` as --name, and its stated
    default on a line of `doc` that names it."""
    text = open(os.path.join(ROOT, "docs", doc)).read()
    lines = text.splitlines()
    for name, description in sorted(options.items()):
        if name in ("help", "help-list", "version"):
            continue
        if f"--{name}" not in text and f"-{name} " not in text:
            missing.append(f"docs/{doc} does not mention '--{name}' ({source})")
            continue
        default = re.search(r"\(default:? ([^);]+)", description)
        if not default:
            continue
        value = re.split(r"[:,]", default.group(1))[0].strip()
        if "<" in value:  # a pattern such as <output>.weights: the docs show an example
            continue
        if not any(f"--{name}" in line and value in line for line in lines):
            missing.append(f"docs/{doc}: no line naming '--{name}' states its default "
                           f"'{value}' ({source})")


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


# Text that points to what a clone of the repository does not hold.
OUTSIDE_REFERENCES = [
    (re.compile(r"\.\./shared\b"), "a folder beside the repository"),
    (re.compile(r"\bDESIGN\.md\b"), "a design document outside the repository (docs/design.md is ours)"),
    (re.compile(r"\b[Ii]ssues? #?\d+"), "a tracker entry by number"),
    (re.compile(r"\b(next|this|the) issue\b", re.I), "a tracker entry"),
]
MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")


def markdown_files(root):
    """The repository's Markdown files, except licence texts and build trees."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs
                         if not d.startswith(".") and not d.startswith("build"))
        for name in sorted(files):
            if name.endswith(".md"):
                yield os.path.join(folder, name)


def standalone_problems(root):
    """What in the Markdown files under root points outside the repository."""
    root = os.path.realpath(root)
    problems = []
    for path in markdown_files(root):
        relative = os.path.relpath(path, root)
        for number, line in enumerate(open(path, encoding="utf-8"), start=1):
            for pattern, what in OUTSIDE_REFERENCES:
                match = pattern.search(line)
                if match:
                    problems.append(f"{relative}:{number}: '{match.group(0)}' names {what}")
            for target in MARKDOWN_LINK.findall(line):
                if re.match(r"[a-z]+:|#", target):
                    continue
                resolved = os.path.realpath(
                    os.path.join(os.path.dirname(path), target.split("#")[0]))
                if os.path.commonpath([root, resolved]) != root:
                    problems.append(f"{relative}:{number}: link '{target}' leads outside the repository")
                elif not os.path.exists(resolved):
                    problems.append(f"{relative}:{number}: link '{target}' names no file")
    return problems


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--standalone":
        problems = standalone_problems(sys.argv[2])
        for line in problems:
            print(line, file=sys.stderr)
        return 1 if problems else 0
    build = sys.argv[1]
    guide = open(os.path.join(ROOT, "docs", "user-guide.md")).read()
    missing = []
    options = remat_options(help_text(os.path.join(build, "bin", "remat-opt")))
    for name in sorted(options):
        if name not in guide:
            missing.append(f"docs/user-guide.md does not mention '{name}' (remat-opt --help)")
    if "--import-graph-json" not in help_text(os.path.join(build, "bin", "remat-translate")):
        missing.append("remat-translate --help lacks --import-graph-json")

    bin_dir = os.path.join(build, "bin")
    known = set(OTHER_PROGRAMS) | script_options()
    remat = os.path.join(bin_dir, "remat")
    # The driver is built with LibTorch only.
    subcommands = (re.findall(r"^  ([a-z][a-z-]*)\s+- ", help_text(remat), re.M)
                   if os.path.exists(remat) else [])
    for subcommand in subcommands:
        options = tool_options(help_text(remat, subcommand))
        check_doc_lists("driver.md", options, missing, f"remat {subcommand} --help")
        known.update(options)
    for tool, doc in [("remat-run", "execution.md"), ("remat-import", "import.md")]:
        path = os.path.join(bin_dir, tool)
        if not os.path.exists(path):  # built only with LibTorch
            continue
        options = tool_options(help_text(path))
        check_doc_lists(doc, options, missing, f"{tool} --help")
        known.update(options)
    for tool in ("remat-opt", "remat-translate", "remat-bench-solvers"):
        path = os.path.join(bin_dir, tool)
        if os.path.exists(path):
            known.update(tool_options(help_text(path, flag="--help-hidden")))
    for doc, name in documented_options():
        if name not in known:
            missing.append(f"{doc} mentions '--{name}', which no remat tool or script takes")
    for generated, committed in [("docs/Dialects/NNDialect.md", "NNDialect.md"),
                                 ("docs/Dialects/RematDialect.md", "RematDialect.md"),
                                 ("docs/RematPasses.md", "RematPasses.md")]:
        with open(os.path.join(build, generated)) as a, \
             open(os.path.join(ROOT, "docs", "reference", committed)) as b:
            if a.read() != b.read():
                missing.append(f"docs/reference/{committed} differs from the generated "
                               f"{generated}; copy it over")
    missing.extend(standalone_problems(ROOT))
    for line in missing:
        print(line, file=sys.stderr)
    print(f"checked {len(options)} options, 3 generated references and the links of the docs")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
