#!/usr/bin/env python3
"""Compare the measurements of one layout-sweep JSON report with those of
several others (one variant each, say), variant by variant: every field
equal (counters, cost, instructions), keel-sim's fallback reasons left out.
usage: same-measurements.py SHARED.json OWN.json...
Prints 'equal: N measurements' or each difference and exits 1."""
import json, sys


def measurements(path):
    out = {}
    for m in json.load(open(path))["measurements"]:
        m.pop("fallback", None)
        v = m["variant"]
        out[(v["series"], v["axis"], v["offset"])] = m
    return out


shared = measurements(sys.argv[1])
own = {}
for path in sys.argv[2:]:
    own.update(measurements(path))
bad = 0
if sorted(shared) != sorted(own):
    print("variants differ:", sorted(shared), sorted(own))
    bad += 1
for key in sorted(shared):
    if key in own and shared[key] != own[key]:
        a, b = shared[key], own[key]
        diff = sorted(k for k in set(a.get("counters", {})) | set(b.get("counters", {}))
                      if a.get("counters", {}).get(k) != b.get("counters", {}).get(k))
        print("differ:", key, " ".join(f"{k}:{a['counters'].get(k)}/{b['counters'].get(k)}"
                                      for k in diff) or json.dumps(a) + " " + json.dumps(b))
        bad += 1
if bad:
    print("not equal")
    sys.exit(1)
print(f"equal: {len(shared)} measurements")
