"""kill -9 a running sweep, then --resume it, and report what the journal
kept: kill-and-resume.py JOURNAL WORKDIR -- LAYOUT-SWEEP-ARGS...

Starts `layout-sweep --journal=JOURNAL --keep-dir=WORKDIR.1 ARGS`, waits for
two finished measurements in the journal, sends SIGKILL, then runs
`layout-sweep --resume --journal=JOURNAL --keep-dir=WORKDIR.2 ARGS` and
prints facts for FileCheck."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep_kill import journal_lines, kill_when, start_sweep

journal, workdir = sys.argv[1], sys.argv[2]
args = sys.argv[sys.argv.index("--") + 1:]


def measured_lines():
    return journal_lines(journal)


first = start_sweep(journal, workdir + ".1", args)
kill_when(first, lambda: len(measured_lines()) >= 2)
before = [json.loads(l) for l in measured_lines()]
print("killed by signal %d after %d measurements" % (-first.returncode, len(before)))

second = subprocess.run(["layout-sweep", "--resume", "--journal=" + journal,
                         "--keep-dir=" + workdir + ".2"] + args,
                        stdout=subprocess.DEVNULL)
print("resume exit code %d" % second.returncode)
after = [json.loads(l) for l in measured_lines()]
keys = [json.dumps(m["variant"], sort_keys=True) for m in after]
print("variants in journal: %d, distinct: %d" % (len(keys), len(set(keys))))
kept = sum(1 for m in before if m in after)
print("kept %d of %d measured before the kill" % (kept, len(before)))
# Nothing measured before the kill was measured again: the resumed run
# builds a directory only for each variant it measures.
dirs = os.listdir(workdir + ".2") if os.path.isdir(workdir + ".2") else []
remeasured = sum(1 for d in dirs if d.startswith("b") and d[1:].isdigit())
print("variant directories in the resumed run: %d" % remeasured)
