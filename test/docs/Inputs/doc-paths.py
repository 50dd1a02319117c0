#!/usr/bin/env python3
"""Every path into the source tree that README.md or docs/ names exists.

Usage: doc-paths.py SRC_ROOT

A path is a word that starts with one of the source tree's folders
(support/, profiler/, linker-scripts/, passes/, checker/, optimize/, tools/, test/,
bench/, examples/, cmake/, scripts/) and ends in a letter, digit or "/".
Not checked: paths with a glob or a placeholder (`*`, `<`, `{`), a path
followed by `-*` or `*` (a prefix of several files), and Linux's own
source paths (tools/perf/..., cited from the kernel tree). Prints one
error per missing path (document:line) and exits 1 if there is any.
"""
import os
import re
import sys

ROOTS = ("support", "profiler", "linker-scripts", "passes", "checker", "optimize", "tools",
         "test", "bench", "examples", "cmake", "scripts")
PATH = re.compile(r"(?<![\w./-])((?:%s)/[\w./+-]*[\w/])" % "|".join(ROOTS))
FOREIGN = ("tools/perf/",)


def documents(root):
    yield "README.md"
    for sub in ("docs", os.path.join("docs", "formats")):
        folder = os.path.join(root, sub)
        if os.path.isdir(folder):
            for name in sorted(os.listdir(folder)):
                if name.endswith(".md"):
                    yield os.path.join(sub, name)


def missing(root, doc):
    with open(os.path.join(root, doc), encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            for m in PATH.finditer(line):
                path, rest = m.group(1), line[m.end():]
                if path.startswith(FOREIGN) or rest.startswith(("*", "-*", "<", "{")):
                    continue
                path = path.rstrip(".")
                if not os.path.exists(os.path.join(root, path)):
                    yield number, path


def main():
    if len(sys.argv) != 2:
        print("usage: doc-paths.py SRC_ROOT", file=sys.stderr)
        return 2
    root = sys.argv[1]
    docs = [d for d in documents(root) if os.path.exists(os.path.join(root, d))]
    errors = 0
    for doc in docs:
        for number, path in missing(root, doc):
            print(f"doc-paths: error: {doc}:{number}: {path} does not exist")
            errors += 1
    if errors:
        return 1
    print(f"doc-paths: {len(docs)} documents, every source path they name exists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
