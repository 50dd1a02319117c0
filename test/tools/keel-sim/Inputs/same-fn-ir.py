#!/usr/bin/env python3
"""Compare keel-sim's executed instructions per function (`fn COUNT NAME`
lines, --keel-sim-fn-ir=yes) with a cachegrind output file's (the Ir of its
fn= lines, summed by name). Prints how many functions agree; exits 1 when
any differs.

usage: same-fn-ir.py CACHEGRIND_OUT KEEL_SIM_OUT
"""
import sys
from collections import defaultdict


def cachegrind(path):
    ir = defaultdict(int)
    fn = None
    for line in open(path):
        if line.startswith("fn="):
            fn = line[3:].rstrip("\n")
        elif line[:1].isdigit() and fn is not None:
            ir[fn] += int(line.split()[1])
    return {k: v for k, v in ir.items() if v}


def keel_sim(path):
    ir = defaultdict(int)
    for line in open(path):
        if line.startswith("fn "):
            _, count, name = line.rstrip("\n").split(" ", 2)
            ir[name] += int(count)
    return {k: v for k, v in ir.items() if v}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    cg, ks = cachegrind(sys.argv[1]), keel_sim(sys.argv[2])
    bad = sorted(set(cg) | set(ks), key=str)
    bad = [f for f in bad if cg.get(f) != ks.get(f)]
    for f in bad:
        print(f"DIFFERS {f}: cachegrind {cg.get(f)} keel-sim {ks.get(f)}")
    print(f"{len(cg)} functions, Ir {sum(cg.values())}: "
          f"{'all same' if not bad else f'{len(bad)} differ'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
