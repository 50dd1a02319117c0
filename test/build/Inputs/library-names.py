"""Check that each Keel library has one name.

usage: library-names.py SRC

A library is a `keel_add_library(keelX ...)` call in FOLDER/CMakeLists.txt.
Its one name X shows in four places (docs/conventions.md, "Layout"), which
must agree, compared without case:
  - the folder: FOLDER's last part is x (checker/sweepreport for
    keelSweepReport);
  - the include path: its headers are in FOLDER/include/keel/X/, spelled
    exactly as the target is, and FOLDER/include/keel/ holds nothing else;
  - the target: keelX, one library per folder;
  - the unit tests: test/unit/x/, whose CMakeLists.txt links keelX.
And the other way round: every FOLDER/include/keel/Y/ belongs to a library
keelY in FOLDER, and every test/unit/y/ to a library x == y.

Exceptions, each with its reason (none may be added for a name that could
simply be changed):
  - test/unit/layoutopt/: the pass plugin passes/LayoutOpt/ is built with
    add_llvm_pass_plugin as LayoutOpt.so, not as a library, and its folder
    is named like the plugin; its unit tests link keelPlan and the plugin's
    sources.

Files are the CMakeLists.txt files and headers git lists in SRC (tracked, or
new and not ignored) when SRC is a git checkout, else those on disk less .git
and build trees (a folder holding CMakeCache.txt). Exits 0 and prints the
count when every library agrees, else 1 with one line per disagreement.
"""
import os
import re
import sys

import tree_files

LIBRARY = re.compile(r"^\s*keel_add_library\(\s*([A-Za-z0-9_]+)", re.M)
# test/unit/<name>/ folders that are no library's, and why (see above).
UNIT_EXCEPTIONS = {
    "layoutopt": "the pass plugin passes/LayoutOpt/ (LayoutOpt.so) is no library",
}


def listed_files(src):
    return tree_files.listed_files(src)


def read(src, f):
    with open(os.path.join(src, f), encoding="utf-8", errors="replace") as fh:
        return fh.read()


def libraries(src, files):
    """{folder: [target, ...]} of every keel_add_library call outside test/."""
    libs = {}
    for f in files:
        if os.path.basename(f) != "CMakeLists.txt" or f.startswith("test/"):
            continue
        folder = os.path.dirname(f)
        for m in LIBRARY.finditer(read(src, f)):
            libs.setdefault(folder, []).append(m.group(1))
    return libs


def include_dirs(files):
    """{folder: {Y, ...}} for every FOLDER/include/keel/Y/ holding a file."""
    dirs = {}
    for f in files:
        parts = f.split("/")
        for i in range(len(parts) - 3):
            if parts[i] == "include" and parts[i + 1] == "keel":
                dirs.setdefault("/".join(parts[:i]), set()).add(parts[i + 2])
                break
    return dirs


def unit_dirs(files):
    """{name: its CMakeLists.txt or None} for every test/unit/<name>/."""
    units = {}
    for f in files:
        parts = f.split("/")
        if len(parts) >= 4 and parts[:2] == ["test", "unit"]:
            name = parts[2]
            units.setdefault(name, None)
            if parts[3:] == ["CMakeLists.txt"]:
                units[name] = f
    return units


def check(src, files):
    errors = []
    libs = libraries(src, files)
    incs = include_dirs(files)
    units = unit_dirs(files)
    names = {}
    for folder, targets in sorted(libs.items()):
        where = folder or "."
        if len(targets) > 1:
            errors.append("%s defines %d libraries (%s): one per folder"
                          % (where, len(targets), ", ".join(targets)))
        for target in targets:
            if not target.startswith("keel") or len(target) == 4:
                errors.append("%s: target %s is not named keel<Lib>" % (where, target))
                continue
            name = target[4:]
            names[name.lower()] = target
            base = os.path.basename(folder)
            if base.lower() != name.lower():
                errors.append("%s: folder %s, target %s: the folder is %s/"
                              % (where, base, target, name.lower()))
            if name not in incs.get(folder, set()):
                errors.append("%s: target %s has no %s/include/keel/%s/"
                              % (where, target, where, name))
            unit = units.get(name.lower(), "missing")
            if unit == "missing":
                errors.append("%s: target %s has no test/unit/%s/"
                              % (where, target, name.lower()))
            elif unit is None or not re.search(r"\b%s\b" % re.escape(target),
                                               read(src, unit)):
                errors.append("test/unit/%s/CMakeLists.txt does not link %s"
                              % (name.lower(), target))
    for folder, found in sorted(incs.items()):
        own = {t[4:] for t in libs.get(folder, [])}
        for y in sorted(found - own):
            errors.append("%s/include/keel/%s/: no keel%s in %s/CMakeLists.txt"
                          % (folder or ".", y, y, folder or "."))
    for name in sorted(units):
        if name not in names and name not in UNIT_EXCEPTIONS:
            errors.append("test/unit/%s/: no library keel<Lib> with Lib %s"
                          % (name, name))
    return len(names), errors


def main(argv):
    if len(argv) != 2:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    src = argv[1]
    count, errors = check(src, listed_files(src))
    for e in errors:
        print("library-names: error: " + e)
    if errors:
        return 1
    print("library-names: %d libraries; folder, include path, target and unit "
          "tests agree" % count)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
