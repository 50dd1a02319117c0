#!/usr/bin/env python3
"""Write a synthetic layout-sweep result (the --json form) with known answers.

usage: make-result.py OUT [--amp PCT] [--period BYTES] [--max BYTES]
       [--step BYTES] [--backend sim|time] [--fail OFFSET] [--compare AMP]
       [--binary PATH] [--compare-binary PATH] [--provenance]
Cost of base at offset o: 1000 * (1 + amp/100 * square(o, period)).
"""
import argparse, json

p = argparse.ArgumentParser()
p.add_argument("out")
p.add_argument("--amp", type=float, default=5)
p.add_argument("--period", type=int, default=2048)
p.add_argument("--max", type=int, default=4096)
p.add_argument("--step", type=int, default=64)
p.add_argument("--backend", default="sim")
p.add_argument("--fail", type=int, action="append", default=[])
p.add_argument("--compare", type=float, default=None)
p.add_argument("--binary", default="interp.default")
p.add_argument("--compare-binary", default="interp.planned")
p.add_argument("--provenance", action="store_true",
               help="add a provenance record as layout-sweep writes one")
a = p.parse_args()

def square(o):
    return 1 if (o % a.period) < a.period // 2 else -1

def series(name, amp):
    ms = []
    for o in range(0, a.max + 1, a.step):
        m = {"variant": {"series": name, "axis": "code", "offset": o}}
        if name == "base" and o in a.fail:
            m.update(failed=True, reason="killed by signal 11")
        else:
            cost = 1000 * (1 + amp / 100 * square(o))
            m.update(failed=False, cost=cost, instructions=900000,
                     counters={"Ir": 900000, "I1mr": round(cost - 900)})
        ms.append(m)
    return ms

r = {"binary": a.binary, "args": [], "backend": a.backend, "axis": "code",
     "cache_geometry": "I1=4096,2,64 D1=32768,8,64 LL=262144,8,64"
     if a.backend == "sim" else "",
     "geometry_preset": "small" if a.backend == "sim" else "",
     "weights": {}, "measurements": series("base", a.amp),
     "instructions_differ": False, "notes": []}
if a.compare is not None:
    r["compare"] = {"name": "compare", "binary": a.compare_binary,
                    "measurements": series("compare", a.compare)}
if a.provenance:
    r["provenance"] = {
        "tool": "layout-sweep", "tool_version": "0.1.0",
        "date": "2023-11-14T22:13:20Z",
        "command": ["layout-sweep", "--relink=./relink.sh {pad} {out}",
                    "--json=r.json", a.binary],
        "relink": ["base: ./relink.sh {pad} {out}"],
        "binary_sha256": "0" * 64, "backend": a.backend}
    if a.compare is not None:
        r["provenance"]["compare_sha256"] = "1" * 64
with open(a.out, "w") as f:
    json.dump(r, f, indent=1)
