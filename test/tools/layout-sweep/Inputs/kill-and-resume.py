"""kill -9 a running sweep, then --resume it, and report what the journal
kept: kill-and-resume.py JOURNAL WORKDIR -- LAYOUT-SWEEP-ARGS...

Starts `layout-sweep --journal=JOURNAL --keep-dir=WORKDIR.1 ARGS`, waits for
two finished measurements in the journal, sends SIGKILL, then runs
`layout-sweep --resume --journal=JOURNAL --keep-dir=WORKDIR.2 ARGS` and
prints facts for FileCheck."""
import json
import os
import signal
import subprocess
import sys
import time

journal, workdir = sys.argv[1], sys.argv[2]
args = sys.argv[sys.argv.index("--") + 1:]


def measured_lines():
    if not os.path.exists(journal):
        return []
    with open(journal) as f:
        text = f.read()
    # A line is complete once its newline is written: the sweep may be in
    # the middle of one (or be killed there, as layout-sweep --resume knows).
    complete = text[:text.rfind("\n") + 1]
    return [l for l in complete.split("\n")[1:] if l.strip()]


first = subprocess.Popen(["layout-sweep", "--journal=" + journal,
                          "--keep-dir=" + workdir + ".1"] + args,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
deadline = time.time() + 120
while len(measured_lines()) < 2 and first.poll() is None and time.time() < deadline:
    time.sleep(0.05)
if first.poll() is not None:
    print("sweep ended before the kill (exit %d)" % first.returncode)
    sys.exit(1)
os.kill(first.pid, signal.SIGKILL)
first.wait()
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
