#!/usr/bin/env python3
"""Compare layouts of one program under the deterministic cachegrind cost model.

Builds, from ONE profile of the default build (layout-record --source=valgrind):
  default   clang-22 -O2, ld.lld
  cdsort    ld.lld --call-graph-profile-sort=cdsort fed layout-order's callgraph.txt
  bolt      llvm-bolt-22 -data=<our fdata> -reorder-functions=cdsort
            -reorder-blocks=ext-tsp -split-functions
  keel-fn   layout-order: order.txt + layout.ld (hot text contiguous, 4 KB aligned),
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
  keel-rec  the recommended recipe, bench/recommended.json: layout-order with its
            layout_order_flags, a rebuild with -fbasic-block-sections when it says so,
            its link_flags ({plan} = the plan directory); --recipe FILE adds more
            recipes of the same schema, each a build named by its "name"
and prints, per I1 geometry, the mean simulated cost, I1 misses, and each build's cost
relative to default and to BOLT. With --sweep it also measures the spread (max/min-1)
of the cost over code-padding grids:
  (1) outside: a pad object of N bytes linked between the object files
      (BOLT: the padded link re-optimised with the same fdata)
  (2) inside: N bytes of padding right after the k-th hottest function of the profile
      (executed instructions, plan.yaml's weight), the same function in every build (explicit symbol order = the build's own
      function order + a pad symbol; plan builds: the pad's pattern in a copy of
      layout.ld; BOLT: -pad-funcs)

Cost = Ir + 10*I1mr + 10*D1mr + 100*(ILmr+DLmr) + 15*(Bcm+Bim)   (issue 10's model)

usage: layout-compare.py PROGRAM WORKDIR [--sweep] [--pads 0:4096:64] [--inside-k 1,10]
                         [--builds default,cdsort,...] [-j N]
PROGRAM: interp (examples/interp) | lua (Debian's lua5.4 source package, running
bench/workloads/lua-bench.lua) | zstd (Debian's libzstd source package, the zstd CLI
running its own benchmark: zstd -b1e3 -B16K -i0 -qq SAMPLE, see lib-real-programs.sh)
Nothing is written inside the repository; all builds go to WORKDIR. Every cachegrind
result is kept in WORKDIR/builds/cachegrind-v2.tsv (keyed by the binary's hash), so a
killed sweep resumes where it stopped; the sweep's per-pad results go to
WORKDIR/builds/sweep.tsv. Every binary runs as /dev/fd/100 (see cachegrind()), so the
program's own path is the same string in every run.
"""
import argparse
import hashlib
import json
import concurrent.futures as cf
import os
import re
import shutil
import subprocess
import sys
import threading

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("KEEL_BUILD", os.path.join(TOP, "build"))
BIN = os.path.join(BUILD, "bin")
CC = "clang-22"
LLD = "/usr/lib/llvm-22/bin/ld.lld"
GEOMETRIES = {"32K": "32768,8,64", "8K": "8192,2,64"}
D1, LL = "32768,8,64", "262144,8,64"
WEIGHTS = {"Ir": 1, "I1mr": 10, "D1mr": 10, "ILmr": 100, "DLmr": 100, "Bcm": 15, "Bim": 15}
KEEP = False  # --keep: reuse objects, profile and binaries already in WORKDIR
# Recipes (bench/recommended.json's schema), by build name; keel-rec is the file.
RECIPES = {}
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
            if KEEP and os.path.exists(o):
                continue
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
        self.src = debian_source(work, "lua5.4")
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


def debian_source(work, pkg):
    """apt-get source PKG into WORK/debsrc once (bench/lib-real-programs.sh)."""
    sh = f". {TOP}/bench/lib-real-programs.sh; keel_get_source {pkg} {os.path.join(work, 'debsrc')}"
    out = subprocess.run(["sh", "-c", sh], check=True, stdout=subprocess.PIPE, text=True).stdout
    return out.strip().splitlines()[-1].rstrip("/")


class Zstd(Program):
    """The zstd CLI from Debian's libzstd source package (lib/ + programs/)."""

    def __init__(self, work):
        super().__init__("zstd", work)
        self.src = debian_source(work, "libzstd")
        # A fixed sample from the same source package: 307772 bytes of C.
        sample = os.path.join(work, "zstd-sample")
        shutil.copyfile(os.path.join(self.src, "lib", "compress", "zstd_compress.c"), sample)
        sh = f". {TOP}/bench/lib-real-programs.sh; keel_zstd_args {sample}"
        self.run_args = subprocess.run(["sh", "-c", sh], check=True, stdout=subprocess.PIPE,
                                       text=True).stdout.split()
        self.libs = []

    def sources(self):
        sh = f". {TOP}/bench/lib-real-programs.sh; keel_zstd_sources {self.src}"
        return subprocess.run(["sh", "-c", sh], check=True, stdout=subprocess.PIPE,
                              text=True).stdout.split()

    def defines(self, outdir):
        return ["-DZSTD_LEGACY_SUPPORT=0", "-DZSTD_DISABLE_ASM",
                f"-I{self.src}/lib", f"-I{self.src}/lib/common"]


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
        if not (KEEP and os.path.exists(self.fdata)):
            run([os.path.join(BIN, "layout-record"), "--source=valgrind", "-o", self.fdata, "--",
                 self.default, *p.run_args], cwd=self.w)
        run([os.path.join(BIN, "layout-order"), "--binary", self.default, "--profile", self.fdata,
             "-o", self.path("plan")])
        self.hot = hottest_functions(self.path("plan", "plan.yaml"))
        self.spacers_plan = None
        self.plugin_objs = None
        self.tuned_pad = None
        self.bb_objs = None
        self.ref_orders = {}
        self.recipe_builds = {}

    def prepare_spacers(self):
        """plan-sp: the same plan with --spacers=4096 (keel-sp)."""
        if self.spacers_plan is None:
            run([os.path.join(BIN, "layout-order"), "--binary", self.default, "--profile", self.fdata,
                 "--spacers=4096", "-o", self.path("plan-sp")])
            self.spacers_plan = self.path("plan-sp")

    def prepare_plugin(self):
        """keel-plugin: the objects compiled with the LayoutOpt pass plugin applying the plan
        (section prefixes, hot-function alignment, hot data), as a user builds with Keel."""
        if self.plugin_objs is None:
            self.plugin_objs = self.p.compile(self.path("obj-plugin"), [
                f"-fpass-plugin={os.path.join(BUILD, 'lib', 'LayoutOpt.so')}",
                "-mllvm", f"-layout-plan={self.path('plan', 'plan.yaml')}"])

    def prepare_blocks(self):
        if self.bb_objs is not None:
            return
        run([os.path.join(BIN, "layout-blocks"), "--binary", self.default, "--profile", self.fdata,
             "--function-order", self.path("plan", "order.txt"), "-o", self.path("blocks")])
        # plan-bb-sp: the one-command route (layout-order --blocks --spacers=4096):
        # the same block layout, spacers packed by the hot parts' estimated sizes.
        run([os.path.join(BIN, "layout-order"), "--binary", self.default, "--profile", self.fdata,
             "--blocks", "--spacers=4096", "-o", self.path("plan-bb-sp")])
        for f in ("bbsections.txt", "order.txt"):
            if open(self.path("blocks", f)).read() != open(self.path("plan-bb-sp", f)).read():
                sys.exit(f"layout-compare: layout-order --blocks wrote another {f} than layout-blocks")
        self.bb_objs = self.p.compile(self.path("obj-bb"),
                                      [f"-fbasic-block-sections=list={self.path('blocks', 'bbsections.txt')}"])

    def prepare_recipe(self, name):
        """A recipe's plan (plan-NAME), objects (rebuilt with the plan's bbsections.txt
        when the recipe says so, in a directory named by that file's hash) and link."""
        if name in self.recipe_builds:
            return
        r = RECIPES[name]
        plan = self.path("plan-" + name)
        run([os.path.join(BIN, "layout-order"), "--binary", self.default, "--profile", self.fdata,
             *r["layout_order_flags"], "-o", plan])
        objs = self.objs
        bbs = os.path.join(plan, "bbsections.txt")
        if r.get("bbsections") and os.path.exists(bbs):
            h = sha1_of(bbs)[:12]
            objs = self.p.compile(self.path(f"obj-bb-{h}"), [f"-fbasic-block-sections=list={bbs}"])
        self.recipe_builds[name] = (objs, [f.replace("{plan}", plan) for f in r["link_flags"]], None)

    # Each build: (objects, extra link flags, post-link step)
    def configs(self):
        plan = self.path("plan")
        return {**self.recipe_builds,
            "default": (self.objs, [], None),
            "cdsort": (self.objs, [f"-Wl,--call-graph-ordering-file={plan}/callgraph.txt",
                                   "-Wl,--call-graph-profile-sort=cdsort"], None),
            "bolt": (self.objs, [], "bolt"),
            # The Keel builds link the way layout-order says: order.txt, layout.ld and
            # -z separate-code (the writable data keeps its page offset when code grows).
            "keel-fn": (self.objs, [f"-Wl,--symbol-ordering-file={plan}/order.txt", f"-Wl,-T,{plan}/layout.ld",
                                    "-Wl,-z,separate-code"], None),
            # keel-fn linked with -z separate-loadable-segments instead: every PT_LOAD
            # starts on a page boundary in the file and in memory.
            "keel-sls": (self.objs, [f"-Wl,--symbol-ordering-file={plan}/order.txt", f"-Wl,-T,{plan}/layout.ld",
                                     "-Wl,-z,separate-loadable-segments"], None),
            "keel-tuned": (self.objs, [f"-Wl,--symbol-ordering-file={plan}/order.txt", f"-Wl,-T,{plan}/layout.ld",
                                       "-Wl,-z,separate-code", f"-Wl,--defsym=__keel_code_pad={self.tuned_pad or 0}"], None),
            "keel-bb": (self.bb_objs or [], [f"-Wl,--symbol-ordering-file={self.path('blocks', 'order.txt')}",
                                       f"-Wl,-T,{plan}/layout.ld", "-Wl,-z,keep-text-section-prefix",
                                       "-Wl,-z,separate-code"], None),
            # Compiled with the pass plugin and the plan (README's step 3).
            "keel-plugin": (self.plugin_objs or [], [f"-Wl,--symbol-ordering-file={plan}/order.txt",
                                                     f"-Wl,-T,{plan}/layout.ld", "-Wl,-z,keep-text-section-prefix",
                                                     "-Wl,-z,separate-code"], None),
            # With growth-absorbing spacers (layout-order --spacers=4096; docs/planner.md).
            "keel-sp": (self.objs, [f"-Wl,--symbol-ordering-file={plan}/order.txt",
                                    f"-Wl,-T,{self.path('plan-sp')}/layout.ld", "-Wl,-z,separate-code"], None),
            "keel-bb-sp": (self.bb_objs or [], [f"-Wl,--symbol-ordering-file={self.path('plan-bb-sp', 'order.txt')}",
                                          f"-Wl,-T,{self.path('plan-bb-sp')}/layout.ld",
                                          "-Wl,-z,keep-text-section-prefix", "-Wl,-z,separate-code"], None),
        }

    def tune(self, M, pads):
        """keel-tuned: measure keel-fn relinked with each __keel_code_pad in pads under
        both I1 geometries and keep the pad with the lowest summed cost (ties: the
        smallest pad)."""
        objs, extra, _ = self.configs()["keel-fn"]
        def make(p):
            out = self.path(f"keel-fn.pad{p}.bin")
            if not (KEEP and os.path.exists(out)):
                link(objs, out, extra + [f"-Wl,--defsym=__keel_code_pad={p}"], self.p.libs)
            return out
        with cf.ThreadPoolExecutor(self.jobs) as ex:
            bins = list(ex.map(make, pads))
        res = M.all([(b, g) for b in bins for g in GEOMETRIES], self.jobs)
        total = {p: sum(res[i * len(GEOMETRIES) + j][0] for j in range(len(GEOMETRIES)))
                 for i, p in enumerate(pads)}
        with open(self.path("tune.tsv"), "w") as f:
            for i, p in enumerate(pads):
                f.write("\t".join(map(str, [p, total[p], *(res[i * len(GEOMETRIES) + j][1]["I1mr"]
                                                          for j in range(len(GEOMETRIES)))])) + "\n")
        self.tuned_pad = min(pads, key=lambda p: (total[p], p))
        print(f"layout-compare: keel-tuned: __keel_code_pad={self.tuned_pad} (summed cost "
              f"{total[self.tuned_pad]}; pad 0: {total.get(0, float('nan'))}; {len(pads)} pads, "
              f"per-pad costs in {self.path('tune.tsv')})", file=sys.stderr, flush=True)
        if not KEEP:
            for b in bins:
                os.unlink(b)
        return self.tuned_pad

    def anchor(self, k):
        """Perturbation (2)'s function: the k-th hottest of the profile (issue 10)."""
        return self.hot[min(k, len(self.hot)) - 1]

    def ref_order(self, name):
        """The build's own function order (llvm-nm -n of its unpadded link), computed once;
        call it before building in parallel."""
        if name not in self.ref_orders:
            self.ref_orders[name] = function_order(self.build(name, self.path(name + ".ref.bin")))
        return list(self.ref_orders[name])

    def build(self, name, out, outside_pad=0, inside=None):
        """inside = (k, pad): pad bytes right after the k-th hottest function (anchor())."""
        if name in ("keel-bb", "keel-bb-sp"):
            self.prepare_blocks()
        if name == "keel-sp":
            self.prepare_spacers()
        if name == "keel-plugin":
            self.prepare_plugin()
        if name in RECIPES:
            self.prepare_recipe(name)
        objs, extra, post = self.configs()[name]
        objs = list(objs)
        if outside_pad:
            objs.insert(self.split_at, pad_object(out + ".pad.o", outside_pad))
        pre = out + ".pre" if post else out
        if inside and post != "bolt":
            # Fix the build's own order, then add the pad symbol after the k-th hot function.
            order = self.ref_order(name)
            k, pad = inside
            anchor = self.anchor(k)
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
                args.append(f"-pad-funcs={bolt_name(pre, self.anchor(k))}:{pad}")
            run(args)
        return out


def hottest_functions(plan_yaml):
    """The plan's functions, hottest first: executed instructions (`weight` in
    plan.yaml) from the one profile every build is made from; ties by name."""
    rows = []
    for line in open(plan_yaml):
        m = re.search(r"name: ([^,}]+),.*weight: (\d+)", line)
        if m:
            rows.append((-int(m.group(2)), m.group(1).strip()))
    return [n for _, n in sorted(rows)]


def bolt_name(binary, name):
    # BOLT names locals "name/1"; globals keep their name.
    out = run(["llvm-nm-22", binary])
    for l in out.splitlines():
        parts = l.split()
        if len(parts) == 3 and parts[2] == name:
            return name + "/1" if parts[1] == "t" else name
    return name


# ---------------------------------------------------------------- measuring
class Measurements:
    """cachegrind results keyed by (sha1 of the binary, geometry), kept in a TSV so a
    killed run resumes without measuring anything twice."""

    FIELDS = ["Ir", "I1mr", "D1mr", "ILmr", "DLmr", "Bcm", "Bim"]

    def __init__(self, path, args, cwd):
        self.path, self.args, self.cwd = path, args, cwd
        self.known = {}
        if os.path.exists(path):
            for line in open(path):
                f = line.split("\t")
                if len(f) == 2 + len(self.FIELDS):
                    self.known[(f[0], f[1])] = dict(zip(self.FIELDS, map(int, f[2:])))
        self.lock = threading.Lock()

    def get(self, binary, i1):
        key = (sha1_of(binary), i1)
        if key not in self.known:
            c = cachegrind(binary, self.args, i1, self.cwd)
            with self.lock:
                self.known[key] = c
                with open(self.path, "a") as f:
                    f.write("\t".join([*key, *(str(c.get(k, 0)) for k in self.FIELDS)]) + "\n")
        c = self.known[key]
        return cost_of(c), c

    def all(self, jobs, n):
        with cf.ThreadPoolExecutor(n) as ex:
            return list(ex.map(lambda j: self.get(*j), jobs))


def cost_of(c):
    return sum(WEIGHTS[k] * c.get(k, 0) for k in WEIGHTS)


# Every binary runs as /dev/fd/100, so argv[0] (and AT_EXECFN) is the same string
# for every build and pad. The program sees its own path: Lua interns it in the `arg`
# table and its length moves the initial stack, which changed Ir, D1mr and Bcm by
# ~0.02% of the cost between two copies of one binary under different names.
EXEC_FD = 100


EXEC_LOCK = threading.Lock()


def cachegrind(binary, args, i1, cwd):
    out = binary + f".{i1}.cg"
    argv = ["valgrind", "--tool=cachegrind", "--cache-sim=yes", "--branch-sim=yes",
            f"--I1={GEOMETRIES[i1]}", f"--D1={D1}", f"--LL={LL}", f"--cachegrind-out-file={out}",
            f"/dev/fd/{EXEC_FD}", *args]
    # Put the binary on EXEC_FD only while this child is started (no preexec_fn,
    # which is unsafe with threads, and no other descriptor leaks into the child).
    fd = os.open(binary, os.O_RDONLY)
    try:
        with EXEC_LOCK:
            os.dup2(fd, EXEC_FD)
            try:
                p = subprocess.Popen(argv, cwd=cwd, pass_fds=(EXEC_FD,), text=True,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            finally:
                os.close(EXEC_FD)
    finally:
        os.close(fd)
    _, err = p.communicate()
    if p.returncode != 0:
        sys.exit(f"layout-compare: command failed ({p.returncode}): {' '.join(argv)} "
                 f"(/dev/fd/{EXEC_FD} = {binary})\n{err[-2000:]}")
    ev = summary = None
    for line in open(out):
        if line.startswith("events:"):
            ev = line.split()[1:]
        elif line.startswith("summary:"):
            summary = [int(x) for x in line.split()[1:]]
    os.unlink(out)
    return dict(zip(ev, summary))


def spread(values):
    return 100 * (max(values) / min(values) - 1)


def sha1_of(path):
    h = hashlib.sha1()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def sweep(a, B, prog, M, names, bins):
    lo, hi, step = (int(x) for x in a.pads.split(":"))
    pads = list(range(lo, hi, step))
    ks = [int(k) for k in a.inside_k.split(",")] if a.inside_k else []
    kinds = ["out"] + [f"k{k}" for k in ks]
    label = {"out": "(1) outside", **{f"k{k}": f"(2) k={k}" for k in ks}}
    tsv = open(B.path("sweep.tsv"), "a")
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
                tsv.write("\t".join(map(str, [n, g, kind, p, cost, *(c.get(f, 0) for f in M.FIELDS)])) + "\n")
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
                bm = [x[1]["Bcm"] + x[1]["Bim"] for x in s]
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
    ap.add_argument("--recipe", action="append", default=[],
                    help="a recipe JSON (bench/recommended.json's schema): adds a build named by "
                         "its \"name\" (repeatable)")
    ap.add_argument("-j", type=int, default=os.cpu_count())
    a = ap.parse_args()
    RECIPES["keel-rec"] = json.load(open(os.path.join(TOP, "bench", "recommended.json")))
    for path in a.recipe:
        r = json.load(open(path))
        RECIPES[r["name"]] = r
    global KEEP
    KEEP = a.keep
    work = os.path.abspath(a.workdir)
    prog = {"interp": Interp, "lua": Lua, "zstd": Zstd}[a.program](work)
    B = Builds(prog, os.path.join(work, "builds"), a.j)
    print(f"layout-compare: {a.program}: building and profiling in {work}", file=sys.stderr)
    B.prepare()
    M = Measurements(B.path("cachegrind-v2.tsv"), prog.run_args, B.w)
    names = a.builds.split(",")
    if "keel-tuned" in names:
        lo, hi, step = (int(x) for x in a.tune_pads.split(":"))
        B.tune(M, list(range(lo, hi, step)))
    bins = {n: B.build(n, B.path(n + ".bin")) for n in names}
    print(f"\n{a.program}: mean simulated cost (cachegrind; cost = Ir + 10*I1mr + 10*D1mr + 100*LLmr + 15*mispredicts)")
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
            print(f"{n:10} {g:>4} {cost:14d} {c['Ir']:14d} {c['I1mr']:10d} {d:10.4f} {b:8.4f}", flush=True)
    if a.sweep:
        sweep(a, B, prog, M, names, bins)


if __name__ == "__main__":
    main()
