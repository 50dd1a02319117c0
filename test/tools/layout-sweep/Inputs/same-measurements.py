#!/usr/bin/env python3
"""Compare the measurements of one layout-sweep JSON report with those of
several others (one variant each, say), variant by variant: every field
equal (counters, cost, instructions), keel-sim's fallback reasons left out.
usage: same-measurements.py [--subset] SHARED.json OWN.json...
Prints 'equal: N measurements' or each difference and exits 1. With
--subset, the OWN reports may measure only some of SHARED's variants (none
missing from SHARED); it prints 'equal: N of M measurements'."""
import json, sys


def measurements(path):
    out = {}
    for m in json.load(open(path))["measurements"]:
        m.pop("fallback", None)
        v = m["variant"]
        out[(v["series"], v["axis"], v["offset"])] = m
    return out


args = sys.argv[1:]
subset = args[0] == "--subset"
if subset:
    args = args[1:]
shared = measurements(args[0])
own = {}
for path in args[1:]:
    own.update(measurements(path))
bad = 0
if subset:
    variants_ok = bool(own) and set(own) <= set(shared)
else:
    variants_ok = sorted(shared) == sorted(own)
if not variants_ok:
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
print(f"equal: {len(own)} of {len(shared)} measurements" if subset
      else f"equal: {len(shared)} measurements")
