#!/usr/bin/env python3
"""check-methods.py TIMELINE.json BETTER WORSE

Prints each time-line method's error against the truth (layout-profile
timeline --truth=... --json) and exits 1 unless method BETTER has a lower
mean per-window error than method WORSE.
"""
import json
import sys

methods = json.load(open(sys.argv[1]))["methods"]
for name, m in sorted(methods.items(), key=lambda kv: kv[1]["error_mean"]):
    print(f"{name}: {100 * m['error_mean']:.2f}% per window,"
          f" {100 * m['error_whole_run']:.2f}% whole run")
better, worse = sys.argv[2], sys.argv[3]
ok = methods[better]["error_mean"] < methods[worse]["error_mean"]
print(f"{better} beats {worse}" if ok else f"FAIL: {better} does not beat {worse}")
sys.exit(0 if ok else 1)
