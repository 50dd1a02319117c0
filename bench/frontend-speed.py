#!/usr/bin/env python3
"""keel-sim's time with the front-end model (--frontend=skylake) over its time
without (cachegrind's caches and predictor only), on the bundled interpreter
and on examples/lbr-loop. Runs alternate, ROUNDS of each; the best of each
counts. Times are the child's CPU time (user + system), which other jobs on a
shared machine disturb less than wall time. Prints both times and their
ratio per program (the target: <= 1.5x), and the load average before and
after.

usage: bench/frontend-speed.py [--rounds=N] [--model=skylake|zen4]
Needs a Keel build in $KEEL_BUILD (default ./build) with lib/keel-sim.
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("KEEL_BUILD", os.path.join(TOP, "build"))
VLIB = os.path.join(BUILD, "lib", "keel-sim")
GEOMETRY = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=262144,8,64"]


def programs(work):
    objs = os.path.join(work, "interp")
    subprocess.run([os.path.join(TOP, "examples/interp/build.sh"), "all", objs],
                   check=True, stdout=subprocess.DEVNULL)
    loop = os.path.join(work, "loop")
    subprocess.run(["clang-22", "-O1", "-fno-unroll-loops", "-fno-vectorize",
                    os.path.join(TOP, "examples/lbr-loop/loop.c"), "-o", loop], check=True)
    return [("interp 100000", [os.path.join(objs, "interp.default"), "100000"]),
            ("lbr-loop 3000000 30000", [loop, "3000000", "30000"])]


def run(argv, extra, work):
    out = os.path.join(work, "ks.out")
    env = dict(os.environ, VALGRIND_LIB=VLIB)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(["valgrind", "--tool=keel-sim", *GEOMETRY, *extra,
                    f"--keel-sim-out-file={out}", "--log-file=" + os.path.join(work, "log"),
                    *argv], env=env, check=True, stdout=subprocess.DEVNULL)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--model", default="skylake")
    a = ap.parse_args()
    if not os.path.exists(os.path.join(VLIB, "keel-sim-amd64-linux")):
        sys.exit(f"frontend-speed: no keel-sim in {VLIB}")
    worst = 0
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="frontend-speed") as work:
        for name, argv in programs(work):
            base, model = [], []
            for _ in range(a.rounds):
                base.append(run(argv, [], work))
                model.append(run(argv, [f"--frontend={a.model}"], work))
            r = min(model) / min(base)
            worst = max(worst, r)
            print(f"{name}: keel-sim {min(base):.2f} s, with --frontend={a.model} "
                  f"{min(model):.2f} s CPU, ratio {r:.2f}x (best of {a.rounds})")
    print(f"worst ratio {worst:.2f}x (target: <= 1.5x)")
    # Other jobs on the machine slow the runs unevenly: say how busy it was.
    print("load average (1 min) %.2f before, %.2f after" % (load0[0], os.getloadavg()[0]))


if __name__ == "__main__":
    main()
