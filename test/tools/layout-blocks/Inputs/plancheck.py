#!/usr/bin/env python3
"""usage: plancheck.py SPACER-SIZES.txt LINKED.nm

For each function of layout-order's spacer-sizes.txt that the link placed in
the hot region (`llvm-nm -n -S`), its offset from __keel_hot_text_start as
planned and as linked, and its size as packed and as linked. OK when every
one is where the plan put it, at the size it was packed with."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Inputs"))
from llvmnm import read_nm  # noqa: E402

addr, size = read_nm(sys.argv[2])
start, end = addr["__keel_hot_text_start"], addr["__keel_hot_text_end"]
ok = True
for line in open(sys.argv[1]):
    if line.startswith("#") or not line.strip():
        continue
    name, planned_size, source, planned = line.split()
    if name not in addr or not start <= addr[name] < end:
        continue
    off, s = addr[name] - start, size.get(name, 0)
    good = off == int(planned) and s == int(planned_size)
    print(f"{name} ({source}): offset {planned} planned, {off} linked; "
          f"size {planned_size} packed, {s} linked: {'yes' if good else 'NO'}")
    ok &= good
print("OK" if ok else "FAIL")
sys.exit(0 if ok else 1)
