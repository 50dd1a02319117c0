"""Check a layout-sweep --best-pad-out file against the --json report of the
same sweep: the pad is the offset of the cheapest measured variant of the
swept binary, the smallest such offset on ties, and the pad-0 cost is that
variant's cost. Prints one summary line, or exits 1 naming the mismatch."""
import json
import sys

report = json.load(open(sys.argv[1]))
best = json.load(open(sys.argv[2]))
ms = [m for m in report["measurements"] if not m.get("failed", False)]
want = min(ms, key=lambda m: (m["cost"], m["variant"]["offset"]))
pad0 = [m["cost"] for m in ms if m["variant"]["offset"] == 0]
problems = []
if best["axis"] != report["axis"]:
    problems.append("axis %s != %s" % (best["axis"], report["axis"]))
if best["pad"] != want["variant"]["offset"]:
    problems.append("pad %s != %s" % (best["pad"], want["variant"]["offset"]))
if best["cost"] != want["cost"]:
    problems.append("cost %s != %s" % (best["cost"], want["cost"]))
if not pad0 and best["baseline_pad0_cost"] is not None:
    problems.append("pad0 %s without offset 0" % best["baseline_pad0_cost"])
if pad0 and best["baseline_pad0_cost"] != pad0[0]:
    problems.append("pad0 %s != %s" % (best["baseline_pad0_cost"], pad0[0]))
if problems:
    print("MISMATCH: " + "; ".join(problems))
    sys.exit(1)
print("axis %s, %d measured, best pad matches the report's minimum"
      % (best["axis"], len(ms)))
