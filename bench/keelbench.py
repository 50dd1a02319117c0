"""Shared machinery of bench/layout-compare.py and bench/corpus.py: the programs built
from source, the builds (default, cdsort, bolt, keel-*) made from one profile, the
perturbations (1) outside and (2) inside, and the measurements, each one binary measured
by the product (`layout-sweep --json`, measure()) and kept in a TSV keyed by the
binary's hash (see layout-compare.py's docstring). keel-rec is the product's own
command: `layout-optimize` on a build of the program (Builds.prepare_rec).

KEEL_BUILD=dir selects the Keel tools (dir/bin/layout-record, layout-order, ...);
default: this checkout's build/.
"""
import hashlib
import concurrent.futures as cf
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("KEEL_BUILD", os.path.join(TOP, "build"))
BIN = os.path.join(BUILD, "bin")
CC = "clang-22"
LLD = "/usr/lib/llvm-22/bin/ld.lld"
GEOMETRIES = {"32K": "32768,8,64", "8K": "8192,2,64"}
D1, LL = "32768,8,64", "262144,8,64"
# The cost weights of the model in use, for the tables' legend only: every cost is the
# product's (measure()); `layout-sweep --cost=NAME --print-cost` names the weights.
WEIGHTS = None
KEEP = False  # --keep: reuse objects, profile and binaries already in WORKDIR
# keel-rec is the product's own recommended build, made by layout-optimize
# (Builds.prepare_rec). recommended.json spells the same recipe out as flag lists
# (test/tools/recommended/default.test checks that they agree with layout-order's
# defaults); --recipe builds of its schema use its guard (product_guard).
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
        # "train") and the environment the profile and layout-optimize run with (None:
        # this process's); sweep_env: what the measurements add to the product's fixed
        # environment (layout-sweep --env).
        self.test_args, self.run_env, self.sweep_env = None, None, {}

    def split_at(self, objs):
        """Where perturbation (1)'s pad object goes in the link's object list."""
        return len(objs) // 2

    def binary_name(self):
        """The program's file name as its build links it (layout-optimize --binary)."""
        return self.name

    def product_build(self, d):
        """(directory, argv) of the build layout-optimize runs for keel-rec: a script
        (D/build.sh) that compiles the sources as compile() does and links them as
        link() does, with $CC (keel-cc, which adds the product's profiling flags),
        into D/build/NAME."""
        b = os.path.join(d, "build")
        os.makedirs(b, exist_ok=True)
        lines, objs = ["set -e"], []
        for c in self.sources():
            o = os.path.join(b, os.path.basename(c)[:-2] + ".o")
            objs.append(o)
            lines.append('"$CC" ' + " ".join(shlex.quote(a) for a in ["-c", *self.defines(b), *CFLAGS, c, "-o", o]))
        lines.append('"$CC" ' + " ".join(shlex.quote(a) for a in ["-fuse-ld=lld", f"--ld-path={LLD}", "-Wl,--emit-relocs",
                                                                  *objs, *self.libs, "-o",
                                                                  os.path.join(b, self.binary_name())]))
        script = os.path.join(d, "build.sh")
        with open(script, "w") as f:
            f.write("\n".join(lines) + "\n")
        return d, ["sh", script]

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

    def prepare_rec(self, build_name="keel-rec", flags=()):
        """keel-rec, made by the product's one command (docs/optimize.md): `layout-optimize
        --workload=TRAIN --binary=NAME -- BUILD` in a directory of its own (rec/), BUILD
        the program's build run with CC=keel-cc (Program.product_build: the bench's own
        compiles and link for the programs it compiles itself, the package's build for
        the recorded ones). It profiles, plans (layout-order's defaults, then
        --block-order=keep), rebuilds and guards as a user's run does; keel-rec is its
        kept program, byte for byte. The padded variants of the sweep relink the kept
        build's own objects and link flags (its rebuild.txt's link); when the guard kept
        the default build, they are the bench's default link, as before. A recipe with
        "layout_optimize_flags" (BUILD_NAME) is made the same way with those flags added,
        in rec-BUILD_NAME/."""
        if build_name in self.recipe_builds:
            return
        d = self.path("rec" if build_name == "keel-rec" else "rec-" + build_name)
        os.makedirs(d, exist_ok=True)
        cwd, build = self.p.product_build(d)
        opt = os.path.join(d, "keel-optimize")
        tool = os.path.join(BIN, "layout-optimize")
        name = self.p.binary_name()
        argv = [tool, f"--workload={' '.join(shlex.quote(a) for a in self.p.run_args)}", f"--binary={name}",
                f"--dir={opt}", f"-j{self.jobs}", f"--cost={guard_cost()}",
                *(f"--env={k}={v}" for k, v in sorted(self.p.sweep_env.items())), *flags]
        tools = ["layout-optimize", "layout-order", "layout-record", "layout-sweep", "keel-cc"]
        key = {"argv": argv + ["--", *build], "cwd": cwd, "tools": [sha1_of(os.path.join(BIN, t)) for t in tools],
               "keel-sim": sha1_of(os.path.join(BUILD, "lib", "keel-sim", "keel-sim-amd64-linux")),
               "inputs": [sha1_of(a) for a in self.p.run_args if os.path.isfile(a)],
               "build": [sha1_of(a) for a in build if os.path.isfile(a)]}
        saved = os.path.join(d, "key.json")
        # Reused as the bench reuses objects and profiles (KEEP: corpus.py, --keep): the
        # same command, tools, inputs and build script.
        if not (KEEP and os.path.exists(saved) and json.load(open(saved)) == key
                and os.path.exists(os.path.join(opt, "report.json"))):
            print(f"keelbench: {self.p.name}: {build_name}: {' '.join(shlex.quote(a) for a in argv)} (in {cwd})",
                  file=sys.stderr, flush=True)
            if os.path.exists(saved):
                os.unlink(saved)
            # --force: every step again (this directory may hold a run with other tools).
            run(["nice", *argv, "--force", "--", *build], cwd=cwd, env=self.p.run_env)
            with open(saved + ".tmp", "w") as f:
                json.dump(key, f, indent=1)
            os.replace(saved + ".tmp", saved)
        with open(os.path.join(opt, "report.json")) as f:
            rep = json.load(f)
        if build_name == "keel-rec":
            self.rec_binary = os.path.join(opt, name)
        print(f"keelbench: {self.p.name}: {build_name}: layout-optimize kept {rep['kept']}: {rep['decision']['why']}",
              file=sys.stderr, flush=True)
        if rep["kept"] == "default":
            self.recipe_builds[build_name] = (self.objs, [], None)
            return
        # The kept build's link, the last line of its rebuild.txt: `cd DIR && CC ARGS...`.
        line = open(os.path.join(opt, rep["kept"], "rebuild.txt")).read().splitlines()[-1]
        w = shlex.split(line)
        if w[:1] != ["cd"] or w[2:3] != ["&&"]:
            sys.exit(f"keelbench: {opt}/{rep['kept']}/rebuild.txt: its last line is not `cd DIR && LINK`: {line}")
        lcwd, args = w[1], w[4:]
        objs, extra, skip = [], [], False
        for a in args:
            if skip:
                skip = False
            elif a == "-o":
                skip = True
            elif not a.startswith(("-", "@")) and a.endswith((".o", ".a")):
                objs.append(os.path.normpath(os.path.join(lcwd, a)))
            else:
                extra.append(a)
        self.recipe_builds[build_name] = (objs, extra, None)

    def prepare_recipe(self, name):
        """A recipe build (bench/recommended.json's schema): layout-order with its
        flags into plan-rec (keel-rec) or plan-NAME, objects recompiled with the plan's
        bbsections.txt when it asks for that and the plan has one, its link flags
        ({plan} = the plan)."""
        if name in self.recipe_builds:
            return
        r = load_recipe(self.recipe_file(name))
        if "layout_optimize_flags" in r:
            # keel-rec with more layout-optimize flags: the product's command makes it.
            self.prepare_rec(name, r["layout_optimize_flags"])
            return
        plan = self.path("plan-rec" if name == "keel-rec" else "plan-" + name)
        flags = r.get("layout_order_flags", [])
        cands = [("recipe", self.plan_recipe(r, flags, plan))]
        g = r.get("guard")
        if g:
            order = f"--block-order={g['fallback_block_order']}"
            flags = [order if f.startswith("--block-order=") else f for f in flags]
            if order not in flags:
                flags.append(order)
            cands.append(("fallback", self.plan_recipe(r, flags, plan + "-fallback")))
        self.recipe_builds[name] = self.product_guard(name, cands) if g else cands[0][1]

    def plan_recipe(self, r, flags, plan):
        """layout-order with FLAGS into PLAN, the objects the recipe R compiles, and
        its link flags: (objects, link flags, post-link step)."""
        run([os.path.join(BIN, "layout-order"), "--binary", self.default, "--profile", self.fdata,
             *flags, "-o", plan])
        bbs = os.path.join(plan, "bbsections.txt")
        objs = (self.bb_compile(bbs, r.get("compile_flags", [])) if r.get("bbsections") and os.path.exists(bbs)
                else self.objs)
        return (objs, [f.replace("{plan}", plan) for f in r.get("link_flags", [])], None)

    def product_guard(self, name, cands):
        """The product's guard on the builds CANDS ([(name, (objects, link flags, None))],
        in the order judged) against the default link: `layout-optimize --guard-only`
        (docs/optimize.md) measures each on the train input over the environment
        offsets its guard step uses, with --cost=MODEL (the product's default model
        without one), and keeps the first whose mean total cost is below the default
        link's; returns the kept build's configuration (the default link's when none
        is kept). The decision is kept in guard-NAME-MODEL.json, keyed by the binaries'
        and the tools' sha1."""
        d = self.path("guard-" + name)
        bins = {}
        for n, cfg in [("default", None), *cands]:
            os.makedirs(os.path.join(d, n), exist_ok=True)
            out = bins[n] = os.path.join(d, n, "prog")
            if cfg is None:
                shutil.copyfile(self.default, out)
                os.chmod(out, 0o755)
            else:
                link(cfg[0], out, cfg[1], self.p.libs)
        tool = os.path.join(BIN, "layout-optimize")
        argv = [tool, "--guard-only", f"--dir={d}", f"-j{self.jobs}", f"--cost={guard_cost()}",
                *(f"--env={k}={v}" for k, v in sorted(self.p.sweep_env.items())),
                f"--workload={' '.join(shlex.quote(a) for a in self.p.run_args)}", f"--default={bins['default']}",
                *(f"--candidate={n}={bins[n]}" for n, _ in cands)]
        key = {"binaries": {n: sha1_of(b) for n, b in bins.items()}, "model": MODEL_TAG,
               "tools": [sha1_of(tool), sha1_of(os.path.join(BIN, "layout-sweep"))],
               "argv": argv[1:]}
        saved = self.path(f"guard-{name}-{MODEL_TAG}.json")
        doc = None
        if os.path.exists(saved):
            with open(saved) as f:
                old = json.load(f)
            if old.get("key") == key:
                doc = old["guard"]
        if doc is None:
            doc = json.loads(run(argv, cwd=self.w, env=self.p.run_env))
            with open(saved + ".tmp", "w") as f:
                json.dump({"key": key, "guard": doc}, f, indent=1)
            os.replace(saved + ".tmp", saved)
        kept = doc["decision"]["kept"]
        print(f"keelbench: {self.p.name}: {name}: guard (layout-optimize --guard-only): {doc['decision']['why']}",
              file=sys.stderr, flush=True)
        return dict(cands).get(kept, (self.objs, [], None))

    def check_rec(self, relinked):
        """Say once whether the bench's unpadded relink of keel-rec is the product's
        binary byte for byte (then every padded variant differs from it by the pad)."""
        if getattr(self, "rec_checked", False):
            return
        self.rec_checked = True
        same = sha1_of(relinked) == sha1_of(self.rec_binary)
        print(f"keelbench: {self.p.name}: keel-rec: the bench's unpadded relink {relinked} is "
              f"{'identical to' if same else 'NOT identical to'} layout-optimize's {self.rec_binary}"
              + ("" if same else " (the default build was kept)" if self.configs()["keel-rec"][0] is self.objs else ""),
              file=sys.stderr, flush=True)

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
        """Perturbation (2)'s function: the k-th hottest of the profile."""
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
        if name == "keel-rec" and not outside_pad and not inside and getattr(self, "rec_binary", None):
            self.check_rec(pre)
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
    """The product's measurements (measure(): one layout-sweep run per binary, every I1
    geometry), keyed by (sha1 of the binary, geometry) and kept in a TSV so a killed run
    resumes without measuring anything twice. The TSV's name carries measure_tag() (the
    model and the sha1 of the measuring tools), so another model or another build of
    layout-sweep or keel-sim never reuses these counts. ENV: variables the program
    needs beyond the product's fixed environment (layout-sweep --env NAME=VALUE)."""

    def __init__(self, path, args, cwd, env=None):
        self.path, self.args, self.cwd, self.env = path, args, cwd, dict(env or {})
        self.known = {}
        if os.path.exists(path):
            for line in open(path):
                f = line.rstrip("\n").split("\t")
                # sha1, geometry, cost=C, EVENT=N..., end (a row cut short by a kill has no end)
                if len(f) > 3 and f[-1] == "end" and f[2].startswith("cost="):
                    c = {k: int(v) for k, v in (x.split("=") for x in f[3:-1])}
                    self.known[(f[0], f[1])] = (float(f[2][5:]), c)
        self.lock = threading.Lock()
        self.running = {}

    def get(self, binary, i1):
        key = (sha1_of(binary), i1)
        with self.lock:
            # One layout-sweep run measures every geometry: one run per binary.
            one = self.running.setdefault(key[0], threading.Lock())
        with one:
            return self._get(binary, key, i1)

    def _get(self, binary, key, i1):
        if key not in self.known:
            got = measure(binary, self.args, self.cwd, self.env)
            with self.lock:
                with open(self.path, "a") as f:
                    for g, (cost, c) in got.items():
                        self.known[(key[0], g)] = (cost, c)
                        f.write("\t".join([key[0], g, f"cost={cost!r}", *(f"{k}={v}" for k, v in sorted(c.items())),
                                           "end"]) + "\n")
                    f.flush()
        return self.known[key]

    def all(self, jobs, n):
        with cf.ThreadPoolExecutor(n) as ex:
            return list(ex.map(lambda j: self.get(*j), jobs))


def measure(binary, args, cwd, env=None):
    """{geometry name: (cost, {event: count})} of BINARY ARGS, measured by the product:
    a one-point layout-sweep (--axis=env at offset 0: the sweep's own fixed environment,
    the binary on /dev/fd/100) with every I1 geometry of GEOMETRIES (--I1 once each),
    --backend=sim --cost=MODEL under a model, else --backend=cachegrind (one cachegrind
    run per geometry); cost and counters from its --json (the cost table is the
    product's, checker/sweep/lib/SimBackend.cpp). ENV: --env NAME=VALUE additions."""
    d = tempfile.mkdtemp(prefix="keelbench-measure-")
    try:
        out = os.path.join(d, "m.json")
        argv = [os.path.join(BIN, "layout-sweep"),
                *([f"--backend=sim", f"--cost={MODEL}"] if MODEL else ["--backend=cachegrind"]),
                "--axis=env", "--from=0", "--to=0", "-j1", *(f"--I1={GEOMETRIES[g]}" for g in GEOMETRIES),
                f"--D1={D1}", f"--LL={LL}", *(f"--env={k}={v}" for k, v in sorted((env or {}).items())),
                f"--json={out}", binary, *args]
        run(argv, cwd=cwd)
        res = {}
        for g, spec in GEOMETRIES.items():
            path = os.path.join(d, "m.i1-" + spec.replace(",", "-") + ".json")
            with open(path) as f:
                doc = json.load(f)
            m = [x for x in doc.get("measurements", []) if not x.get("failed")]
            if len(m) != 1:
                sys.exit(f"keelbench: {' '.join(argv)}: {path} has {len(m)} measurements, not 1")
            res[g] = (m[0]["cost"], m[0]["counters"])
        return res
    finally:
        shutil.rmtree(d, ignore_errors=True)


def cachegrind_summary(path):
    """{event: count} from the events: and summary: lines of a cachegrind out file: for
    the benchmarks of keel-sim itself against cachegrind (keel-sim-exact.py,
    keel-sim-sweep.py), never for the builds' measurements (measure())."""
    events = None
    for line in open(path):
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("summary:") and events:
            return dict(zip(events, map(int, line.split()[1:])))
    sys.exit(f"keelbench: {path}: no events and summary lines")


def measure_tag():
    """Names a measurement cache: the model and the sha1 of the tools that measure
    (layout-sweep, keel-sim's tool)."""
    h = hashlib.sha1()
    for t in (os.path.join(BIN, "layout-sweep"), os.path.join(BUILD, "lib", "keel-sim", "keel-sim-amd64-linux")):
        h.update((sha1_of(t) if os.path.exists(t) else "-").encode())
    return f"sweep-{MODEL or 'cachegrind-backend'}-{h.hexdigest()[:10]}"


def load_recipe(path):
    """A recipe (bench/recommended.json's schema), or exit naming the file, line and
    column of what is wrong with it. A recipe with "layout_optimize_flags" (a list of
    layout-optimize options, e.g. bench/recipes/keel-rec-ls.json) is keel-rec made with
    those options added (Builds.prepare_rec); its other keys are not read."""
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
                    ("layout_optimize_flags", list), ("bbsections", bool)):
        if k in r and not isinstance(r[k], kind):
            sys.exit(f"keelbench: {path}: \"{k}\" must be a {'list of strings' if kind is list else 'boolean'}")
        if kind is list and any(not isinstance(x, str) for x in r.get(k, [])):
            sys.exit(f"keelbench: {path}: \"{k}\" must be a list of strings")
    return r


def formula():
    """The cost of the model in use as `layout-sweep --print-cost` gives it, for legends
    ("1*Ir + 10*I1mr + ..."): the bench holds no weights of its own."""
    w = WEIGHTS if WEIGHTS is not None else print_cost("cachegrind")[0]
    return " + ".join(f"{float(v):g}*{k}" for k, v in sorted(w.items()))


def print_cost(name):
    """(weights, branch events) of `layout-sweep --cost=NAME --print-cost`."""
    out = run([os.path.join(BIN, "layout-sweep"), f"--cost={name}", "--print-cost"])
    doc = json.loads(out)
    w = doc.get("weights", doc)
    if not isinstance(w, dict) or not w:
        sys.exit(f"keelbench: layout-sweep --cost={name} --print-cost printed no weights: {out[:200]}")
    return w, doc.get("branch_events")


# ---------------------------------------------------------------- the model
# MODEL None: layout-sweep --backend=cachegrind (cachegrind's events and the sweep's
# cachegrind cost). MODEL "NAME": layout-sweep --backend=sim --cost=NAME (keel-sim once
# per binary for every I1 geometry, with NAME's front-end model unless NAME is
# cachegrind). The weights are the product's; WEIGHTS only names them in the tables
# (`layout-sweep --cost=NAME --print-cost`).
MODEL = None
MODEL_TAG = "cachegrind"


def guard_cost():
    """The --cost of layout-optimize's guard: the front-end model measured with, else the
    product's default (skylake). cachegrind's predictor never decides (layout-optimize
    refuses --cost=cachegrind), so under --model cachegrind, or no model, keel-rec and
    the recipes' guards are the front-end model's: the same builds the skylake tables measure."""
    return MODEL if MODEL in ("skylake", "zen4") else "skylake"
# The conditional and indirect mispredict events of the model in use.
BRANCH = ("Bcm", "Bim")


def use_model(name):
    """Select the front-end model NAME (a layout-sweep --cost preset) for every
    measurement that follows; returns its weights (for display)."""
    global MODEL, WEIGHTS, BRANCH, MODEL_TAG
    w, branch = print_cost(name)
    MODEL, WEIGHTS = name, {k: float(v) for k, v in w.items()}
    # The guard's decisions are kept per model and per build of keel-sim.
    MODEL_TAG = f"{name}-{sha1_of(os.path.join(BUILD, 'lib', 'keel-sim', 'keel-sim-amd64-linux'))[:10]}"
    # keel-sim's model names its mispredicts CondMiss and IndMiss (docs/frontend-model.md).
    BRANCH = tuple(branch or ("CondMiss", "IndMiss"))
    return WEIGHTS


def spread(values):
    """The product's spread, in percent: keel::sweep::spread (checker/sweepreport/lib/Stats.cpp),
    max/min - 1, 0 when the minimum is not positive. The bench computes it over its
    own perturbations (pad objects between the objects, a pad after the k-th hottest
    function, BOLT re-optimising each padded link), each binary measured by measure()."""
    lo = min(values) if values else 0
    return 100 * (max(values) / lo - 1) if lo > 0 else 0.0


def sha1_of(path):
    h = hashlib.sha1()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


