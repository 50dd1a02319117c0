#!/usr/bin/env python3
"""resource-check.py [--each NAME=PATH]... [--stdin PATH] CODE [--absent PATH]... -- CMD ARGS...

Run CMD (argv, no shell) under /usr/bin/time -f '%e %M' and succeed only if
it exits with CODE, in under 1 second and 200 MB of peak RSS (generous
bounds: a resource check that catches a hang or a read of the whole input,
not a timing assertion), and no PATH given with --absent exists afterwards.
A command still running after 10 seconds is killed and reported as hung.
CMD's stdout and stderr are copied to stdout for FileCheck, then one line
"resources: ok" or the reasons it failed. With --each, CMD runs once per
NAME with @IN@ in its words replaced by PATH, each run's output after a
line "== NAME"; it succeeds only if every run does. --stdin gives CMD that
file as its standard input (else /dev/null)."""
import os
import signal
import subprocess
import sys
import tempfile

MAX_SECONDS = 1.0
MAX_RSS_KB = 200 * 1024
KILL_AFTER = 10

args = sys.argv[1:]
each = []
while args and args[0] == "--each":
    each.append(tuple(args[1].split("=", 1)))
    args = args[2:]
stdin = os.devnull
if args and args[0] == "--stdin":
    stdin = args[1]
    args = args[2:]
code = int(args.pop(0))
absent = []
while args and args[0] == "--absent":
    absent.append(args[1])
    args = args[2:]
assert args and args[0] == "--", "usage: resource-check.py CODE [--absent P]... -- CMD"
template = args[1:]


def check(cmd):
    """Run cmd; print its output and the verdict; True when all is well."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf, open(stdin, "rb") as si:
        p = subprocess.Popen(["/usr/bin/time", "-f", "%e %M", "-o", tf.name] + cmd,
                             stdin=si, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, start_new_session=True)
        try:
            out, _ = p.communicate(timeout=KILL_AFTER)
            hung = False
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, _ = p.communicate()
            hung = True
        sys.stdout.write(out.decode(errors="replace"))
        fields = tf.read().split()
    problems = []
    if hung:
        problems.append(f"hung: still running after {KILL_AFTER} s")
    else:
        # time prints "Command exited with non-zero status N" before the numbers.
        seconds, rss_kb = float(fields[-2]), int(fields[-1])
        if p.returncode != code:
            problems.append(f"exit code {p.returncode}, expected {code}")
        if seconds >= MAX_SECONDS:
            problems.append(f"took {seconds} s (limit {MAX_SECONDS} s)")
        if rss_kb >= MAX_RSS_KB:
            problems.append(f"peak RSS {rss_kb} KB (limit {MAX_RSS_KB} KB)")
    for path in absent:
        if os.path.lexists(path):
            problems.append(f"{path} exists")
    print("resources: ok" if not problems else "resources: FAILED: " + "; ".join(problems))
    sys.stdout.flush()
    return not problems


ok = True
if not each:
    ok = check(template)
for name, path in each:
    print(f"== {name}")
    sys.stdout.flush()
    ok &= check([w.replace("@IN@", path) for w in template])
sys.exit(0 if ok else 1)
