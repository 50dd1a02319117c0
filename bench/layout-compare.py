#!/usr/bin/env python3
"""Compare layouts of one program under a deterministic cost model, measured by the
product (bench/keelbench.py's measure(): a one-point `layout-sweep --json`).

Builds, from ONE profile of the default build (layout-record --source=valgrind):
  default   clang-22 -O2, ld.lld
  cdsort    ld.lld --call-graph-profile-sort=cdsort fed layout-order's callgraph.txt
  bolt      llvm-bolt-22 -data=<our fdata> -reorder-functions=cdsort
            -reorder-blocks=ext-tsp -split-functions
  keel-fn   layout-order --preset=functions: order.txt + layout.ld (hot text contiguous, 4 KB aligned),
            linked with -z separate-code as layout-order says (data keeps its page offset)
  keel-sls  keel-fn linked with -z separate-loadable-segments instead
  keel-tuned keel-fn relinked with the __keel_code_pad (hot region's offset) that
            minimises the summed cost over both I1 geometries in a sweep of keel-fn's
            own link over --tune-pads (default 0..4032 by 64); the same as
            layout-order --code-pad=<that pad> (docs/planner.md)
  keel-bb   layout-blocks on top: -fbasic-block-sections=list= + order + layout.ld
  keel-plugin keel-fn's plan applied at compile time too: -fpass-plugin=LayoutOpt.so
            -mllvm -layout-plan=plan.yaml, then the same link
  keel-sp   keel-fn planned with layout-order --spacers=4096 (growth-absorbing packs)
  keel-bb-sp keel-bb planned in one command: layout-order --blocks --spacers=4096 (spacers packed
             by the hot parts' estimated sizes; same files as layout-blocks + --section-sizes)
  keel-rec  the recommended build as a user makes it: the kept program of
            `layout-optimize --workload=ARGS --binary=NAME -- sh builds/rec/build.sh`,
            the script compiling and linking the program as the default build is
            compiled and linked, with CC=keel-cc (plan, rebuild and guard are the
            product's); --recipe FILE adds recipes of bench/recommended.json's schema
            (flag lists), each a build named by its "name"
and prints, per I1 geometry, the mean simulated cost, I1 misses, and each build's cost
relative to default and to BOLT. With --sweep it also measures the spread (max/min-1)
of the cost over code-padding grids:
  (1) outside: a pad object of N bytes linked between the object files
      (BOLT: the padded link re-optimised with the same fdata)
  (2) inside: N bytes of padding right after the k-th hottest function of the profile
      (executed instructions, plan.yaml's weight), the same function in every build (explicit symbol order = the build's own
      function order + a pad symbol; plan builds: the pad's pattern in a copy of
      layout.ld; BOLT: -pad-funcs)

Cost: layout-sweep's (--backend=cachegrind: Ir + 10*I1mr + 10*D1mr + 100*(ILmr+DLmr) +
15*(Bcm+Bim); --model NAME: `layout-sweep --cost=NAME --print-cost`); the spreads are
the product's formula (keelbench.spread()) over the bench's perturbations.

usage: layout-compare.py PROGRAM WORKDIR [--sweep] [--pads 0:4096:64] [--inside-k 1,10]
                         [--builds default,cdsort,...] [-j N] [--recommended FILE]
PROGRAM: interp (examples/interp) | lua (Debian's lua5.4 source package, running
bench/workloads/lua-bench.lua) | zstd (Debian's libzstd source package, the zstd CLI
running its own benchmark: zstd -b1e3 -B16K -i0 -qq SAMPLE, see lib-real-programs.sh)
The shared machinery is in bench/keelbench.py (also used by bench/corpus.py).
Nothing is written inside the repository; all builds go to WORKDIR. Every measurement
is kept in WORKDIR/builds/sweep-<model>-<tools' sha1>.tsv (keyed by the binary's hash), so a
killed sweep resumes where it stopped; the sweep's per-pad results go to
WORKDIR/builds/sweep.tsv. Every binary runs as /dev/fd/100 (layout-sweep --exec-as=fd), so the
program's own path is the same string in every run.
"""
import argparse
import json
import concurrent.futures as cf
import os
import sys

import keelbench
from keelbench import (GEOMETRIES, Builds, Interp, Lua, Measurements, Zstd, sha1_of, spread)

# sweep.tsv's columns after build, geometry, kind, pad and cost (bench/sweep-components.py
# reads them).
SWEEP_FIELDS = ["Ir", "I1mr", "D1mr", "ILmr", "DLmr", "Bcm", "Bim"]


def sweep(a, B, prog, M, names, bins):
    lo, hi, step = (int(x) for x in a.pads.split(":"))
    pads = list(range(lo, hi, step))
    ks = [int(k) for k in a.inside_k.split(",")] if a.inside_k else []
    kinds = ["out"] + [f"k{k}" for k in ks]
    label = {"out": "(1) outside", **{f"k{k}": f"(2) k={k}" for k in ks}}
    tsv = open(B.path(f"sweep-{a.model}.tsv" if a.model else "sweep.tsv"), "a")
    print(f"\n{a.program}: sweep over pads {lo}..{pads[-1]} by {step} ({len(pads)} pads); "
          f"cost, I1mr and Bm (mispredicts) are means over the pads; spread = max/min - 1", flush=True)
    print(f"{'build':8} {'I1':>3} {'perturbation':12} {'mean cost':>12} {'vs def':>7} "
          f"{'mean I1mr':>10} {'mean Bm':>9} {'cost spread':>11} {'Ir spread':>9} {'I1mr min..max':>19}", flush=True)
    base = {}
    for n in names:
        series = {}
        variants = []
        # --keep: a later run with a finer grid reuses the binaries it already has,
        # but only if they were built from the same build as now: the stamp is the
        # sha1 of the unpadded binary they were made with (a changed plan or
        # layout-order default gives a different one, and every variant is relinked).
        stamp_path = B.path(f"{n}.sweep-stamp")
        stamp = sha1_of(bins[n])
        reuse = a.keep and os.path.exists(stamp_path) and open(stamp_path).read().strip() == stamp
        if a.keep and not reuse:
            print(f"layout-compare: {n}: relinking the sweep's binaries (no stamp, or built "
                  f"from another {n}.bin)", file=sys.stderr, flush=True)
        def make(out, **kw):
            return out if reuse and os.path.exists(out) else B.build(n, out, **kw)
        for p in pads:
            variants.append(("out", p, lambda p=p: make(B.path(f"{n}.out{p}.bin"), outside_pad=p)))
        for k in ks:
            for p in pads:
                variants.append((f"k{k}", p, lambda k=k, p=p: make(B.path(f"{n}.k{k}.{p}.bin"), inside=(k, p))))
        if ks and n != "bolt":
            B.ref_order(n)
        # Build a.j at a time (links and BOLT runs are single-threaded).
        with cf.ThreadPoolExecutor(a.j) as ex:
            vbins = list(ex.map(lambda v: v[2](), variants))
        with open(stamp_path, "w") as f:
            f.write(stamp + "\n")
        jobs = [(b, g) for b in vbins for g in GEOMETRIES]
        res = M.all(jobs, a.j)
        i = 0
        for (kind, p, _), b in zip(variants, vbins):
            for g in GEOMETRIES:
                cost, c = res[i]
                series.setdefault((kind, g), []).append((cost, c))
                tsv.write("\t".join(map(str, [n, g, kind, p, cost, *(c.get(f, 0) for f in SWEEP_FIELDS)])) + "\n")
                i += 1
        tsv.flush()
        for g in GEOMETRIES:
            for kind in kinds:
                s = series[(kind, g)]
                costs = [x[0] for x in s]
                mean = sum(costs) / len(costs)
                if n == "default":
                    base[(kind, g)] = mean
                rel = mean / base[(kind, g)] if (kind, g) in base else float("nan")
                i1 = [x[1]["I1mr"] for x in s]
                irs = [x[1]["Ir"] for x in s]
                bm = [x[1][keelbench.BRANCH[0]] + x[1][keelbench.BRANCH[1]] for x in s]
                print(f"{n:8} {g:>3} {label[kind]:12} {mean:12.0f} {rel:7.4f} {sum(i1) / len(i1):10.0f} "
                      f"{sum(bm) / len(bm):9.0f} "
                      f"{spread(costs):10.3f}% {spread(irs):8.4f}% {min(i1):>9}..{max(i1):<9}", flush=True)
        for b in bins:
            for suffix in (("",) if not a.keep else ()) + (".pad.o", ".ipad.o", ".order", ".pre", ".ld", ".pad.o.s", ".ipad.o.s"):
                if os.path.exists(b + suffix):
                    os.unlink(b + suffix)
    tsv.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("program", choices=["interp", "lua", "zstd"])
    ap.add_argument("workdir")
    ap.add_argument("--sweep", action="store_true")
    ap.add_argument("--pads", default="0:4096:64", help="FROM:TO:STEP, TO exclusive")
    ap.add_argument("--inside-k", default="1,10", help="k-th hottest functions (by the profile) for perturbation (2)")
    ap.add_argument("--builds", default="default,cdsort,bolt,keel-fn,keel-bb")
    ap.add_argument("--tune-pads", default="0:4096:64",
                    help="FROM:TO:STEP (TO exclusive): the __keel_code_pad values keel-tuned chooses from")
    ap.add_argument("--keep", action="store_true",
                    help="keep the sweep's binaries and reuse the ones WORKDIR already has")
    ap.add_argument("--recommended", default=keelbench.RECOMMENDED,
                    help="the recipe file behind --recipe builds' schema (default bench/recommended.json); "
                         "keel-rec itself is layout-optimize's kept build (its plan, fallback and guard "
                         "are the product's)")
    ap.add_argument("--recipe", action="append", default=[],
                    help="a recipe JSON (bench/recommended.json's schema): adds a build named by "
                         "its \"name\" (repeatable); one with \"layout_optimize_flags\" is keel-rec "
                         "made with those flags added")
    ap.add_argument("--model", metavar="NAME",
                    help="measure with layout-sweep --backend=sim --cost=NAME (keel-sim, every I1 geometry in "
                         "one run) instead of --backend=cachegrind: front-end model NAME (skylake, zen4), or "
                         "cachegrind (no front-end model)")
    ap.add_argument("-j", type=int, default=os.cpu_count())
    a = ap.parse_args()
    if a.model:
        keelbench.use_model(a.model)
    keelbench.KEEP = a.keep
    keelbench.RECOMMENDED = os.path.abspath(a.recommended)
    for path in a.recipe:
        keelbench.RECIPES[keelbench.load_recipe(path)["name"]] = os.path.abspath(path)
    work = os.path.abspath(a.workdir)
    prog = {"interp": Interp, "lua": Lua, "zstd": Zstd}[a.program](work)
    B = Builds(prog, os.path.join(work, "builds"), a.j)
    print(f"layout-compare: {a.program}: building and profiling in {work}", file=sys.stderr)
    B.prepare()
    M = Measurements(B.path(f"{keelbench.measure_tag()}.tsv"), prog.run_args, B.w)
    names = a.builds.split(",")
    if "keel-tuned" in names:
        lo, hi, step = (int(x) for x in a.tune_pads.split(":"))
        B.tune(M, list(range(lo, hi, step)))
    bins = {n: B.build(n, B.path(n + ".bin")) for n in names}
    formula = (f"layout-sweep --backend=sim --cost={a.model}" if a.model else "layout-sweep --backend=cachegrind") + \
        "; cost = " + keelbench.formula()
    print(f"\n{a.program}: mean simulated cost ({formula})")
    print(f"{'build':10} {'I1':>4} {'cost':>14} {'Ir':>14} {'I1mr':>10} {'vs default':>10} {'vs bolt':>8}")
    results = {}
    keys = [(n, g) for n in names for g in GEOMETRIES]
    for key, r in zip(keys, M.all([(bins[n], g) for n, g in keys], a.j)):
        results[key] = r
    for g in GEOMETRIES:
        for n in names:
            cost, c = results[(n, g)]
            d = cost / results[("default", g)][0] if "default" in names else float("nan")
            b = cost / results[("bolt", g)][0] if "bolt" in names else float("nan")
            print(f"{n:10} {g:>4} {cost:14.0f} {c['Ir']:14d} {c['I1mr']:10d} {d:10.4f} {b:8.4f}", flush=True)
    if a.sweep:
        sweep(a, B, prog, M, names, bins)


if __name__ == "__main__":
    main()
