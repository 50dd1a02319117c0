#!/usr/bin/env python3
"""A code-pad sweep simulated two ways: one cachegrind run per (pad, I1
geometry) -- what `layout-sweep --backend=cachegrind` does -- and one keel-sim
run of the unpadded binary with every pad's address map and both geometries
(docs/keel-sim.md). Prints both wall times, their ratio, and whether every
(pad, geometry) result is equal, event by event.

usage: bench/keel-sim-sweep.py [--pads=N] [--step=B] [--jobs=J] PROGRAM...
  PROGRAM: interp (examples/interp, 2000 iterations)
           lua    (Lua 5.4 from the Debian source package, built outside the
                   repository under $KEEL_SRC (else realsrc/ in the temporary directory), running
                   bench/workloads/lua-bench.lua 1)
Pads are 0, B, 2B, ... (N of them, default 16 x 256 B): a pad object of B*k
bytes of nops linked between the program's object files, as
examples/interp/build.sh default does. cachegrind runs J at a time (default
2, like layout-sweep on this machine); keel-sim is one process. Needs a
Keel build in $KEEL_BUILD (default ./build) with lib/keel-sim.
"""
import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile
import time

import keelbench

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("KEEL_BUILD", os.path.join(TOP, "build"))
VLIB = os.path.join(BUILD, "lib", "keel-sim")
D1, LL = "32768,8,64", "262144,8,64"
I1S = ["32768,8,64", "8192,2,64"]


def sh(argv, **kw):
    return subprocess.run(argv, check=True, **kw)


def pad_object(work, nbytes):
    asm = os.path.join(work, f"pad{nbytes}.s")
    obj = os.path.join(work, f"pad{nbytes}.o")
    with open(asm, "w") as f:
        f.write(f'\t.section .text.keelpad,"ax",@progbits\n\t.skip {nbytes}, 0x90\n')
    sh(["llvm-mc-22", "-filetype=obj", "-triple=x86_64-pc-linux-gnu", asm, "-o", obj])
    return obj


def build_interp(work, pads):
    objs = os.path.join(work, "objs")
    sh([os.path.join(TOP, "examples/interp/build.sh"), "objects", objs],
       stdout=subprocess.DEVNULL)
    bins = []
    for p in pads:
        d = os.path.join(work, f"p{p:05d}")
        os.makedirs(d)
        out = os.path.join(d, "prog")
        sh([os.path.join(TOP, "examples/interp/build.sh"), "default", objs, str(p), out])
        bins.append(out)
    return bins, ["2000"]


def build_lua(work, pads):
    src = subprocess.run(
        ["sh", "-c", f'. "{TOP}/bench/lib-real-programs.sh"; '
         f'keel_get_source lua5.4 "{os.environ.get("KEEL_SRC", os.path.join(tempfile.gettempdir(), "realsrc"))}"'],
        check=True, capture_output=True, text=True).stdout.strip()
    objs = os.path.join(work, "objs")
    sh(["sh", "-c", f'. "{TOP}/bench/lib-real-programs.sh"; '
        f'keel_build_lua "{src}" "{objs}" -O2 -ffunction-sections -fdata-sections'])
    names = sorted(f for f in os.listdir(objs) if f.endswith(".o"))
    half = len(names) // 2
    bins = []
    for p in pads:
        d = os.path.join(work, f"p{p:05d}")
        os.makedirs(d)
        out = os.path.join(d, "prog")
        pad = pad_object(work, p)
        sh(["clang-22", "-fuse-ld=lld"] + [os.path.join(objs, n) for n in names[:half]] +
           [pad] + [os.path.join(objs, n) for n in names[half:]] + ["-o", out, "-lm"])
        bins.append(out)
    script = os.path.join(work, "lua-bench.lua")
    shutil.copy(os.path.join(TOP, "bench/workloads/lua-bench.lua"), script)
    return bins, [script, "1"]


def cachegrind(env, work, binary, args, i1, tag):
    out = os.path.join(work, f"cg.{tag}")
    with open(os.path.join(work, f"cg.{tag}.stdout"), "w") as so:
        sh(["valgrind", "--tool=cachegrind", "--cache-sim=yes", "--branch-sim=yes",
            f"--I1={i1}", f"--D1={D1}", f"--LL={LL}", f"--cachegrind-out-file={out}",
            f"--log-file={out}.log", binary] + args, env=env, stdout=so)
    return keelbench.cachegrind_summary(out)


def run(program, pads, jobs):
    work = tempfile.mkdtemp(prefix=f"keel-sim-sweep-{program}-")
    try:
        bins, args = (build_interp if program == "interp" else build_lua)(work, pads)
        env = dict(os.environ, VALGRIND_LIB=VLIB)

        t0 = time.monotonic()
        tasks = {}
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            for vi, b in enumerate(bins):
                for gi, i1 in enumerate(I1S):
                    tasks[(vi, gi)] = pool.submit(cachegrind, env, work, b, args, i1,
                                                  f"{vi}.{gi}")
        old = {k: f.result() for k, f in tasks.items()}
        t_old = time.monotonic() - t0

        t0 = time.monotonic()
        mapf = os.path.join(work, "map.txt")
        sh([os.path.join(VLIB, "keel-sim-map"), bins[0], mapf] +
           [f"v{i}={b}" for i, b in enumerate(bins) if i])
        ks = os.path.join(work, "ks.out")
        with open(os.path.join(work, "ks.stdout"), "w") as so:
            sh(["valgrind", "--tool=keel-sim"] + [f"--I1={g}" for g in I1S] +
               [f"--D1={D1}", f"--LL={LL}", f"--keel-sim-map-file={mapf}",
                f"--keel-sim-out-file={ks}", f"--log-file={ks}.log", bins[0]] + args,
               env=env, stdout=so)
        t_new = time.monotonic() - t0

        new, events, unmapped = {}, None, 0
        for line in open(ks):
            f = line.split()
            if f[0] == "events:":
                events = f[1:]
            elif f[0] == "result":
                new[(int(f[1]), int(f[2]))] = dict(zip(events, map(int, f[3:])))
            elif f[0] == "variant":
                unmapped += int(f[4])
        differ = sorted(k for k in old if old[k] != new.get(k))
        n = len(old)
        print(f"{program}: {len(bins)} code pads x {len(I1S)} I1 geometries "
              f"({', '.join(I1S)}), Ir={old[(0, 0)]['Ir']}")
        print(f"  cachegrind, {n} runs, {jobs} at a time: {t_old:8.1f} s")
        print(f"  keel-sim, 1 run + maps:            {t_new:8.1f} s")
        print(f"  ratio: {t_old / t_new:.1f}x")
        print(f"  exact: {n - len(differ)} of {n} (pad, geometry) results equal "
              f"in every event; unmapped accesses {unmapped}")
        for k in differ[:5]:
            print(f"  DIFFERS pad {pads[k[0]]} geometry {I1S[k[1]]}: "
                  f"cachegrind {old[k]} keel-sim {new.get(k)}")
        return not differ
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pads", type=int, default=16)
    ap.add_argument("--step", type=int, default=256)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("programs", nargs="*", default=["interp", "lua"])
    a = ap.parse_args()
    if not os.path.exists(os.path.join(VLIB, "keel-sim-amd64-linux")):
        sys.exit(f"no keel-sim in {VLIB} (valgrind's tool API missing at build?)")
    pads = [a.step * i for i in range(a.pads)]
    ok = True
    for p in a.programs:
        if p not in ("interp", "lua"):
            sys.exit(f"unknown program {p} (interp, lua)")
        ok &= run(p, pads, a.jobs)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
