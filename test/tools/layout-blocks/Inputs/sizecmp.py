#!/usr/bin/env python3
"""usage: sizecmp.py SIZES.txt PROFILED.nm REBUILT.nm NAME...

For each NAME: the size layout-blocks estimated for its hot part (SIZES.txt),
its symbol size in the profiled build and in the block-layout rebuild
(`llvm-nm -S`). OK when every estimate is smaller than the profiled symbol
if the function was split (NAME.cold in the rebuild) and not smaller than the rebuilt hot part
(packing is safe with sizes that err high)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Inputs"))
from llvmnm import read_nm  # noqa: E402


def nm_sizes(path):
    return read_nm(path)[1]


est = {}
for line in open(sys.argv[1]):
    if line.strip() and not line.startswith("#"):
        name, n = line.split()
        est[name] = int(n)
whole, rebuilt = nm_sizes(sys.argv[2]), nm_sizes(sys.argv[3])
ok = True
for name in sys.argv[4:]:
    e, w, r = est.get(name), whole.get(name), rebuilt.get(name)
    split = name + ".cold" in rebuilt
    good = None not in (e, w, r) and r <= e and (e < w or not split)
    rel = "< profiled" if split else "(not split; profiled)"
    print(f"{name}: rebuilt {r} <= estimate {e} {rel} {w}: {'yes' if good else 'NO'}")
    ok &= good
print("OK" if ok else "FAIL")
sys.exit(0 if ok else 1)
