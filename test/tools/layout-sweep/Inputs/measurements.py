"""Print one line per measurement of a layout-sweep --json report:
offset=N failed=B cost=B [reason=...]  (series "base", then "compare")."""
import json
import sys

report = json.load(open(sys.argv[1]))
series = [report["measurements"]]
if "compare" in report:
    series.append(report["compare"]["measurements"])
for ms in series:
    for m in ms:
        line = "offset=%d failed=%s cost=%s" % (m["variant"]["offset"],
                                                 m.get("failed", False), "cost" in m)
        if m.get("reason"):
            line += " reason=" + m["reason"]
        print(line)
