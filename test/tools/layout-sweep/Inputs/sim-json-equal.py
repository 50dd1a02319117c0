#!/usr/bin/env python3
"""Compare two layout-sweep JSON reports measurement by measurement, leaving
out what names the simulator (sim_tool), keel-sim's fallback reasons, the
notes that list them and the provenance's command and date. usage: sim-json-equal.py A.json B.json"""
import json, sys


def strip(path):
    r = json.load(open(path))
    r.pop("sim_tool", None)
    r.pop("notes", None)
    # The two sweeps ran as two commands (--backend=sim, =cachegrind).
    r.get("provenance", {}).pop("command", None)
    r.get("provenance", {}).pop("date", None)
    for m in r["measurements"] + r.get("compare", {}).get("measurements", []):
        m.pop("fallback", None)
    return r


a, b = strip(sys.argv[1]), strip(sys.argv[2])
if a != b:
    for ma, mb in zip(a["measurements"], b["measurements"]):
        if ma != mb:
            print("differ:", json.dumps(ma, sort_keys=True), json.dumps(mb, sort_keys=True))
    print("not equal")
    sys.exit(1)
print(f"equal: {len(a['measurements'])} measurements")
