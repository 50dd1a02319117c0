"""kill -9 a sweep during keel-sim's shared run, resume it, and compare the
resumed JSON with an uninterrupted sweep's:
kill-shared-run.py WORKDIR -- LAYOUT-SWEEP-ARGS...

The shared run's map file (WORKDIR.1/keel-sim-0.map) is written just before
the run starts; the sweep (its process group: valgrind too) is killed half a
second after it appears."""
import os
import signal
import subprocess
import sys
import time

workdir = sys.argv[1]
args = sys.argv[sys.argv.index("--") + 1:]
journal = workdir + ".journal"
first = subprocess.Popen(["layout-sweep", "--journal=" + journal,
                          "--keep-dir=" + workdir + ".1"] + args,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
mapfile = os.path.join(workdir + ".1", "keel-sim-0.map")
deadline = time.time() + 120
while not os.path.exists(mapfile) and first.poll() is None and time.time() < deadline:
    time.sleep(0.05)
time.sleep(0.5)
if first.poll() is not None:
    print("sweep ended before the kill (exit %d)" % first.returncode)
    sys.exit(1)
os.killpg(first.pid, signal.SIGKILL)
first.wait()
with open(journal) as f:
    lines = [l for l in f.read().split("\n")[1:] if l.strip()]
print("killed during the shared run with %d measurements journaled" % len(lines))
resumed = subprocess.run(["layout-sweep", "--resume", "--journal=" + journal,
                          "--keep-dir=" + workdir + ".2",
                          "--json=" + workdir + ".resumed.json"] + args,
                         stdout=subprocess.DEVNULL)
fresh = subprocess.run(["layout-sweep", "--json=" + workdir + ".fresh.json"] + args,
                       stdout=subprocess.DEVNULL)
print("resume exit code %d, fresh exit code %d" % (resumed.returncode, fresh.returncode))
same = open(workdir + ".resumed.json").read() == open(workdir + ".fresh.json").read()
print("resumed JSON %s the uninterrupted sweep's" % ("equals" if same else "DIFFERS from"))
