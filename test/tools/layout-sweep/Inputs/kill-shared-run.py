"""kill -9 a sweep during keel-sim's shared run, resume it, and compare the
resumed JSON with an uninterrupted sweep's (every byte but the provenance's
command and date):
kill-shared-run.py WORKDIR -- LAYOUT-SWEEP-ARGS...

The shared run's map file (WORKDIR.1/keel-sim-0.map) is written just before
the run starts; the sweep (its process group: valgrind too) is killed half a
second after it appears."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep_kill import journal_lines, kill_when, start_sweep
from provenance_strip import strip

workdir = sys.argv[1]
args = sys.argv[sys.argv.index("--") + 1:]
journal = workdir + ".journal"
first = start_sweep(journal, workdir + ".1", args, group=True)
mapfile = os.path.join(workdir + ".1", "keel-sim-0.map")
kill_when(first, lambda: os.path.exists(mapfile), settle=0.5, group=True)
lines = journal_lines(journal)
print("killed during the shared run with %d measurements journaled" % len(lines))
resumed = subprocess.run(["layout-sweep", "--resume", "--journal=" + journal,
                          "--keep-dir=" + workdir + ".2",
                          "--json=" + workdir + ".resumed.json"] + args,
                         stdout=subprocess.DEVNULL)
fresh = subprocess.run(["layout-sweep", "--json=" + workdir + ".fresh.json"] + args,
                       stdout=subprocess.DEVNULL)
print("resume exit code %d, fresh exit code %d" % (resumed.returncode, fresh.returncode))
# Every byte but the provenance's command (--resume, another --json) and date.
same = strip(workdir + ".resumed.json") == strip(workdir + ".fresh.json")
print("resumed JSON %s the uninterrupted sweep's" % ("equals" if same else "DIFFERS from"))
