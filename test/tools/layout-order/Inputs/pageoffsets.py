#!/usr/bin/env python3
"""Compare the page offsets (address mod PAGE) of symbols in two `llvm-nm`
listings. usage: pageoffsets.py A.nm B.nm SYM... [--page N]
Prints one line per symbol ("same page offset" or "page offset X -> Y moved")
and a verdict; exits 0 (the FileCheck lines say what was expected)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Inputs"))
from llvmnm import read_nm  # noqa: E402

args = sys.argv[1:]
page = 4096
if "--page" in args:
    i = args.index("--page")
    page = int(args[i + 1])
    del args[i:i + 2]
a_path, b_path, syms = args[0], args[1], args[2:]


def load(path):
    return read_nm(path)[0]


a, b = load(a_path), load(b_path)
same = 0
for s in syms:
    if s not in a or s not in b:
        print(f"{s}: missing")
        continue
    oa, ob = a[s] % page, b[s] % page
    if oa == ob:
        print(f"{s}: same page offset {oa:#x}")
        same += 1
    else:
        print(f"{s}: page offset {oa:#x} -> {ob:#x} moved")
print(f"all {same} kept their page offsets" if same == len(syms) else f"{same} of {len(syms)} kept their page offsets")
