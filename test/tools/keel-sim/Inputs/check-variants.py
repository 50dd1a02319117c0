#!/usr/bin/env python3
"""Run keel-sim once on BASE with the map of every VARIANT and several I1
geometries, then cachegrind on each variant's own binary for each geometry,
and compare every event. Every binary path must have the same length (the
client's stack holds it) and all runs share VALGRIND_LIB and a stdout that
is a file, so only the layout differs.

usage: check-variants.py [--frontend=NAME] VALGRIND_LIB MAP_TOOL WORKDIR D1 LL I1[;I1...] -- BASE VARIANT... -- ARGS...
Prints one line per (variant, geometry) and a final 'all N same' or exits 1.
With --frontend, keel-sim runs with that front-end model, and each variant's
front-end events must also equal those of keel-sim run on its own binary.
"""
import os
import subprocess
import sys


def summary(path):
    events = None
    for line in open(path):
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("summary:"):
            return dict(zip(events, map(int, line.split()[1:])))
    sys.exit(f"{path}: no summary")


def main():
    a = sys.argv[1:]
    frontend = []
    if a and a[0].startswith("--frontend="):
        frontend = [a.pop(0)]
    vlib, map_tool, work, d1, ll, i1s = a[:6]
    rest = a[7:]
    sep = rest.index("--")
    bins, args = rest[:sep], rest[sep + 1:]
    base, variants = bins[0], bins[1:]
    i1s = i1s.split(";")
    env = dict(os.environ, VALGRIND_LIB=vlib)
    mapf = os.path.join(work, "map.txt")
    names = [f"v{i}" for i in range(1, len(variants) + 1)]
    r = subprocess.run([map_tool, base, mapf] +
                       [f"{n}={v}" for n, v in zip(names, variants)])
    if r.returncode != 0:
        sys.exit(f"keel-sim-map failed ({r.returncode})")
    ks = os.path.join(work, "ks.out")
    geo = [f"--I1={g}" for g in i1s] + [f"--D1={d1}", f"--LL={ll}"]
    with open(os.path.join(work, "ks.stdout"), "w") as out:
        subprocess.run(["valgrind", "--tool=keel-sim"] + geo + frontend +
                       [f"--keel-sim-map-file={mapf}",
                        f"--keel-sim-out-file={ks}",
                        "--log-file=" + os.path.join(work, "ks.log"), base] + args,
                       env=env, stdout=out, check=True)
    results = {}
    events = None
    for line in open(ks):
        f = line.split()
        if f[0] == "events:":
            events = f[1:]
        elif f[0] == "result":
            results[(int(f[1]), int(f[2]))] = dict(zip(events, map(int, f[3:])))
        elif f[0] == "variant" and f[4] != "0":
            sys.exit(f"variant {f[2]}: {f[4]} unmapped accesses")
    fe_own = {}
    if frontend:
        # The front-end events of each variant's own binary (every geometry).
        for vi, binary in enumerate([base] + variants):
            own = os.path.join(work, f"own.{vi}")
            with open(os.path.join(work, "own.stdout"), "w") as out:
                subprocess.run(["valgrind", "--tool=keel-sim"] + geo + frontend +
                               [f"--keel-sim-out-file={own}",
                                "--log-file=" + os.path.join(work, "own.log"),
                                binary] + args, env=env, stdout=out, check=True)
            ev = None
            for line in open(own):
                f = line.split()
                if f[0] == "events:":
                    ev = f[1:]
                elif f[0] == "result":
                    fe_own[(vi, int(f[2]))] = dict(zip(ev[13:], map(int, f[3 + 13:])))
    bad = 0
    n = 0
    for vi, binary in enumerate([base] + variants):
        for gi, i1 in enumerate(i1s):
            cg = os.path.join(work, f"cg.{vi}.{gi}")
            with open(os.path.join(work, "cg.stdout"), "w") as out:
                subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=yes",
                                "--branch-sim=yes", f"--I1={i1}", f"--D1={d1}",
                                f"--LL={ll}", f"--cachegrind-out-file={cg}",
                                "--log-file=" + os.path.join(work, "cg.log"),
                                binary] + args, env=env, stdout=out, check=True)
            want, got = summary(cg), results[(vi, gi)]
            if frontend:
                want.update(fe_own[(vi, gi)])
            # Alias4K compares single byte addresses, and one load of the C
            # library's start-up lands on another stack byte from run to run
            # (the same binary gave 1717 and 1718): a few counts of slack.
            diff = [e for e in want if want[e] != got.get(e) and
                    not (e == "Alias4K" and abs(want[e] - got.get(e, 0)) <= 4)]
            n += 1
            name = "base" if vi == 0 else names[vi - 1]
            print(f"{name} I1={i1}: I1mr={want['I1mr']} D1mr={want['D1mr']} "
                  f"Bcm={want['Bcm']} " +
                  (f"FeWin={want['FeWin']} BtbMiss={want['BtbMiss']} "
                   f"ItlbMiss={want['ItlbMiss']} " if frontend else "") +
                  ("same" if not diff else
                   "DIFFERS " + " ".join(f"{e}:{want[e]}/{got.get(e)}" for e in diff)))
            bad += bool(diff)
    if bad:
        print(f"{bad} of {n} differ")
        return 1
    print(f"all {n} same")
    return 0


if __name__ == "__main__":
    sys.exit(main())
