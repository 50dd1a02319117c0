#!/usr/bin/env python3
"""Check a link made with layout-order --spacers=W, from `llvm-nm -n -S`.

usage: spacercheck.py layout NM ORDER W
         (a) the functions of ORDER (an order.txt) in the hot region
             [__keel_hot_text_start, __keel_hot_text_end) are at increasing
             addresses;
         (b) none of size <= W crosses a W boundary counted from
             __keel_hot_text_start.
       spacercheck.py grow BASE.nm GROWN.nm ORDER K W
         code grew right after function K (GROWN): nothing up to K moved, and
         every function in a later W-pack than K's (in BASE) moved by 0 or W.
Prints one line per function and OK or FAIL; exits 1 on a failure.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Inputs"))
from llvmnm import read_nm  # noqa: E402

START = "__keel_hot_text_start"


def read_order(path, addr):
    return [l.strip() for l in open(path) if l.strip() and l.strip() in addr]


def layout(nm, order, w):
    addr, size = read_nm(nm)
    names = read_order(order, addr)
    start, end = addr[START], addr["__keel_hot_text_end"]
    # Functions the script could not move (crt code without its own
    # section) stay outside the region: not part of the packing.
    outside = [n for n in names if not start <= addr[n] < end]
    names = [n for n in names if start <= addr[n] < end]
    ok, last = True, -1
    for n in names:
        off, s = addr[n] - start, size.get(n, 0)
        first, end = off // w, (off + max(s, 1) - 1) // w
        bad = []
        if addr[n] <= last:
            bad.append("out of order")
        if s <= w and first != end:
            bad.append("crosses a pack boundary")
        print(f"{n} offset {off} size {s} pack {first}" + "".join(f" [{b}]" for b in bad))
        ok &= not bad
        last = addr[n]
    if outside:
        print(f"outside the region: {' '.join(outside)}")
    return ok


def grow(base_nm, grown_nm, order, k, w):
    base, _ = read_nm(base_nm)
    grown, _ = read_nm(grown_nm)
    names = read_order(order, base)
    start, start2 = base[START], grown[START]
    kpack = (base[k] - start) // w
    ok, seen_k, moves = start == start2, False, set()
    for n in names:
        d = (grown[n] - start2) - (base[n] - start)
        pack = (base[n] - start) // w
        if not seen_k:
            where = "before the growth"
            ok &= d == 0
        elif pack > kpack:
            where = "later pack"
            moves.add(d)
            ok &= d in (0, w)
        else:
            where = "same pack as the growth"
        print(f"{n} pack {pack} moved by {d} ({where})")
        seen_k |= n == k
    print("later packs moved by: " + " ".join(str(m) for m in sorted(moves)))
    return ok and seen_k


def main():
    if sys.argv[1] == "layout":
        ok = layout(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        ok = grow(*sys.argv[2:5], sys.argv[5], int(sys.argv[6]))
    print("OK" if ok else "FAIL")
    return 0 if ok else 1


sys.exit(main())
