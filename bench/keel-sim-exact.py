#!/usr/bin/env python3
"""keel-sim against cachegrind on real programs: the same binary, the same
geometry, the same client environment (VALGRIND_LIB = keel-sim's directory
for both), every event compared: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw and
the branch counters Bc Bcm Bi Bim.

usage: bench/keel-sim-exact.py [lua] [zstd]
  lua   Lua 5.4 (Debian's lua5.4 source), bench/workloads/lua-bench.lua 1
  zstd  the zstd CLI (Debian's libzstd source), its own benchmark on
        zstd_compress.c (bench/lib-real-programs.sh keel_zstd_args)
Geometries: I1 32768,8,64 and 8192,2,64 (D1 32768,8,64, LL 262144,8,64),
both in one keel-sim run; cachegrind runs once per geometry. Sources are
fetched and built outside the repository ($KEEL_SRC, else realsrc/ in the temporary directory).
"""
import os
import shutil
import subprocess
import sys
import tempfile

import keelbench

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("KEEL_BUILD", os.path.join(TOP, "build"))
VLIB = os.path.join(BUILD, "lib", "keel-sim")
SRC = os.environ.get("KEEL_SRC", os.path.join(tempfile.gettempdir(), "realsrc"))
I1S = ["32768,8,64", "8192,2,64"]
D1, LL = "32768,8,64", "262144,8,64"


def shell(cmd):
    return subprocess.run(["sh", "-c", f'. "{TOP}/bench/lib-real-programs.sh"; {cmd}'],
                          check=True, capture_output=True, text=True).stdout.strip()


def build(program, work):
    objs = os.path.join(work, "objs")
    out = os.path.join(work, program)
    if program == "lua":
        src = shell(f'keel_get_source lua5.4 "{SRC}"')
        shell(f'keel_build_lua "{src}" "{objs}" -O2 -ffunction-sections')
        script = os.path.join(work, "lua-bench.lua")
        shutil.copy(os.path.join(TOP, "bench/workloads/lua-bench.lua"), script)
        args = [script, "1"]
    else:
        src = shell(f'keel_get_source libzstd "{SRC}"')
        shell(f'keel_build_zstd "{src}" "{objs}" -O2 -ffunction-sections')
        sample = os.path.join(work, "zstd-sample")
        shutil.copyfile(os.path.join(src, "lib", "compress", "zstd_compress.c"), sample)
        args = shell(f'keel_zstd_args "{sample}"').split()
    names = sorted(os.path.join(objs, f) for f in os.listdir(objs) if f.endswith(".o"))
    subprocess.run(["clang-22", "-fuse-ld=lld"] + names + ["-o", out, "-lm"], check=True)
    return out, args


def cachegrind(env, work, binary, args, i1, tag):
    out = os.path.join(work, f"cg.{tag}")
    subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=yes", "--branch-sim=yes",
                    f"--I1={i1}", f"--D1={D1}", f"--LL={LL}",
                    f"--cachegrind-out-file={out}", f"--log-file={out}.log", binary] + args,
                   env=env, check=True, stdout=subprocess.DEVNULL)
    return keelbench.cachegrind_summary(out)


def run(program):
    work = tempfile.mkdtemp(prefix=f"keel-sim-exact-{program}-")
    try:
        binary, args = build(program, work)
        env = dict(os.environ, VALGRIND_LIB=VLIB)
        ks = os.path.join(work, "ks.out")
        subprocess.run(["valgrind", "--tool=keel-sim"] + [f"--I1={g}" for g in I1S] +
                       [f"--D1={D1}", f"--LL={LL}", f"--keel-sim-out-file={ks}",
                        f"--log-file={ks}.log", binary] + args,
                       env=env, check=True, stdout=subprocess.DEVNULL)
        new, events = {}, None
        for line in open(ks):
            f = line.split()
            if f[0] == "events:":
                events = f[1:]
            elif f[0] == "result" and f[1] == "0":
                new[int(f[2])] = dict(zip(events, map(int, f[3:])))
        ok = True
        for gi, i1 in enumerate(I1S):
            old = cachegrind(env, work, binary, args, i1, str(gi))
            differ = [e for e in old if old[e] != new[gi].get(e)]
            print(f"{program} I1={i1}: Ir={old['Ir']} I1mr={old['I1mr']} "
                  f"D1mr={old['D1mr']} Bcm={old['Bcm']} Bim={old['Bim']}: "
                  + ("all 13 events equal" if not differ else
                     "DIFFER in " + ", ".join(f"{e} cachegrind {old[e]} keel-sim "
                                              f"{new[gi].get(e)}" for e in differ)))
            ok &= not differ
        return ok
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    programs = sys.argv[1:] or ["lua", "zstd"]
    ok = True
    for p in programs:
        if p not in ("lua", "zstd"):
            sys.exit(f"unknown program {p} (lua, zstd)")
        ok &= run(p)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
