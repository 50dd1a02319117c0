#!/usr/bin/env python3
"""Compare two layout-sweep JSON reports byte for byte, except for the two
provenance fields that differ between two commands that measure the same:
"command" (the argv: another --json name, --executor, a grid's old name) and
"date" (the clock, unless SOURCE_DATE_EPOCH is set). Every other byte,
provenance included (tool, version, relink commands, SHA-256s), must match.
usage: same-but-command.py A.json B.json
Prints 'same but command and date' or the first differing lines, exit 1."""
import re, sys

# The provenance object's "command" array and "date" line, as llvm::json
# prints them (two-space indents, one element a line).
COMMAND = re.compile(r'\n( *)"command": \[\n(?:\1  .*\n)*?\1\],')
DATE = re.compile(r'\n *"date": "[^"\n]*",')


def strip(path):
    text = open(path, encoding="utf-8").read()
    text, commands = COMMAND.subn("\n<command>,", text)
    text, dates = DATE.subn("\n<date>,", text)
    if commands == 0 or commands != dates:
        sys.exit(f"same-but-command.py: {path}: {commands} command and {dates} "
                 "date fields (expected one of each per provenance record)")
    return text


a, b = strip(sys.argv[1]), strip(sys.argv[2])
if a != b:
    for n, (la, lb) in enumerate(zip(a.splitlines(), b.splitlines()), 1):
        if la != lb:
            print(f"line {n}:\n  {la}\n  {lb}")
            break
    print("differ")
    sys.exit(1)
print("same but command and date")
