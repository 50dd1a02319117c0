#!/usr/bin/env python3
"""Compare `llvm-nm -n` of a base link and a padded relink.

usage: padcheck.py BASE.nm PADDED.nm START_SYM END_SYM PAD

Checks that START_SYM moved by exactly PAD bytes and that every symbol in
[START_SYM, END_SYM] of the base keeps its offset from START_SYM. Prints one
line per symbol and a verdict; exits 1 on a mismatch.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Inputs"))
from llvmnm import read_nm  # noqa: E402


def main():
    base, padded = read_nm(sys.argv[1])[0], read_nm(sys.argv[2])[0]
    start, end, pad = sys.argv[3], sys.argv[4], int(sys.argv[5], 0)
    lo, hi = base[start], base[end]
    moved = padded[start] - base[start]
    ok = moved == pad
    print(f"{start} moved by {moved} (expected {pad})")
    inside = sorted((a, n) for n, a in base.items() if lo <= a <= hi)
    for addr, name in inside:
        off, off2 = addr - lo, padded[name] - padded[start]
        print(f"  {name} offset {off} -> {off2}")
        ok &= off == off2
    print("OK" if ok else "MISMATCH")
    return 0 if ok else 1


sys.exit(main())
