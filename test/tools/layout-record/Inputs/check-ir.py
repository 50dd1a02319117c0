#!/usr/bin/env python3
"""check-ir.py --binary PROG CALLGRIND SHOW.json

Checks that the executed instructions per function in `layout-profile show
--json` (counted from the fall-through ranges layout-record rebuilt) equal
callgrind's own per-function Ir, as callgrind_annotate reports it for the
binary's object. callgrind names recursion levels "fib'2" (summed here)
and code without a symbol by its hex address (skipped), and calls _start
"(below main)"."""
import argparse
import json
import os
import re
import subprocess
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--binary", required=True)
ap.add_argument("callgrind")
ap.add_argument("show")
a = ap.parse_args()

out = subprocess.run(["callgrind_annotate", "--threshold=100", "--inclusive=no",
                      a.callgrind], check=True, capture_output=True,
                     text=True).stdout
binary = os.path.realpath(a.binary)
cg = {}
for line in out.splitlines():
    m = re.match(r"^\s*([\d,]+)\s+\([\s\d.]+%\)\s+\S*?:(.+) \[(.+)\]$", line)
    if not m or os.path.realpath(m.group(3)) != binary:
        continue
    name = re.sub(r"'\d+$", "", m.group(2))
    if name.startswith("0x") or name.startswith("("):
        continue
    cg[name] = cg.get(name, 0) + int(m.group(1).replace(",", ""))

ours = {f["name"]: f["instructions"] for f in json.load(open(a.show))["functions"]}
bad = 0
for name in sorted(cg):
    if ours.get(name) != cg[name]:
        bad += 1
        print("differs: %s callgrind %d ours %s" % (name, cg[name], ours.get(name)))
print("functions compared: %d, equal: %d" % (len(cg), len(cg) - bad))
sys.exit(1 if bad or not cg else 0)
