"""Shared machinery of bench/layout-compare.py and bench/corpus.py: the programs built
from source, the builds (default, cdsort, bolt, keel-*) made from one profile, the
perturbations (1) outside and (2) inside, and the cachegrind runner whose results are
kept in a TSV keyed by the binary's hash (see layout-compare.py's docstring).

KEEL_BUILD=dir selects the Keel tools (dir/bin/layout-record, layout-order, ...);
default: this checkout's build/.
"""
import hashlib
import concurrent.futures as cf
import json
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
# keel-rec is the product's own recommended build: layout-order's defaults, applied
# with the plan's compile.rsp and link.rsp. recommended.json spells the same recipe
# out (test/tools/recommended/default.test checks that they agree); keel-rec takes
# only its guard from it (--recommended FILE: another guard).
RECOMMENDED = os.path.join(TOP, "bench", "recommended.json")
# More recipes of the same schema, by build name (layout-compare.py --recipe FILE).
RECIPES = {}
CFLAGS = ["-O2", "-gdwarf-4", "-ffunction-sections", "-fdata-sections", "-fbasic-block-address-map"]


def run(argv, **kw):
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace", **kw)
    if r.returncode != 0:
        sys.exit(f"keelbench: command failed ({r.returncode}): {' '.join(argv)}\n{r.stderr[-2000:]}")
    return r.stdout


# ---------------------------------------------------------------- programs
class Program:
    """Sources, objects, link inputs and the workload of one program."""

    def __init__(self, name, work):
        self.name, self.work = name, work
        self.src = os.path.join(work, "src")
        self.libs, self.run_args = [], []
        # corpus.py: the workload measured ("test"; run_args is the one profiled,
        # "train") and the environment both run with (None: this process's).
        self.test_args, self.run_env = None, None

    def split_at(self, objs):
        """Where perturbation (1)'s pad object goes in the link's object list."""
        return len(objs) // 2

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


def response_file_args(path):
    """The arguments of a clang response file as clang reads them
    (llvm::cl::TokenizeGNUCommandLine): white space separates, single and double
    quotes group, a backslash escapes the next character (inside quotes too), empty
    arguments are dropped."""
    text = open(path).read()
    args, cur, quote, i = [], [], None, 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            cur.append(text[i + 1])
            i += 2
            continue
        if quote:
            if c == quote:
                quote = None
            else:
                cur.append(c)
        elif c in "'\"":
            quote = c
        elif c.isspace():
            if cur:
                args.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    if cur:
        args.append("".join(cur))
    return args


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
        self.split_at = p.split_at(self.objs)
        self.default = link(self.objs, self.path("default"), libs=p.libs)
        # One exact profile of the default build drives every other build.
        self.fdata = self.path("default.fdata")
        if not (KEEP and os.path.exists(self.fdata)):
            run([os.path.join(BIN, "layout-record"), "--source=valgrind", "-o", self.fdata, "--",
                 self.default, *p.run_args], cwd=self.w, env=p.run_env)
        # The function-level plan (keel-fn, cdsort's call graph, the hottest functions).
        run([os.path.join(BIN, "layout-order"), "--preset=functions", "--binary", self.default,
             "--profile", self.fdata, "-o", self.path("plan")])
        self.hot = hottest_functions(self.path("plan", "plan.yaml"))
        self.spacers_plan = None
        self.plugin_objs = None
        self.tuned_pad = None
        self.bb_objs = None
        self.recipe_builds = {}
        self.ref_orders = {}

    def prepare_spacers(self):
        """plan-sp: the same plan with --spacers=4096 (keel-sp)."""
        if self.spacers_plan is None:
            run([os.path.join(BIN, "layout-order"), "--preset=functions", "--binary", self.default,
                 "--profile", self.fdata, "--spacers=4096", "-o", self.path("plan-sp")])
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
        run([os.path.join(BIN, "layout-order"), "--preset=functions", "--binary", self.default,
             "--profile", self.fdata, "--blocks", "--spacers=4096", "-o", self.path("plan-bb-sp")])
        for f in ("bbsections.txt", "order.txt"):
            if open(self.path("blocks", f)).read() != open(self.path("plan-bb-sp", f)).read():
                sys.exit(f"keelbench: layout-order --blocks wrote another {f} than layout-blocks")
        self.bb_objs = self.bb_compile(self.path("blocks", "bbsections.txt"))

    def bb_compile(self, bbsections, extra=()):
        """The objects compiled with -fbasic-block-sections=list=BBSECTIONS (and the
        compiler flags EXTRA), in a directory named by the list's hash and EXTRA (a
        changed plan or KEEL_BUILD never reuses objects compiled for another list;
        equal lists and flags share them)."""
        key = sha1_of(bbsections)
        if extra:
            key = hashlib.sha1((key + "\0" + "\0".join(extra)).encode()).hexdigest()
        out = self.path("obj-bb-" + key[:12])
        return self.p.compile(out, [f"-fbasic-block-sections=list={bbsections}", *extra])

    def recipe_file(self, name):
        """The JSON recipe behind a recipe build (added with --recipe, RECIPES)."""
        return RECIPES.get(name)

    def prepare_rec(self):
        """keel-rec, as a user builds it: layout-order with no other option into
        plan-rec, the objects compiled with @plan-rec/compile.rsp, linked with
        @plan-rec/link.rsp. recommended.json's guard decides, as for any recipe,
        whether the plan is made again with its fallback block order."""
        if "keel-rec" in self.recipe_builds:
            return
        plan = self.path("plan-rec")
        self.recipe_builds["keel-rec"] = self.plan_product([], plan)
        g = load_recipe(RECOMMENDED).get("guard")
        if g and self.guard_fires("keel-rec", g):
            self.recipe_builds["keel-rec"] = self.plan_product(
                [f"--block-order={g['fallback_block_order']}"], plan)

    def plan_product(self, flags, plan):
        """layout-order's defaults (and FLAGS) into PLAN; the objects compiled with the
        plan's compile.rsp, in a directory named by what it holds and the block
        sections it names; the link with its link.rsp: (objects, link flags, post-link
        step)."""
        run([os.path.join(BIN, "layout-order"), "--binary", self.default, "--profile", self.fdata,
             *flags, "-o", plan])
        rsp = os.path.join(plan, "compile.rsp")
        bbs = os.path.join(plan, "bbsections.txt")
        key = hashlib.sha1("\0".join([sha1_of(rsp), sha1_of(bbs) if os.path.exists(bbs) else ""])
                           .encode()).hexdigest()
        objs = self.p.compile(self.path("obj-rsp-" + key[:12]), [f"@{rsp}"])
        return (objs, [f"@{os.path.join(plan, 'link.rsp')}"], None)

    def prepare_recipe(self, name):
        """A recipe build (bench/recommended.json's schema): layout-order with its
        flags into plan-rec (keel-rec) or plan-NAME, objects recompiled with the plan's
        bbsections.txt when it asks for that and the plan has one, its link flags
        ({plan} = the plan)."""
        if name in self.recipe_builds:
            return
        r = load_recipe(self.recipe_file(name))
        plan = self.path("plan-rec" if name == "keel-rec" else "plan-" + name)
        flags = r.get("layout_order_flags", [])
        self.recipe_builds[name] = self.plan_recipe(r, flags, plan)
        g = r.get("guard")
        if g and self.guard_fires(name, g):
            order = f"--block-order={g['fallback_block_order']}"
            flags = [order if f.startswith("--block-order=") else f for f in flags]
            if order not in flags:
                flags.append(order)
            self.recipe_builds[name] = self.plan_recipe(r, flags, plan)

    def plan_recipe(self, r, flags, plan):
        """layout-order with FLAGS into PLAN, the objects the recipe R compiles, and
        its link flags: (objects, link flags, post-link step)."""
        run([os.path.join(BIN, "layout-order"), "--binary", self.default, "--profile", self.fdata,
             *flags, "-o", plan])
        bbs = os.path.join(plan, "bbsections.txt")
        objs = (self.bb_compile(bbs, r.get("compile_flags", [])) if r.get("bbsections") and os.path.exists(bbs)
                else self.objs)
        return (objs, [f.replace("{plan}", plan) for f in r.get("link_flags", [])], None)

    def guard_fires(self, name, g):
        """The recipe's guard (README.md, "The recommended build"): the build, linked
        once, against the default link on the train input, both measured by
        layout-sweep with the model in use (--cost=MODEL; cachegrind's Bcm+Bim
        without one), gated by --max-mispredict-rise. True when the gate fails: the
        recipe is then planned again with its fallback block order. The decision is
        kept in guard-NAME-MODEL.json, keyed by both binaries' sha1."""
        d = self.path("guard")
        os.makedirs(os.path.join(d, "dflt"), exist_ok=True)
        os.makedirs(os.path.join(d, "cand"), exist_ok=True)
        # The same file name and path length for both: argv[0] reaches the program.
        base, cand = os.path.join(d, "dflt", "prog"), os.path.join(d, "cand", "prog")
        shutil.copyfile(self.default, base)
        self.build(name, cand)
        for b in (base, cand):
            os.chmod(b, 0o755)
        key = {"default": sha1_of(base), "candidate": sha1_of(cand), "model": MODEL_TAG,
               "max_mispredict_rise": g["max_mispredict_rise"]}
        saved = self.path(f"guard-{name}-{MODEL_TAG}.json")
        if os.path.exists(saved):
            with open(saved) as f:
                old = json.load(f)
            if old.get("key") == key:
                return old["fires"]
        sweep = [os.path.join(BIN, "layout-sweep"), "--backend=sim", "--axis=env", "--from=0", "--to=0"]
        if MODEL:
            sweep.append(f"--cost={MODEL}")
        run([*sweep, f"--json={os.path.join(d, 'default.json')}", base, *self.p.run_args],
            cwd=self.w, env=self.p.run_env)
        r = subprocess.run([*sweep, f"--baseline={os.path.join(d, 'default.json')}",
                            f"--max-mispredict-rise={g['max_mispredict_rise']}",
                            f"--json={os.path.join(d, 'candidate.json')}", cand, *self.p.run_args],
                           cwd=self.w, env=self.p.run_env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True, errors="replace")
        if r.returncode not in (0, 1):
            sys.exit(f"keelbench: the guard's sweep failed ({r.returncode}):\n{r.stderr[-2000:]}")
        fires = r.returncode == 1
        # The rise as layout-sweep counted it (its events: CondMiss+IndMiss under a
        # model, else Bcm+Bim), for the log and the results.
        mis = [sum(m["counters"].get(e, 0) for e in (("CondMiss", "IndMiss") if "CondMiss" in m["counters"]
                                                     else ("Bcm", "Bim")))
               for j in ("default.json", "candidate.json")
               for m in json.load(open(os.path.join(d, j)))["measurements"][:1]]
        rise = mis[1] / mis[0] - 1 if mis[0] else 0.0
        reason = r.stderr.strip().splitlines()[-1] if fires else "gate: passed"
        print(f"keelbench: {self.p.name}: {name}: guard: mispredicts {rise:+.2%} on the train input: {reason}"
              + (f"; planned again with --block-order={g['fallback_block_order']}" if fires else ""),
              file=sys.stderr, flush=True)
        with open(saved + ".tmp", "w") as f:
            json.dump({"key": key, "fires": fires, "rise": rise, "mispredicts": mis, "reason": reason}, f, indent=1)
        os.replace(saved + ".tmp", saved)
        return fires

    # Each build: (objects, extra link flags, post-link step)
    def configs(self):
        plan = self.path("plan")
        return {
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
            # The recommended build: layout-order's defaults and the plan's .rsp files.
            "keel-rec": ([], [], None),
            **self.recipe_builds,
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
        if name == "keel-rec":
            self.prepare_rec()
        elif self.recipe_file(name):
            self.prepare_recipe(name)
        objs, extra, post = self.configs()[name]
        objs = list(objs)
        if outside_pad:
            objs.insert(self.split_at, pad_object(out + ".pad.o", outside_pad))
        pre = out + ".pre" if post else out
        if inside and post != "bolt":
            # The link flags one by one (a plan's link.rsp too), to edit them below.
            extra = [a for e in extra for a in (response_file_args(e[1:]) if e.startswith("@") else [e])]
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
                        sys.exit(f"keelbench: no pattern for {anchor} in {e}")
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

    def __init__(self, path, args, cwd, env=None):
        self.path, self.args, self.cwd, self.env = path, args, cwd, env
        self.known = {}
        if os.path.exists(path):
            for line in open(path):
                f = line.rstrip("\n").split("\t")
                if MODEL is None and len(f) == 2 + len(self.FIELDS):
                    self.known[(f[0], f[1])] = dict(zip(self.FIELDS, map(int, f[2:])))
                elif MODEL is not None and len(f) > 2 and f[-1] == "end":
                    # Under a model every event is kept, by name (the weights may change).
                    self.known[(f[0], f[1])] = {k: int(v) for k, v in (x.split("=") for x in f[2:-1])}
        self.lock = threading.Lock()
        self.running = {}

    def get(self, binary, i1):
        key = (sha1_of(binary), i1)
        with self.lock:
            # keel-sim measures every geometry at once: one run per binary.
            one = self.running.setdefault(key[0] if MODEL else key, threading.Lock())
        with one:
            return self._get(binary, key, i1)

    def _get(self, binary, key, i1):
        if key not in self.known:
            got = ({i1: cachegrind(binary, self.args, i1, self.cwd, self.env)} if MODEL is None
                   else keelsim(binary, self.args, self.cwd, self.env))
            with self.lock:
                with open(self.path, "a") as f:
                    for g, c in got.items():
                        self.known[(key[0], g)] = c
                        cols = ([str(c.get(k, 0)) for k in self.FIELDS] if MODEL is None
                                else [f"{k}={v}" for k, v in c.items()] + ["end"])
                        f.write("\t".join([key[0], g, *cols]) + "\n")
                    f.flush()
        c = self.known[key]
        return cost_of(c), c

    def all(self, jobs, n):
        with cf.ThreadPoolExecutor(n) as ex:
            return list(ex.map(lambda j: self.get(*j), jobs))


def load_recipe(path):
    """A recipe (bench/recommended.json's schema), or exit naming the file, line and
    column of what is wrong with it."""
    try:
        with open(path) as f:
            r = json.load(f)
    except OSError as e:
        sys.exit(f"keelbench: {path}: {e.strerror}")
    except json.JSONDecodeError as e:
        sys.exit(f"keelbench: {path}:{e.lineno}:{e.colno}: not JSON: {e.msg}")
    if not isinstance(r, dict) or not isinstance(r.get("name"), str):
        sys.exit(f"keelbench: {path}: a recipe is a JSON object with a \"name\" string")
    g = r.get("guard")
    if g is not None and not (isinstance(g, dict) and isinstance(g.get("max_mispredict_rise"), str)
                              and isinstance(g.get("fallback_block_order"), str)):
        sys.exit(f"keelbench: {path}: \"guard\" is an object with \"max_mispredict_rise\" (e.g. \"2%\") "
                 "and \"fallback_block_order\" (e.g. \"keep\") strings")
    for k, kind in (("layout_order_flags", list), ("link_flags", list), ("compile_flags", list),
                    ("bbsections", bool)):
        if k in r and not isinstance(r[k], kind):
            sys.exit(f"keelbench: {path}: \"{k}\" must be a {'list of strings' if kind is list else 'boolean'}")
        if kind is list and any(not isinstance(x, str) for x in r.get(k, [])):
            sys.exit(f"keelbench: {path}: \"{k}\" must be a list of strings")
    return r


def cost_of(c):
    return sum(WEIGHTS[k] * c.get(k, 0) for k in WEIGHTS)


# ---------------------------------------------------------------- the model
# MODEL None: cachegrind, one run per (binary, I1 geometry), the weights above.
# MODEL "NAME": keel-sim (this checkout's build/lib/keel-sim) once per binary for every
# I1 geometry, with --frontend=NAME, and the weights of `layout-sweep --cost=NAME
# --print-cost` (the sweep's own cost model: one source of truth for the weights).
MODEL = None
MODEL_TAG = "cachegrind"
# The conditional and indirect mispredict events of the model in use.
BRANCH = ("Bcm", "Bim")


def use_model(name):
    """Select the front-end model NAME (a layout-sweep --cost preset) for every
    measurement that follows; returns the weights."""
    global MODEL, WEIGHTS
    out = run([os.path.join(BIN, "layout-sweep"), f"--cost={name}", "--print-cost"])
    doc = json.loads(out)
    w = doc.get("weights", doc)
    if not isinstance(w, dict) or not w:
        sys.exit(f"keelbench: layout-sweep --cost={name} --print-cost printed no weights: {out[:200]}")
    global BRANCH
    MODEL, WEIGHTS = name, {k: float(v) for k, v in w.items()}
    # Results are kept per model and per build of the tool: a changed model never
    # reuses another's counts.
    global MODEL_TAG
    MODEL_TAG = f"{name}-{sha1_of(os.path.join(BUILD, 'lib', 'keel-sim', 'keel-sim-amd64-linux'))[:10]}"
    # keel-sim's model names its mispredicts CondMiss and IndMiss (docs/frontend-model.md).
    BRANCH = tuple(doc.get("branch_events", ("CondMiss", "IndMiss")))
    return WEIGHTS


def keelsim(binary, args, cwd, env=None):
    """keel-sim once on BINARY for every I1 geometry; {geometry name: {event: count}}."""
    lib = os.path.join(BUILD, "lib", "keel-sim")
    out = binary + f".{MODEL}.ks"
    argv = ["valgrind", "--tool=keel-sim", *(f"--I1={GEOMETRIES[g]}" for g in GEOMETRIES),
            f"--D1={D1}", f"--LL={LL}",
            # "cachegrind": keel-sim alone, exact against cachegrind, both geometries at once.
            *([] if MODEL == "cachegrind" else [f"--frontend={MODEL}"]), f"--keel-sim-out-file={out}",
            f"/dev/fd/{EXEC_FD}", *args]
    e = dict(env if env is not None else os.environ)
    e["VALGRIND_LIB"] = lib
    spawn_on_fd(argv, binary, cwd, e)
    geo, ev, res = {}, None, {}
    for line in open(out):
        f = line.split()
        if f and f[0] == "geometry":
            geo[int(f[1])] = f[2].split("=", 1)[1]
        elif f and f[0] == "events:":
            ev = f[1:]
        elif f and f[0] == "result" and f[1] == "0":
            res[int(f[2])] = dict(zip(ev, map(int, f[3:])))
    os.unlink(out)
    by_spec = {spec: g for g, spec in GEOMETRIES.items()}
    return {by_spec[geo[i]]: c for i, c in res.items()}


# Every binary runs as /dev/fd/100, so argv[0] (and AT_EXECFN) is the same string
# for every build and pad. The program sees its own path: Lua interns it in the `arg`
# table and its length moves the initial stack, which changed Ir, D1mr and Bcm by
# ~0.02% of the cost between two copies of one binary under different names.
EXEC_FD = 100


EXEC_LOCK = threading.Lock()


def spawn_on_fd(argv, binary, cwd, env):
    """Run ARGV (which names the program as /dev/fd/EXEC_FD) with BINARY on that
    descriptor; exit with the tail of its stderr if it fails."""
    # Put the binary on EXEC_FD only while this child is started (no preexec_fn,
    # which is unsafe with threads, and no other descriptor leaks into the child).
    fd = os.open(binary, os.O_RDONLY)
    try:
        with EXEC_LOCK:
            os.dup2(fd, EXEC_FD)
            try:
                p = subprocess.Popen(argv, cwd=cwd, pass_fds=(EXEC_FD,), text=True, errors="replace", env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            finally:
                os.close(EXEC_FD)
    finally:
        os.close(fd)
    _, err = p.communicate()
    if p.returncode != 0:
        sys.exit(f"keelbench: command failed ({p.returncode}): {' '.join(argv)} "
                 f"(/dev/fd/{EXEC_FD} = {binary})\n{err[-2000:]}")


def cachegrind(binary, args, i1, cwd, env=None):
    out = binary + f".{i1}.cg"
    argv = ["valgrind", "--tool=cachegrind", "--cache-sim=yes", "--branch-sim=yes",
            f"--I1={GEOMETRIES[i1]}", f"--D1={D1}", f"--LL={LL}", f"--cachegrind-out-file={out}",
            f"/dev/fd/{EXEC_FD}", *args]
    spawn_on_fd(argv, binary, cwd, env)
    c = cachegrind_summary(out)
    os.unlink(out)
    return c


def cachegrind_summary(path):
    """{event: count} from the events: and summary: lines of a cachegrind out file."""
    events = None
    for line in open(path):
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("summary:") and events:
            return dict(zip(events, map(int, line.split()[1:])))
    sys.exit(f"keelbench: {path}: no events and summary lines")


def spread(values):
    return 100 * (max(values) / min(values) - 1)


def sha1_of(path):
    h = hashlib.sha1()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


