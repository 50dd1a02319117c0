#!/usr/bin/env python3
"""Compare layouts of one program under the deterministic cachegrind cost model.

Builds, from ONE profile of the default build (layout-record --source=valgrind):
  default   clang-22 -O2, ld.lld
  cdsort    ld.lld --call-graph-profile-sort=cdsort fed layout-order's callgraph.txt
  bolt      llvm-bolt-22 -data=<our fdata> -reorder-functions=cdsort
            -reorder-blocks=ext-tsp -split-functions
  keel-fn   layout-order: order.txt + layout.ld (hot text contiguous, 4 KB aligned)
  keel-bb   layout-blocks on top: -fbasic-block-sections=list= + order + layout.ld
and prints, per I1 geometry, the mean simulated cost, I1 misses, and each build's cost
relative to default and to BOLT. With --sweep it also measures the spread (max/min-1)
of the cost over code-padding grids:
  (1) outside: a pad object of N bytes linked between the object files
      (BOLT: the padded link re-optimised with the same fdata)
  (2) inside: N bytes of padding right after the k-th hottest function (explicit
      symbol order = the build's own function order + a pad symbol; BOLT: -pad-funcs)

Cost = Ir + 10*I1mr + 10*D1mr + 100*(ILmr+DLmr) + 15*(Bcm+Bim)   (issue 10's model)

usage: layout-compare.py PROGRAM WORKDIR [--sweep] [--pads 0:4096:128] [-j N]
PROGRAM: interp (examples/interp) | lua (Debian's lua5.4 source package)
Nothing is written inside the repository; all builds go to WORKDIR.
"""
import argparse
import concurrent.futures as cf
import os
import re
import shutil
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("KEEL_BUILD", os.path.join(TOP, "build"))
BIN = os.path.join(BUILD, "bin")
CC = "clang-22"
LLD = "/usr/lib/llvm-22/bin/ld.lld"
GEOMETRIES = {"32K": "32768,8,64", "8K": "8192,2,64"}
D1, LL = "32768,8,64", "262144,8,64"
WEIGHTS = {"Ir": 1, "I1mr": 10, "D1mr": 10, "ILmr": 100, "DLmr": 100, "Bcm": 15, "Bim": 15}
CFLAGS = ["-O2", "-gdwarf-4", "-ffunction-sections", "-fdata-sections", "-fbasic-block-address-map"]


def run(argv, **kw):
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"layout-compare: command failed ({r.returncode}): {' '.join(argv)}\n{r.stderr[-2000:]}")
    return r.stdout


# ---------------------------------------------------------------- programs
class Program:
    """Sources, objects, link inputs and the workload of one program."""

    def __init__(self, name, work):
        self.name, self.work = name, work
        self.src = os.path.join(work, "src")
        self.libs, self.run_args = [], []

    def compile(self, outdir, extra):
        os.makedirs(outdir, exist_ok=True)
        jobs = []
        for c in self.sources():
            o = os.path.join(outdir, os.path.basename(c)[:-2] + ".o")
            jobs.append([CC, "-c", *self.defines(outdir), *CFLAGS, *extra, c, "-o", o])
        with cf.ThreadPoolExecutor(2) as ex:
            list(ex.map(run, jobs))
        return [os.path.join(outdir, os.path.basename(c)[:-2] + ".o") for c in self.sources()]


class Interp(Program):
    def __init__(self, work):
        super().__init__("interp", work)
        self.src = os.path.join(TOP, "examples", "interp")

    def sources(self):
        return [os.path.join(self.src, f + ".c") for f in ("interp", "handlers_a", "handlers_b", "handlers_c")]

    def defines(self, outdir):
        return ["-fno-plt", "-fno-asynchronous-unwind-tables"]


class Lua(Program):
    def __init__(self, work):
        super().__init__("lua", work)
        src_root = os.path.join(work, "debsrc")
        os.makedirs(src_root, exist_ok=True)
        if not any(d.startswith("lua5.4") and os.path.isdir(os.path.join(src_root, d)) for d in os.listdir(src_root)):
            sh = f". {TOP}/bench/lib-real-programs.sh; keel_get_source lua5.4 {src_root}"
            subprocess.run(["sh", "-c", sh], check=True, stdout=subprocess.DEVNULL)
        self.src = [os.path.join(src_root, d) for d in sorted(os.listdir(src_root))
                    if d.startswith("lua5.4") and os.path.isdir(os.path.join(src_root, d))][0]
        self.libs = ["-lm", "-ldl"]
        self.run_args = [os.path.join(TOP, "bench", "workloads", "lua-bench.lua")]

    def sources(self):
        s = os.path.join(self.src, "src")
        return sorted(os.path.join(s, f) for f in os.listdir(s)
                      if f.endswith(".c") and f not in ("luac.c", "onelua.c"))

    def defines(self, outdir):
        with open(os.path.join(outdir, "lua5.4-deb-multiarch.h"), "w") as f:
            f.write('#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"\n')
        return ["-DLUA_USE_LINUX", "-Dluai_makeseed(L)=0x5eed", "-Dl_randomizePivot()=0", f"-I{outdir}"]


# ---------------------------------------------------------------- building
def pad_object(path, nbytes, section=".text.keelpad", symbol=None):
    asm = path + ".s"
    with open(asm, "w") as f:
        f.write(f'\t.section {section},"ax",@progbits\n')
        if symbol:
            f.write(f"\t.globl {symbol}\n\t.type {symbol},@function\n{symbol}:\n")
        f.write(f"\t.skip {max(nbytes, 1 if symbol else 0)}, 0x90\n")
    run(["llvm-mc-22", "-filetype=obj", "-triple=x86_64-pc-linux-gnu", asm, "-o", path])
    return path


def link(objs, out, extra=(), libs=()):
    run([CC, "-fuse-ld=lld", f"--ld-path={LLD}", "-Wl,--emit-relocs", *objs, *extra, *libs, "-o", out])
    return out


def function_order(binary):
    """The binary's own text symbols in address order (for the 'inside' pad)."""
    out = run(["llvm-nm-22", "-n", "--defined-only", binary])
    return [l.split()[2] for l in out.splitlines() if len(l.split()) == 3 and l.split()[1] in "tT"]


class Builds:
    def __init__(self, prog, work, jobs):
        self.p, self.w, self.jobs = prog, work, jobs
        os.makedirs(work, exist_ok=True)

    def path(self, *a):
        return os.path.join(self.w, *a)

    def prepare(self):
        p = self.p
        self.objs = p.compile(self.path("obj"), [])
        mid = len(self.objs) // 2
        self.split_at = mid
        self.default = link(self.objs, self.path("default"), libs=p.libs)
        # One exact profile of the default build drives every other build.
        self.fdata = self.path("default.fdata")
        run([os.path.join(BIN, "layout-record"), "--source=valgrind", "-o", self.fdata, "--",
             self.default, *p.run_args], cwd=self.w)
        run([os.path.join(BIN, "layout-order"), "--binary", self.default, "--profile", self.fdata,
             "-o", self.path("plan")])
        run([os.path.join(BIN, "layout-blocks"), "--binary", self.default, "--profile", self.fdata,
             "--function-order", self.path("plan", "order.txt"), "-o", self.path("blocks")])
        self.bb_objs = p.compile(self.path("obj-bb"),
                                 [f"-fbasic-block-sections=list={self.path('blocks', 'bbsections.txt')}"])
        self.hot = [l.strip() for l in open(self.path("plan", "order.txt")) if l.strip()]

    # Each build: (objects, extra link flags, post-link step)
    def configs(self):
        plan = self.path("plan")
        return {
            "default": (self.objs, [], None),
            "cdsort": (self.objs, [f"-Wl,--call-graph-ordering-file={plan}/callgraph.txt",
                                   "-Wl,--call-graph-profile-sort=cdsort"], None),
            "bolt": (self.objs, [], "bolt"),
            "keel-fn": (self.objs, [f"-Wl,--symbol-ordering-file={plan}/order.txt", f"-Wl,-T,{plan}/layout.ld"], None),
            "keel-bb": (self.bb_objs, [f"-Wl,--symbol-ordering-file={self.path('blocks', 'order.txt')}",
                                       f"-Wl,-T,{plan}/layout.ld", "-Wl,-z,keep-text-section-prefix"], None),
        }

    def build(self, name, out, outside_pad=0, inside=None):
        """inside = (k, pad): pad bytes right after the k-th hottest function."""
        objs, extra, post = self.configs()[name]
        objs = list(objs)
        if outside_pad:
            objs.insert(self.split_at, pad_object(out + ".pad.o", outside_pad))
        pre = out + ".pre" if post else out
        if inside and post != "bolt":
            # Fix the build's own order, then add the pad symbol after the k-th hot function.
            ref = self.build(name, out + ".ref")
            order = function_order(ref)
            k, pad = inside
            anchor = self.hot[min(k, len(self.hot)) - 1]
            if anchor in order:
                order.insert(order.index(anchor) + 1, "__keel_inside_pad")
            with open(out + ".order", "w") as f:
                f.write("\n".join(order) + "\n")
            objs.append(pad_object(out + ".ipad.o", pad, ".text.__keel_inside_pad", "__keel_inside_pad"))
            extra = [e for e in extra if "ordering-file" not in e and "profile-sort" not in e]
            extra.append(f"-Wl,--symbol-ordering-file={out}.order")
            extra.append("-Wl,--no-warn-symbol-ordering")
            # A plan's script places the hot functions by section pattern (the order
            # file cannot move the pad into that region): add the pad's pattern after
            # the anchor's in a copy of the script.
            for i, e in enumerate(extra):
                if e.startswith("-Wl,-T,"):
                    lines = open(e[len("-Wl,-T,"):]).readlines()
                    at = [j for j, l in enumerate(lines) if f"*(.text.{anchor} " in l]
                    if not at:
                        sys.exit(f"layout-compare: no pattern for {anchor} in {e}")
                    lines.insert(at[0] + 1, "    *(.text.__keel_inside_pad)\n")
                    with open(out + ".ld", "w") as f:
                        f.writelines(lines)
                    extra[i] = f"-Wl,-T,{out}.ld"
        link(objs, pre, extra, self.p.libs)
        if post == "bolt":
            args = ["llvm-bolt-22", pre, "-o", out, f"-data={self.fdata}", "-reorder-functions=cdsort",
                    "-reorder-blocks=ext-tsp", "-split-functions", "-dyno-stats=0"]
            if inside:
                k, pad = inside
                args.append(f"-pad-funcs={bolt_name(pre, self.hot[min(k, len(self.hot)) - 1])}:{pad}")
            run(args)
        return out


def bolt_name(binary, name):
    # BOLT names locals "name/1"; globals keep their name.
    out = run(["llvm-nm-22", binary])
    for l in out.splitlines():
        parts = l.split()
        if len(parts) == 3 and parts[2] == name:
            return name + "/1" if parts[1] == "t" else name
    return name


# ---------------------------------------------------------------- measuring
def cachegrind(binary, args, i1, cwd):
    out = binary + f".{i1}.cg"
    run(["valgrind", "--tool=cachegrind", "--cache-sim=yes", "--branch-sim=yes",
         f"--I1={GEOMETRIES[i1]}", f"--D1={D1}", f"--LL={LL}", f"--cachegrind-out-file={out}",
         binary, *args], cwd=cwd)
    ev = summary = None
    for line in open(out):
        if line.startswith("events:"):
            ev = line.split()[1:]
        elif line.startswith("summary:"):
            summary = [int(x) for x in line.split()[1:]]
    c = dict(zip(ev, summary))
    os.unlink(out)
    return sum(WEIGHTS[k] * c.get(k, 0) for k in WEIGHTS), c


def measure_all(jobs, n):
    with cf.ThreadPoolExecutor(n) as ex:
        return list(ex.map(lambda j: cachegrind(*j), jobs))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("program", choices=["interp", "lua"])
    ap.add_argument("workdir")
    ap.add_argument("--sweep", action="store_true")
    ap.add_argument("--pads", default="0:4096:128", help="FROM:TO:STEP, TO exclusive")
    ap.add_argument("--inside-k", default="1,3,10", help="k-th hottest functions for perturbation (2)")
    ap.add_argument("--builds", default="default,cdsort,bolt,keel-fn,keel-bb")
    ap.add_argument("-j", type=int, default=os.cpu_count())
    a = ap.parse_args()
    work = os.path.abspath(a.workdir)
    prog = Interp(work) if a.program == "interp" else Lua(work)
    B = Builds(prog, os.path.join(work, "builds"), a.j)
    print(f"layout-compare: {a.program}: building and profiling in {work}", file=sys.stderr)
    B.prepare()
    names = a.builds.split(",")
    bins = {n: B.build(n, B.path(n + ".bin")) for n in names}
    print(f"\n{a.program}: mean simulated cost (cachegrind; cost = Ir + 10*I1mr + 10*D1mr + 100*LLmr + 15*mispredicts)")
    print(f"{'build':10} {'I1':>4} {'cost':>14} {'Ir':>14} {'I1mr':>10} {'vs default':>10} {'vs bolt':>8}")
    base = {}
    results = {}
    jobs = [(bins[n], prog.run_args, g, B.w) for n in names for g in GEOMETRIES]
    for (n, g), (cost, c) in zip([(n, g) for n in names for g in GEOMETRIES], measure_all(jobs, a.j)):
        results[(n, g)] = (cost, c)
    for g in GEOMETRIES:
        for n in names:
            cost, c = results[(n, g)]
            d = cost / results[("default", g)][0] if "default" in names else float("nan")
            b = cost / results[("bolt", g)][0] if "bolt" in names else float("nan")
            print(f"{n:10} {g:>4} {cost:14d} {c['Ir']:14d} {c['I1mr']:10d} {d:10.4f} {b:8.4f}")
    if not a.sweep:
        return
    lo, hi, step = (int(x) for x in a.pads.split(":"))
    pads = list(range(lo, hi, step))
    ks = [int(k) for k in a.inside_k.split(",")]
    print(f"\n{a.program}: spread of cost (max/min - 1) over pads {lo}..{pads[-1]} by {step}")
    print(f"{'build':10} {'I1':>4} {'(1) outside':>12} " + " ".join(f"{'(2) k=' + str(k):>10}" for k in ks))
    for n in names:
        series = {}
        variants = [("out", p, B.build(n, B.path(f"{n}.out{p}.bin"), outside_pad=p)) for p in pads]
        for k in ks:
            variants += [(f"k{k}", p, B.build(n, B.path(f"{n}.k{k}.{p}.bin"), inside=(k, p))) for p in pads]
        jobs = [(v[2], prog.run_args, g, B.w) for v in variants for g in GEOMETRIES]
        res = measure_all(jobs, a.j)
        i = 0
        for kind, p, _ in variants:
            for g in GEOMETRIES:
                series.setdefault((kind, g), []).append(res[i][0])
                i += 1
        for g in GEOMETRIES:
            cells = []
            for kind in ["out"] + [f"k{k}" for k in ks]:
                s = series[(kind, g)]
                cells.append(f"{100 * (max(s) / min(s) - 1):9.3f}%")
            print(f"{n:10} {g:>4} {cells[0]:>12} " + " ".join(f"{c:>10}" for c in cells[1:]))
        for v in variants:
            for suffix in ("", ".pad.o", ".ipad.o", ".order", ".ref", ".pre", ".ld"):
                if os.path.exists(v[2] + suffix):
                    os.unlink(v[2] + suffix)


if __name__ == "__main__":
    main()
