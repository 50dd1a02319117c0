#!/usr/bin/env python3
"""Cancel one array task of a layout-sweep --executor=slurm sweep, then resume.

  slurm-cancel-and-resume.py TASK LOG -- layout-sweep ARGS...

Runs the sweep with --slurm-args=--hold added (every task submitted held),
waits for its job to appear in squeue, `scancel JOB_TASK`, `scontrol release
JOB`, and waits for the sweep; then runs the same command again with
--resume (no --hold). Prints both exit codes and the stderr of both runs
(also written to LOG.first and LOG.resume). The hold makes the cancel
deterministic: task TASK has not started when it is cancelled.
"""
import subprocess
import sys
import time


def main(argv):
    sep = argv.index("--")
    task, log = argv[1], argv[2]
    cmd = argv[sep + 1:]
    first = cmd[:1] + ["--slurm-args=--hold"] + cmd[1:]
    with open(log + ".first", "w") as err:
        p = subprocess.Popen(first, stdout=subprocess.DEVNULL, stderr=err)
        job = None
        deadline = time.time() + 60
        while job is None and time.time() < deadline and p.poll() is None:
            r = subprocess.run(["squeue", "-h", "-o", "%F", "-n", "layout-sweep"],
                               stdout=subprocess.PIPE, text=True)
            ids = sorted(set(r.stdout.split()))
            if ids:
                job = ids[0]
                break
            time.sleep(0.2)
        if job is None:
            p.kill()
            print("no job appeared")
            return 1
        subprocess.run(["scancel", "%s_%s" % (job, task)], check=True)
        subprocess.run(["scontrol", "release", job], check=True)
        rc = p.wait(timeout=300)
    print("first exit code %d" % rc)
    sys.stdout.write(open(log + ".first").read())
    with open(log + ".resume", "w") as err:
        rc = subprocess.run(cmd[:1] + ["--resume"] + cmd[1:], stdout=subprocess.DEVNULL,
                            stderr=err, timeout=300).returncode
    print("resume exit code %d" % rc)
    sys.stdout.write(open(log + ".resume").read())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
