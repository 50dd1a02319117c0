"""Check docs/architecture.md's "Layout of the source" table against the tree.

usage: layout-table.py SRC

Every top-level folder of SRC, and every folder directly inside the folders
named in DEEP, must be named by the table, and every folder the table names
must exist. A row names its folder in its first cell (`profiler/record/`);
its other cells may name folders inside that one by a bare name
(`include/`, `runtime/`) or any folder by its path from SRC (`test/unit/`).
Names are in backquotes and end with "/".

The folders are those git lists in SRC (tracked, or new and not ignored)
when SRC is a git checkout and git runs; elsewhere those on disk, less `.git` and build
trees (a folder holding CMakeCache.txt). Exits 0 and prints a count when the
table and the tree agree, else 1 with one line per difference.

The table has one copy: a row of another document (README.md, docs/*.md,
docs/formats/*.md) whose first cell is a top-level folder of the tree, as
`support/`, is a second copy and an error.
"""
import os
import re
import subprocess
import sys

DEEP = ["profiler", "linker-scripts", "passes", "checker", "tools"]
HEADING = "## Layout of the source"
TABLE = os.path.join("docs", "architecture.md")


def table_rows(readme):
    """The cells of each row of the table under HEADING."""
    rows, inside, seen = [], False, False
    for line in open(readme, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("## "):
            inside = line.strip() == HEADING
            continue
        if not inside:
            continue
        if line.startswith("|"):
            seen = True
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cells and not set(cells[0]) <= set("-: "):
                rows.append(cells)
        elif seen:
            break
    return rows[1:]  # the first row is the header


def named_folders(rows):
    """{folder path from SRC, without the trailing slash: the row naming it}."""
    named = {}
    for cells in rows:
        own = re.findall(r"`([^`]+)/`", cells[0])
        for path in own:
            named[path] = cells[0]
        base = own[0] if own else ""
        for cell in cells[1:]:
            for path in re.findall(r"`([^`\s]+)/`", cell):
                full = path if "/" in path or not base else base + "/" + path
                named[full] = cells[0]
    return named


def tree_folders(src):
    """The top-level folders and the folders directly inside DEEP's."""
    try:
        out = subprocess.run(["git", "-C", src, "ls-files", "--cached", "--others",
                              "--exclude-standard"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, check=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        out = None
    if out is not None and os.path.exists(os.path.join(src, ".git")):
        dirs = set()
        for f in out.splitlines():
            parts = f.split("/")
            if len(parts) > 1:
                dirs.add(parts[0])
            if len(parts) > 2 and parts[0] in DEEP:
                dirs.add(parts[0] + "/" + parts[1])
        return {d for d in dirs if os.path.isdir(os.path.join(src, d))}
    dirs = set()
    for name in os.listdir(src):
        path = os.path.join(src, name)
        if (name == ".git" or not os.path.isdir(path)
                or os.path.exists(os.path.join(path, "CMakeCache.txt"))):
            continue
        dirs.add(name)
        if name in DEEP:
            dirs.update(name + "/" + sub for sub in os.listdir(path)
                        if os.path.isdir(os.path.join(path, sub)))
    return dirs


def other_documents(src):
    """The documents that must not hold a copy of the table."""
    yield "README.md"
    for sub in ("docs", os.path.join("docs", "formats")):
        folder = os.path.join(src, sub)
        if os.path.isdir(folder):
            for name in sorted(os.listdir(folder)):
                path = os.path.join(sub, name)
                if name.endswith(".md") and path != TABLE:
                    yield path


def copies(src, top):
    """doc:line of each row elsewhere whose first cell is a top-level folder."""
    found = []
    for doc in other_documents(src):
        path = os.path.join(src, doc)
        if not os.path.isfile(path):
            continue
        for number, line in enumerate(open(path, encoding="utf-8"), 1):
            m = re.match(r"\|\s*`([^`/]+)/`\s*\|", line)
            if m and m.group(1) in top:
                found.append(f"{doc}:{number}: row `{m.group(1)}/` copies the layout "
                             f"table, whose one copy is {TABLE}")
    return found


def main():
    src = sys.argv[1]
    table = os.path.join(src, TABLE)
    rows = table_rows(table) if os.path.isfile(table) else []
    if not rows:
        print(f'layout-table: error: {table} has no table under "{HEADING}"')
        return 1
    named = named_folders(rows)
    tree = tree_folders(src)
    problems = []
    for folder in sorted(tree - named.keys()):
        problems.append(f"folder {folder}/ has no row in {TABLE}'s table")
    for folder in sorted(named):
        if not os.path.isdir(os.path.join(src, folder)):
            problems.append(f"row {named[folder]} names {folder}/, which does not exist")
    problems += copies(src, {d for d in tree if "/" not in d})
    for p in problems:
        print(f"layout-table: error: {p}")
    if problems:
        return 1
    print(f"layout-table: {len(tree)} folders, each with a row; "
          f"the {len(rows)} rows name no missing folder; no other document copies the table")
    return 0


if __name__ == "__main__":
    sys.exit(main())
