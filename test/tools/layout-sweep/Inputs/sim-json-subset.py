#!/usr/bin/env python3
"""Every measurement of B equals A's measurement of the same variant, leaving
out keel-sim's fallback reasons. usage: sim-json-subset.py A.json B.json"""
import json
import sys


def measurements(path):
    r = json.load(open(path))
    out = {}
    for m in r["measurements"]:
        m.pop("fallback", None)
        out[json.dumps(m["variant"], sort_keys=True)] = m
    return out


a, b = measurements(sys.argv[1]), measurements(sys.argv[2])
bad = [k for k in b if a.get(k) != b[k]]
for k in bad:
    print("differ:", k)
if bad or not b:
    print("not equal")
    sys.exit(1)
print(f"equal: {len(b)} of {len(a)} measurements")
