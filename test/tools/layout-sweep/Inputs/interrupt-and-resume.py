"""SIGINT (or SIGTERM) a running sweep after its first variant, then run the
--resume command it printed, and report facts for FileCheck:
interrupt-and-resume.py SIGNAL TMPDIR OUT.json FULL.json -- LAYOUT-SWEEP-ARGS...

Starts `layout-sweep --json=OUT.json ARGS` with TMPDIR=TMPDIR, waits for one
measurement in OUT.json.journal, sends SIGNAL to the sweep alone (not its
group: the sweep must stop its children itself), then checks the exit
status, that TMPDIR holds no work directory, that the journal is whole
lines of JSON, runs the printed command and compares OUT.json with
FULL.json (an uninterrupted run of the same sweep)."""
import json
import os
import shlex
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep_kill import journal_lines

sig = {"INT": signal.SIGINT, "TERM": signal.SIGTERM}[sys.argv[1]]
tmpdir, out, full = sys.argv[2], sys.argv[3], sys.argv[4]
args = sys.argv[sys.argv.index("--") + 1:]
journal = out + ".journal"
env = dict(os.environ, TMPDIR=tmpdir)

sweep = subprocess.Popen(["layout-sweep", "--json=" + out] + args, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
deadline = time.time() + 120
while not journal_lines(journal) and sweep.poll() is None and time.time() < deadline:
    time.sleep(0.02)
if sweep.poll() is not None:
    print("sweep ended before the signal (exit %d)" % sweep.returncode)
    sys.exit(1)
sweep.send_signal(sig)
err = sweep.communicate(timeout=60)[1]
print("exit status %d" % sweep.returncode)
sys.stdout.write(err)
print("left in TMPDIR: %d" % len(os.listdir(tmpdir)))
with open(journal) as f:
    text = f.read()
lines = text.split("\n")
whole = text.endswith("\n") and all(json.loads(l) is not None for l in lines if l)
print("journal: %d measurements, whole lines: %s" % (len(lines) - 2, whole))

again = [l for l in err.splitlines() if "continue with: " in l]
if not again:
    print("no --resume command printed")
    sys.exit(1)
cmd = shlex.split(again[0].split("continue with: ", 1)[1])
resumed = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
print("resumed exit status %d" % resumed.returncode)
sys.stdout.write(resumed.stderr)
print("left in TMPDIR after the resumed run: %d" % len(os.listdir(tmpdir)))
sys.stdout.flush()
same = subprocess.run([sys.executable,
                       os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "sim-json-equal.py"), out, full])
sys.exit(same.returncode)
