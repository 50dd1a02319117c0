"""What kill-and-resume.py and kill-shared-run.py share: start a sweep with a
journal and a kept work directory, wait for a moment, kill it with SIGKILL,
and read the journal's complete lines."""
import os
import signal
import subprocess
import sys
import time


def journal_lines(journal):
    """The journal's measurement lines that are complete: a line is complete
    once its newline is written (the sweep may be killed in the middle of
    one, as layout-sweep --resume knows)."""
    if not os.path.exists(journal):
        return []
    with open(journal) as f:
        text = f.read()
    complete = text[:text.rfind("\n") + 1]
    return [l for l in complete.split("\n")[1:] if l.strip()]


def start_sweep(journal, keepdir, args, group=False):
    """layout-sweep --journal=JOURNAL --keep-dir=KEEPDIR ARGS, in a process
    group of its own when GROUP (so valgrind can be killed with it)."""
    return subprocess.Popen(["layout-sweep", "--journal=" + journal,
                             "--keep-dir=" + keepdir] + args,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=group)


def kill_when(proc, ready, settle=0.0, group=False):
    """Wait (at most 120 s) until READY() or the sweep ends, wait SETTLE more
    seconds, then SIGKILL the sweep (its group when GROUP). Exits 1 with a
    message when the sweep ended first."""
    deadline = time.time() + 120
    while not ready() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(settle)
    if proc.poll() is not None:
        print("sweep ended before the kill (exit %d)" % proc.returncode)
        sys.exit(1)
    if group:
        os.killpg(proc.pid, signal.SIGKILL)
    else:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
