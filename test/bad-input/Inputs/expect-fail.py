#!/usr/bin/env python3
"""expect-fail.py CODE [--absent PATH]... -- CMD ARGS...

Run CMD (argv, no shell); succeed only if it exits with CODE and no PATH
given with --absent exists afterwards (bad input leaves no partial output).
CMD's stdout and stderr are copied to stdout for FileCheck."""
import os
import subprocess
import sys

args = sys.argv[1:]
code = int(args.pop(0))
absent = []
while args and args[0] == "--absent":
    absent.append(args[1])
    args = args[2:]
assert args and args[0] == "--", "usage: expect-fail.py CODE [--absent P]... -- CMD"
p = subprocess.run(args[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
sys.stdout.write(p.stdout.decode(errors="replace"))
ok = True
if p.returncode != code:
    print(f"expect-fail: exit code {p.returncode}, expected {code}")
    ok = False
for path in absent:
    if os.path.lexists(path):
        print(f"expect-fail: {path} exists")
        ok = False
sys.exit(0 if ok else 1)
