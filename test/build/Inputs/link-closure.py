#!/usr/bin/env python3
"""Which of the build's libraries end up in a target's link?

Usage: link-closure.py TARGETS_JSON TARGET [--forbid LIB]...

TARGETS_JSON is <build>/keel-targets.json, which CMake writes at configure
time (keel_write_target_list, cmake/KeelHelpers.cmake): a header line, then
one line per target with its type and what it links. A static library's own
links (and its interface links) come along into whatever links it, so the
closure follows them down.

Prints "link-closure: TARGET links A B C" (the build's own libraries, sorted;
LLVM, fmt and other imported libraries are left out), then one error a line
for each --forbid library in the closure, with the chain that brings it in,
and exits 1 if there is any; 2 on bad usage or an unknown target.
"""
import json
import re
import sys

ARCHIVES = {"STATIC_LIBRARY", "OBJECT_LIBRARY", "INTERFACE_LIBRARY"}
LINK_ONLY = re.compile(r"^\$<LINK_ONLY:(.*)>$")


def load(path):
    with open(path, encoding="utf-8") as f:
        lines = [l for l in f.read().splitlines() if l.strip()]
    return {t["name"]: t for t in map(json.loads, lines[1:])}


def link_items(target):
    items = target["links"]
    if target["type"] in ARCHIVES:
        items = items + target.get("interface_links", [])
    for item in items:
        m = LINK_ONLY.match(item)
        yield m.group(1) if m else item


def closure(name, targets):
    """Each library of the build in NAME's link, with the chain that brings
    it there (breadth first: the shortest chain)."""
    found, queue = {}, [(name, [name])]
    while queue:
        current, chain = queue.pop(0)
        for dep in link_items(targets[current]):
            if dep not in targets or dep in found or dep == name:
                continue
            found[dep] = chain + [dep]
            if targets[dep]["type"] in ARCHIVES:
                queue.append((dep, chain + [dep]))
    return found


def main(argv):
    args, forbid = [], []
    it = iter(argv[1:])
    for a in it:
        if a == "--forbid":
            forbid.append(next(it, ""))
        else:
            args.append(a)
    if len(args) != 2 or "" in forbid:
        print("usage: link-closure.py TARGETS_JSON TARGET [--forbid LIB]...",
              file=sys.stderr)
        return 2
    try:
        targets = load(args[0])
    except (OSError, ValueError) as e:
        print(f"link-closure: error: {args[0]}: {e}", file=sys.stderr)
        return 2
    name = args[1]
    if name not in targets:
        print(f"link-closure: error: no target '{name}' in {args[0]}",
              file=sys.stderr)
        return 2
    found = closure(name, targets)
    print(f"link-closure: {name} links {' '.join(sorted(found))}")
    errors = 0
    for lib in forbid:
        if lib in found:
            print(f"link-closure: error: {name} links {lib} "
                  f"({' -> '.join(found[lib])})")
            errors += 1
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
