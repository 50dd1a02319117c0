#!/usr/bin/env python3
"""Say which cost component drives a sweep's spread.

usage: sweep-components.py WORKDIR/builds/sweep.tsv [BUILD...]

Reads the per-pad results layout-compare.py --sweep writes and prints, per build,
I1 geometry and perturbation, the cost spread and the range (max - min over the
pads) of each weighted term of the cachegrind cost model, with the weights
`layout-sweep --cost=cachegrind --print-cost` prints (the product's one cost table):
  Ir, I1 (I1mr), D1 (D1mr), LL (ILmr+DLmr), Bm (Bcm+Bim)
each as a percentage of the smallest cost, so the terms can be compared with the
spread (they need not add up: their extremes fall on different pads).
"""
import sys
from collections import defaultdict

import keelbench

FIELDS = ["Ir", "I1mr", "D1mr", "ILmr", "DLmr", "Bcm", "Bim"]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    want = set(sys.argv[2:])
    series = defaultdict(dict)
    order = []
    for line in open(sys.argv[1]):
        f = line.rstrip("\n").split("\t")
        if len(f) != 5 + len(FIELDS):
            continue
        build, geo, kind, pad, cost = f[0], f[1], f[2], int(f[3]), float(f[4])
        if want and build not in want:
            continue
        c = dict(zip(FIELDS, map(int, f[5:])))
        key = (build, geo, kind)
        if key not in series:
            order.append(key)
        series[key][pad] = (cost, c)  # a rerun overwrites the same pad
    w = {k: float(v) for k, v in keelbench.print_cost("cachegrind")[0].items()}
    groups = [("Ir", ["Ir"]), ("I1", ["I1mr"]), ("D1", ["D1mr"]), ("LL", ["ILmr", "DLmr"]),
              ("Bm", ["Bcm", "Bim"])]
    terms = [(t, lambda c, evs=evs: sum(w.get(e, 0) * c[e] for e in evs)) for t, evs in groups]
    print(f"{'build':8} {'I1':>3} {'kind':5} {'pads':>4} {'spread':>8} " +
          " ".join(f"{t:>8}" for t, _ in terms) + "   worst pad (max cost)")
    for key in order:
        s = series[key]
        costs = [v[0] for v in s.values()]
        lo = min(costs)
        cells = []
        for _, fn in terms:
            vals = [fn(v[1]) for v in s.values()]
            cells.append(f"{100 * (max(vals) - min(vals)) / lo:7.3f}%")
        worst = max(s, key=lambda p: s[p][0])
        print(f"{key[0]:8} {key[1]:>3} {key[2]:5} {len(s):4d} {100 * (max(costs) / lo - 1):7.3f}% " +
              " ".join(cells) + f"   {worst}")


if __name__ == "__main__":
    main()
