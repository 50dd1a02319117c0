#!/usr/bin/env python3
"""Compare two layout-sweep JSON reports byte for byte, except for the two
provenance fields that differ between two commands that measure the same:
"command" (the argv: another --json name, --executor, a grid's old name) and
"date" (the clock, unless SOURCE_DATE_EPOCH is set). Every other byte,
provenance included (tool, version, relink commands, SHA-256s), must match.
usage: same-but-command.py A.json B.json
Prints 'same but command and date' or the first differing line, exit 1."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from provenance_strip import strip

try:
    a, b = strip(sys.argv[1]), strip(sys.argv[2])
except ValueError as e:
    sys.exit("same-but-command.py: " + str(e))
if a != b:
    for n, (la, lb) in enumerate(zip(a.splitlines(), b.splitlines()), 1):
        if la != lb:
            print(f"line {n}:\n  {la}\n  {lb}")
            break
    print("differ")
    sys.exit(1)
print("same but command and date")
