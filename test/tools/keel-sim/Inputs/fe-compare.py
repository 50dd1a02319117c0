#!/usr/bin/env python3
"""Compare two keel-sim --frontend outputs (variant 0, geometry 0): cachegrind's
13 events must be equal, and EVENT must rise from A to B by LO..HI.

usage: fe-compare.py KS_A KS_B EVENT LO HI
Prints 'cachegrind events: same' (or what differs) and
'EVENT: A -> B, +DELTA, expected LO..HI: yes|NO'; exits 1 unless both hold.
"""
import sys

CACHEGRIND = "Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim".split()


def counts(path):
    ev = None
    for line in open(path):
        f = line.split()
        if f and f[0] == "events:":
            ev = f[1:]
        elif f and f[0] == "result" and f[1:3] == ["0", "0"]:
            return dict(zip(ev, map(int, f[3:])))
    sys.exit(f"{path}: no result 0 0")


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    a, b = counts(sys.argv[1]), counts(sys.argv[2])
    event, lo, hi = sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    diff = [f"{e}:{a[e]}/{b[e]}" for e in CACHEGRIND if a[e] != b[e]]
    print("cachegrind events: " + ("same" if not diff else "DIFFER " + " ".join(diff)))
    d = b[event] - a[event]
    ok = lo <= d <= hi
    print(f"{event}: {a[event]} -> {b[event]}, +{d}, expected {lo}..{hi}: {'yes' if ok else 'NO'}")
    return 0 if ok and not diff else 1


if __name__ == "__main__":
    sys.exit(main())
