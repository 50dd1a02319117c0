"""Words and comment styles that the tree keeps out, checked on every file.

usage: words.py SRC

Outside bench/results/ (dated records, kept as they were written but for
work-tree paths, which no file may hold) no file may hold:
  - an issue number ("issue" or "Issue", a space, digits) or a source
    document's file number ("seed", an optional space, "00" and a digit): a
    reader who never saw the issue tracker or the source documents' folder
    cannot resolve them; name the method by its authors (docs/references.md)
    and say what is checked instead;
  - a developer's work tree: a path under the work-tree root, anywhere, or a
    /tmp/<name> path outside test/ (a test's fixtures may hold made-up /tmp
    paths that a parser reads, and a test may need a short scratch path of
    its own); documents name placeholders (WORKDIR, WORK, $TMPDIR) instead.
And every lit test (a .test, .ll, .c, .s or .yaml file under test/, outside
Inputs/ folders and test/unit/) writes its RUN: lines in one style per file
type, the language's comment, a space, RUN: ("# RUN:" in .test, .s and
.yaml files, "; RUN:" in .ll, "// RUN:" in .c).

The files are those git lists in SRC (tracked, or new and not ignored) when
SRC is a git checkout, elsewhere every file under SRC; binary files (a NUL in
their first 8 KB) are skipped. words-bad.py writes one example of each
finding into a test's scratch folder. Exits 0 and prints a count when nothing is
found, else 1 with one line per finding (file:line).
"""
import os
import re
import subprocess
import sys

# The patterns are written so that this file does not match them itself.
ISSUE = re.compile(r"[Ii]ssue [0-9]+|seed ?00[0-9]")
WORK_TREE = re.compile(r"/wor[k]/")
TMP_PATH = re.compile(r"/tm[p]/[a-z]")
RUN_STYLE = {".test": "#", ".s": "#", ".yaml": "#", ".ll": ";", ".c": "//"}
RECORDS = "bench/results/"


def files(src):
    if os.path.exists(os.path.join(src, ".git")):
        try:
            out = subprocess.run(["git", "-C", src, "ls-files", "--cached", "--others",
                                  "--exclude-standard"], stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, check=True, text=True).stdout
            return sorted(f for f in out.splitlines()
                          if os.path.isfile(os.path.join(src, f)))
        except (OSError, subprocess.CalledProcessError):
            pass
    found = []
    for root, dirs, names in os.walk(src):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        for name in names:
            found.append(os.path.relpath(os.path.join(root, name), src).replace(os.sep, "/"))
    return sorted(found)


def is_lit_test(path):
    parts = path.split("/")
    return (parts[0] == "test" and len(parts) > 1 and parts[1] != "unit"
            and "Inputs" not in parts and os.path.splitext(path)[1] in RUN_STYLE)


def check(src, path, record=False):
    with open(os.path.join(src, path), "rb") as f:
        data = f.read()
    if b"\0" in data[:8192]:
        return []
    text = data.decode("utf-8", errors="replace")
    problems = []
    lit = is_lit_test(path)
    ext = os.path.splitext(path)[1]
    comment = RUN_STYLE.get(ext, "")
    style = comment + " RUN:"
    for number, line in enumerate(text.split("\n"), 1):
        where = f"{path}:{number}"
        if record:
            if WORK_TREE.search(line):
                problems.append(f"{where}: names a path in a developer's work tree")
            continue
        m = ISSUE.search(line)
        if m:
            problems.append(f"{where}: '{m.group(0)}' names an issue or a source file by number")
        m = WORK_TREE.search(line)
        if m:
            problems.append(f"{where}: names a path in a developer's work tree")
        if not path.startswith("test/"):
            m = TMP_PATH.search(line)
            if m:
                problems.append(f"{where}: names a developer's /tmp path")
        if lit and "RUN:" in line and not line.startswith(style):
            # The message never spells the keyword: lit would read a
            # test's check line that quotes it as one more command.
            problems.append(f"{where}: a run line not written as the {ext} style: "
                            f"'{comment}', a space, the keyword")
    return problems


def main():
    src = sys.argv[1]
    checked, problems = 0, []
    for path in files(src):
        checked += 1
        problems += check(src, path, record=path.startswith(RECORDS))
    for p in problems:
        print(f"words: error: {p}")
    if problems:
        return 1
    print(f"words: {checked} files, no issue or file numbers, no work-tree paths, "
          f"one run-line style per file type")
    return 0


if __name__ == "__main__":
    sys.exit(main())
