#!/usr/bin/env python3
"""Would a sanitizer build of this tree link? Checked on any configured build.

Usage: sanitize-targets.py TARGETS_JSON HARDENING_MD

TARGETS_JSON is <build>/keel-targets.json, which CMake writes at configure
time (keel_write_target_list, cmake/KeelHelpers.cmake): a header line, then
one line per target with its type, its sanitizer kind ("instrumented" from
keel_sanitize, "uninstrumented" from keel_no_sanitize, else "unclassified")
and what it links. The kinds are recorded whether KEEL_SANITIZE is set or not,
so the normal build can tell whether the sanitizer build would link:

- every target that is compiled (executable, static, shared, module or object
  library) has exactly one kind: a bare add_executable or add_library is an
  error, since under KEEL_SANITIZE it would get no flags;
- nothing uninstrumented that is linked (executable, shared or module library)
  links an instrumented library, directly or through static libraries: its
  link has no sanitizer runtime, and the instrumented objects' references to
  __asan_* / __ubsan_* stay undefined (the keel-sim-map failure);
- in a build configured with KEEL_SANITIZE, every instrumented target has
  -fsanitize= among its compile options and, if it is linked, its link
  options, and no uninstrumented target has either;
- the uninstrumented targets are exactly the ones docs/hardening.md's table
  "| target | what | why it is not instrumented |" names.

Prints one error a line and exits 1 if there is any, else a summary; 2 on
bad usage or an unreadable file.
"""
import json
import re
import sys

COMPILED = {"EXECUTABLE", "STATIC_LIBRARY", "SHARED_LIBRARY", "MODULE_LIBRARY",
            "OBJECT_LIBRARY"}
LINKED = {"EXECUTABLE", "SHARED_LIBRARY", "MODULE_LIBRARY"}
ARCHIVES = {"STATIC_LIBRARY", "OBJECT_LIBRARY"}
LINK_ONLY = re.compile(r"^\$<LINK_ONLY:(.*)>$")
DOC_TABLE = "| target | what | why it is not instrumented |"


def load(path):
    with open(path, encoding="utf-8") as f:
        lines = [l for l in f.read().splitlines() if l.strip()]
    header = json.loads(lines[0])
    return header, {t["name"]: t for t in map(json.loads, lines[1:])}


def link_items(target):
    items = target["links"]
    if target["type"] in ARCHIVES:
        items = items + target["interface_links"]
    for item in items:
        m = LINK_ONLY.match(item)
        yield m.group(1) if m else item


def instrumented_in_link(name, targets):
    """The instrumented targets that end up in NAME's link, each with the
    chain of static libraries through which it gets there."""
    found, seen, stack = {}, {name}, [(name, [name])]
    while stack:
        current, chain = stack.pop()
        for dep in link_items(targets[current]):
            if dep not in targets or dep in seen:
                continue
            seen.add(dep)
            if targets[dep]["sanitize"] == "instrumented":
                found[dep] = chain + [dep]
            if targets[dep]["type"] in ARCHIVES:
                stack.append((dep, chain + [dep]))
    return found


def documented(doc):
    names, inside = set(), False
    with open(doc, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith(DOC_TABLE):
                inside = True
            elif inside and not line.startswith("|"):
                break
            elif inside and not line.startswith("|-") and not line.startswith("| -"):
                m = re.match(r"\|\s*`([^`]+)`", line)
                if m:
                    names.add(m.group(1))
    return names


def has_sanitize(options):
    return any("-fsanitize=" in o for o in options)


def check(header, targets, doc):
    errors = []
    for name, t in sorted(targets.items()):
        kind, ttype = t["sanitize"], t["type"]
        if ttype not in COMPILED:
            continue
        if kind == "unclassified":
            errors.append(f"{name} ({t['dir']}): {ttype} neither keel_sanitize nor keel_no_sanitize: "
                          "a KEEL_SANITIZE build gives it no flags (use a keel_add_* helper)")
        elif kind == "both":
            errors.append(f"{name} ({t['dir']}): both keel_sanitize and keel_no_sanitize")
        if kind != "instrumented" and ttype in LINKED:
            for dep, chain in sorted(instrumented_in_link(name, targets).items()):
                errors.append(f"{name} ({t['dir']}): not instrumented, but links the instrumented "
                              f"{dep} ({' -> '.join(chain)}): its sanitizer build cannot link")
        if header.get("keel_sanitize"):
            copts, lopts = has_sanitize(t["compile_options"]), has_sanitize(t["link_options"])
            if kind == "instrumented" and not copts:
                errors.append(f"{name}: instrumented, but compiled without -fsanitize=")
            if kind == "instrumented" and ttype in LINKED and not lopts:
                errors.append(f"{name}: instrumented, but linked without -fsanitize=")
            if kind == "uninstrumented" and (copts or lopts):
                errors.append(f"{name}: not instrumented, but built with -fsanitize=")
    if doc:
        listed = documented(doc)
        uninstrumented = {n for n, t in targets.items() if t["sanitize"] == "uninstrumented"}
        for name in sorted(uninstrumented - listed):
            errors.append(f"{name}: not instrumented, but not in {doc}'s table of targets "
                          "that are not")
        for name in sorted(listed - uninstrumented):
            errors.append(f"{name}: in {doc}'s table of targets that are not instrumented, "
                          "but it is not a keel_no_sanitize target")
    return errors


def main(argv):
    if len(argv) not in (2, 3):
        print("usage: sanitize-targets.py TARGETS_JSON [HARDENING_MD]", file=sys.stderr)
        return 2
    try:
        header, targets = load(argv[1])
        errors = check(header, targets, argv[2] if len(argv) == 3 else None)
    except (OSError, ValueError, KeyError, IndexError) as e:
        print(f"sanitize-targets: error: {e}", file=sys.stderr)
        return 2
    for e in errors:
        print(f"sanitize-targets: error: {e}")
    if errors:
        return 1
    compiled = [t for t in targets.values() if t["type"] in COMPILED]
    yes = sum(t["sanitize"] == "instrumented" for t in compiled)
    print(f"sanitize-targets: {len(compiled)} targets, {yes} instrumented, "
          f"{len(compiled) - yes} not; a sanitizer build links every one")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
