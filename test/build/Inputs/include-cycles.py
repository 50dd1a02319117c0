"""Report include cycles among Keel's source files.

usage: include-cycles.py SRC

What a cycle is here. A *component* is a header and the source file of the
same name in its library (lld's and LLVM's unit of layering):
checker/sweep/include/keel/Sweep/Engine.h and checker/sweep/lib/Engine.cpp
are the component Sweep/Engine. Component A uses component B when any file
of A says `#include "keel/B.h"` (or includes a private header of B, one
beside it in its lib/ folder: `#include "Backend.h"`). A cycle is two or more components that use
each other, directly or through others. Engine.cpp including Slurm.h while
Slurm.cpp includes Engine.h is one, although no header includes itself: the
two can only be read, tested and linked together.

A *library* is a folder X holding X/include/keel/L/ (its include path is
keel/L/); its files are those under X outside any library nested in it.
Library A uses library B when a file of A includes a keel/B/ header, and a
cycle between libraries (two static libraries that need each other) is
reported too. Files in no library (tools, tests) are components of their
own; nothing includes them, so they never close a cycle.

Files are the .h, .cpp and .c files git lists in SRC (tracked, or new and not
ignored) when SRC is a git checkout, else those on disk less .git and build
trees (a folder holding CMakeCache.txt). Exits 0 and prints counts when there
is no cycle, else 1 with one line per cycle, each naming an include that
makes every step of it.
"""
import os
import posixpath
import re
import sys

import tree_files

INCLUDE = re.compile(r'^\s*#\s*include\s*"keel/([^"]+)\.(?:h|def|inc)"')
LOCAL = re.compile(r'^\s*#\s*include\s*"([^"/]+\.h)"')
SUFFIXES = (".h", ".cpp", ".c")


def source_files(src):
    return tree_files.listed_files(src, lambda f: f.endswith(SUFFIXES))


def libraries(files):
    """{folder: library name} for every folder X with X/include/keel/L/."""
    libs = {}
    for f in files:
        parts = f.split("/")
        for i in range(len(parts) - 3):
            if parts[i] == "include" and parts[i + 1] == "keel":
                libs["/".join(parts[:i])] = parts[i + 2]
                break
    return libs


def library_of(f, libs):
    """The library whose folder holds \\p f most closely, or None."""
    best = None
    for folder in libs:
        prefix = folder + "/" if folder else ""
        if f.startswith(prefix) and (best is None or len(folder) > len(best)):
            best = folder
    return best


def component_of(f, libs):
    parts = f.split("/")
    if "include" in parts:
        i = parts.index("include")
        if parts[i + 1:i + 2] == ["keel"]:
            return os.path.splitext("/".join(parts[i + 2:]))[0]
    folder = library_of(f, libs)
    if folder is None:
        return f  # a tool or a test: a component of its own
    stem = os.path.splitext(parts[-1])[0]
    return libs[folder] + "/" + stem


def find_cycles(edges):
    """Strongly connected components of more than one node, each sorted,
    in order of their first node (Tarjan's algorithm, iteratively)."""
    index, low, on, stack, sccs = {}, {}, set(), [], []
    nodes = sorted(set(edges) | {b for bs in edges.values() for b in bs})
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, ())))))
                    advanced = True
                    break
                if nxt in on:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                scc = []
                while True:
                    n = stack.pop()
                    on.discard(n)
                    scc.append(n)
                    if n == node:
                        break
                if len(scc) > 1:
                    sccs.append(sorted(scc))
    return sorted(sccs)


def cycle_path(scc, edges):
    """The shortest path from the SCC's first node back to itself."""
    members, start = set(scc), scc[0]
    prev, frontier = {}, [start]
    while frontier:
        nxt_frontier = []
        for n in frontier:
            for m in sorted(edges.get(n, ())):
                if m not in members:
                    continue
                if m == start:
                    path = [n]
                    while path[-1] != start:
                        path.append(prev[path[-1]])
                    return list(reversed(path)) + [start]
                if m not in prev:
                    prev[m] = n
                    nxt_frontier.append(m)
        frontier = nxt_frontier
    return [start, start]


def report(kind, edges, why):
    lines = []
    for scc in find_cycles(edges):
        path = cycle_path(scc, edges)
        steps = ["%s includes %s" % why[(a, b)] for a, b in zip(path, path[1:])]
        lines.append("include-cycles: error: %s cycle: %s (%s)"
                     % (kind, " -> ".join(path), "; ".join(steps)))
    return lines


def main(argv):
    if len(argv) != 2:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    src = argv[1]
    files = source_files(src)
    libs = libraries(files)
    comp_edges, comp_why, lib_edges, lib_why = {}, {}, {}, {}
    comps = set()
    known = set(files)
    for f in files:
        a = component_of(f, libs)
        comps.add(a)
        folder = library_of(f, libs)
        la = libs[folder] if folder is not None else None
        with open(os.path.join(src, f), encoding="utf-8", errors="replace") as fh:
            for line in fh:
                m = INCLUDE.match(line)
                if m:
                    b = m.group(1)
                else:
                    m = LOCAL.match(line)
                    local = m and posixpath.join(posixpath.dirname(f), m.group(1))
                    if not local or local not in known:
                        continue
                    b = component_of(local, libs)
                shown = m.group(0).split('"')[1]
                if a != b:
                    comp_edges.setdefault(a, set()).add(b)
                    comp_why.setdefault((a, b), (f, shown))
                lb = b.split("/")[0]
                if la is not None and la != lb:
                    lib_edges.setdefault(la, set()).add(lb)
                    lib_why.setdefault((la, lb), (f, shown))
    errors = report("component", comp_edges, comp_why) + report("library", lib_edges, lib_why)
    for e in errors:
        print(e)
    if errors:
        return 1
    print("include-cycles: %d files, %d components, %d libraries; no include cycle"
          % (len(files), len(comps), len(libs)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
