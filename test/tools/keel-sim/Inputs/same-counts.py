#!/usr/bin/env python3
"""Compare keel-sim's counts for one (variant, geometry) with a cachegrind
output file's summary. Prints the counts; exits 1 when any differs.

usage: same-counts.py CACHEGRIND_OUT KEEL_SIM_OUT VARIANT GEOMETRY
"""
import sys


def cachegrind(path):
    events = None
    for line in open(path):
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("summary:"):
            return dict(zip(events, map(int, line.split()[1:])))
    sys.exit(f"{path}: no summary line")


def keel_sim(path, variant, geom):
    events = None
    for line in open(path):
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("result "):
            f = line.split()
            if f[1] == variant and f[2] == geom:
                return dict(zip(events, map(int, f[3:])))
    sys.exit(f"{path}: no result for variant {variant} geometry {geom}")


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    cg = cachegrind(sys.argv[1])
    ks = keel_sim(sys.argv[2], sys.argv[3], sys.argv[4])
    bad = [e for e in cg if cg[e] != ks.get(e)]
    print(" ".join(f"{e}={cg[e]}" for e in cg))
    for e in bad:
        print(f"DIFFERS {e}: cachegrind {cg[e]} keel-sim {ks.get(e)}")
    print("same" if not bad else "different")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
