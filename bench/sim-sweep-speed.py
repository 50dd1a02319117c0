#!/usr/bin/env python3
"""layout-sweep --backend=sim (keel-sim: one run, every pad a map) against
--backend=cachegrind (one cachegrind run per pad) on Lua 5.4, end to end:
relinks, runs, parsing, journal. Prints the wall times, their ratio and
whether the two JSON reports agree measurement by measurement. The sim side
is one sweep with both I1 geometries (--I1 twice: each pad relinked once,
one keel-sim run for every pad and geometry); the cachegrind side is one
sweep per geometry (one run per pad and geometry either way).

usage: bench/sim-sweep-speed.py [--variants=N] [--cg-variants=M] [--jobs=J]
                                [--grid] [--no-ratio]
  --variants N     code pads 0, 64, ..., 64(N-1) per I1 geometry (default 64)
  --cg-variants M  cachegrind measures the first M of them (default 16) and
                   its time is scaled by N/M (stated in the output): on this
                   shared 2-core machine the full cachegrind side would take
                   most of an hour
  --grid           also time the 256-point grid 0..16320 by 64 with
                   --backend=sim, I1 32768,8,64
                   (--grid-geometries=2: 8192,2,64 too, in the same sweep)
Geometries: I1 32768,8,64 and 8192,2,64; D1 32768,8,64; LL 262144,8,64.
Lua is built from Debian's lua5.4 source package (bench/lib-real-programs.sh,
which adds a deb-src entry when needed) under $KEEL_SRC (else realsrc/ in the temporary directory); the
workload is bench/workloads/lua-bench.lua 1. The relink puts {padobj}
between the two halves of Lua's object files. Needs a Keel build in
$KEEL_BUILD (default ./build) with lib/keel-sim.
"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("KEEL_BUILD", os.path.join(TOP, "build"))
SWEEP = os.path.join(BUILD, "bin", "layout-sweep")
I1S = ["32768,8,64", "8192,2,64"]
D1, LL = "32768,8,64", "262144,8,64"


def shell(cmd):
    return subprocess.run(["sh", "-c", f'. "{TOP}/bench/lib-real-programs.sh"; {cmd}'],
                          check=True, capture_output=True, text=True).stdout.strip()


def build_lua(work):
    src = shell(f'keel_get_source lua5.4 "{os.environ.get("KEEL_SRC", os.path.join(tempfile.gettempdir(), "realsrc"))}"')
    objs = os.path.join(work, "objs")
    shell(f'keel_build_lua "{src}" "{objs}" -O2 -ffunction-sections -fdata-sections')
    names = sorted(os.path.join(objs, f) for f in os.listdir(objs) if f.endswith(".o"))
    half = len(names) // 2
    # Words only (layout-sweep splits the template itself, no shell).
    relink = " ".join(["clang-22", "-fuse-ld=lld"] + names[:half] + ["{padobj}"] +
                      names[half:] + ["-o", "{out}", "-lm"])
    base = os.path.join(work, "lua")
    subprocess.run(["clang-22", "-fuse-ld=lld"] + names + ["-o", base, "-lm"], check=True)
    script = os.path.join(work, "lua-bench.lua")
    shutil.copy(os.path.join(TOP, "bench/workloads/lua-bench.lua"), script)
    return base, relink, [script, "1"]


def sweep(backend, i1s, last, base, relink, args, jobs, json_out):
    argv = [SWEEP, f"--backend={backend}"] + [f"--I1={i1}" for i1 in i1s] + [
            f"--D1={D1}", f"--LL={LL}",
            "--from=0", f"--to={last}", "--step=64", f"--relink={relink}",
            f"-j{jobs}", f"--json={json_out}", base] + args
    t0 = time.monotonic()
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU[0] = r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime
    return time.monotonic() - t0


# CPU seconds (user + system, the sweep and everything it ran) of the last
# sweep(): less sensitive than wall time to what else the machine runs.
CPU = [0.0]


def geometry_json(path, i1s, i1):
    """Where layout-sweep wrote geometry i1's report (several --I1: the
    geometry's name before the extension)."""
    if len(i1s) == 1:
        return path
    return path[:-len(".json")] + ".i1-" + i1.replace(",", "-") + ".json"


def measurements(path):
    r = json.load(open(path))
    out = {}
    for m in r["measurements"]:
        out[m["variant"]["offset"]] = (m.get("counters"), m.get("cost"), m.get("failed"))
    return r, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variants", type=int, default=64)
    ap.add_argument("--cg-variants", type=int, default=16)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--grid", action="store_true")
    ap.add_argument("--grid-geometries", type=int, default=1)
    ap.add_argument("--no-ratio", action="store_true")
    a = ap.parse_args()
    if not os.path.exists(os.path.join(BUILD, "lib", "keel-sim", "keel-sim-amd64-linux")):
        sys.exit(f"no keel-sim in {BUILD}/lib/keel-sim")
    work = tempfile.mkdtemp(prefix="sim-sweep-speed-")
    ok = True
    try:
        base, relink, args = build_lua(work)
        if not a.no_ratio:
            n, m = a.variants, min(a.cg_variants, a.variants)
            t_cg = c_cg = 0.0
            sj = os.path.join(work, "sim.json")
            t_sim = sweep("sim", I1S, 64 * (n - 1), base, relink, args, a.jobs, sj)
            c_sim = CPU[0]
            print(f"--backend=sim, {n} pads, I1={' and '.join(I1S)} in one sweep: "
                  f"{t_sim:7.1f} s ({c_sim:.1f} s CPU)")
            for gi, i1 in enumerate(I1S):
                cj = os.path.join(work, f"cg{gi}.json")
                tc = sweep("cachegrind", [i1], 64 * (m - 1), base, relink, args, a.jobs, cj)
                c_cg += CPU[0]
                rs, ms = measurements(geometry_json(sj, I1S, i1))
                _, mc = measurements(cj)
                same = sum(1 for k in mc if ms.get(k) == mc[k] and not mc[k][2])
                fell = [x for x in rs["notes"] if x.startswith("keel-sim:")]
                print(f"I1={i1}: --backend=cachegrind {m} pads {tc:7.1f} s "
                      f"({CPU[0]:.1f} s CPU); "
                      f"{same} of {len(mc)} common pads equal in every counter")
                for x in fell:
                    print(f"  note: {x}")
                ok &= same == len(mc)
                t_cg += tc
            scaled = t_cg * n / m
            print(f"lua, {n} code pads x {len(I1S)} I1 geometries, -j{a.jobs}:")
            print(f"  --backend=sim:        {t_sim:8.1f} s")
            print(f"  --backend=cachegrind: {t_cg:8.1f} s for {m} pads per geometry,"
                  f" scaled x{n / m:g} = {scaled:8.1f} s")
            print(f"  ratio: {scaled / t_sim:.1f}x (goal >= 10x)")
            print(f"  CPU seconds: sim {c_sim:.1f}, cachegrind {c_cg:.1f} scaled "
                  f"x{n / m:g} = {c_cg * n / m:.1f}, ratio {c_cg * n / m / c_sim:.1f}x")
        if a.grid:
            gi1s = I1S[:a.grid_geometries]
            gj = os.path.join(work, "grid.json")
            tg = sweep("sim", gi1s, 16320, base, relink, args, a.jobs, gj)
            print(f"grid 0..16320 by 64 (256 points), I1={' and '.join(gi1s)}, "
                  f"--backend=sim: {tg:.1f} s ({tg / 60:.1f} min; goal < 10 min)")
            for i1 in gi1s:
                rg, mg = measurements(geometry_json(gj, gi1s, i1))
                failed = sum(1 for v in mg.values() if v[2])
                print(f"  I1={i1}: {len(mg)} measured, {failed} failed, "
                      f"{sum(1 for x in rg['notes'] if x.startswith('keel-sim:'))} fallback notes")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
