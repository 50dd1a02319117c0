#!/usr/bin/env python3
"""Which instrument should the guard trust? For each corpus program, the order of
its two guarded builds (the Ext-TSP plan and the keep plan) under each model against
the order native timing gives them.

usage: guard-agreement.py [--models skylake,zen4,cachegrind] [--rounds 15] [--warmup 2]
                          [--no-native] [-j N] PROGRAM=WORKDIR ...

PROGRAM is a bench/corpus.py program (lua, lz4, bzip2, re2, ...), WORKDIR a corpus.py
work directory that already holds it (WORKDIR/PROGRAM/builds: its objects, default
link and default.fdata, as corpus.py leaves them; they are reused as corpus.py
reuses them, never profiled again when default.fdata is there). Per program:

  exttsp: layout-order --binary DEFAULT --profile default.fdata -o plan-agree-exttsp
          (the recommended defaults, as layout-optimize plans), objects compiled with
          clang @plan-agree-exttsp/compile.rsp, linked with @plan-agree-exttsp/link.rsp
  keep:   the same with --block-order=keep (layout-optimize's fallback), plan-agree-keep

Then on the test input (corpus.py's test_args):
  model M: layout-sweep --backend=sim --cost=M --axis=env --from=0 --to=3072
           --step=1024 --json=F BUILD ARGS, once per build; the mean cost over the
           four offsets (the guard's rule, docs/optimize.md), ratio exttsp/keep;
  native:  layout-sweep --backend=time --axis=env --from=0 --to=0 --step=1
           --compare=KEEP --aa-copies=1 --rounds=N --warmup=W --json EXTTSP ARGS
           (bench/native.py's time_pair): the median, IQR and min-max of the N
           per-round ratios exttsp/keep, and the min-max of the A/A ratios (a
           byte-identical copy of exttsp / exttsp, same rounds: the noise).

Native decides when the pairs' IQR lies on one side of 1 and the median is outside
the A/A min-max (a difference the same binary does not show against itself);
otherwise "no decision", counted apart, never as agreement. A model agrees when its
ratio is on the same side of 1 as a deciding native median.

Cached like the other benches: the model costs in WORKDIR/PROGRAM/builds/
agreement-model-<tools' sha1>-test-<input key>.tsv keyed by the binary's sha1 and
the model, the native samples in agreement-native-w<W>-test-<input key>.tsv
(bench/native.py's format), with the 1-minute load average before-after each pair in
agreement-native-w<W>-test-<input key>.load; a rerun measures nothing twice. Prints
the table (stdout; "load" is that load average: native time is CPU time on one
pinned CPU, but a loaded 2-core machine still moves it), then a sign test beside it
(the share of pairs below 1 and its binomial p, for the pairs and for the A/A ratios:
whether the A/A is calibrated), never counted as a decision; progress on stderr.
"""
import argparse
import hashlib
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

import corpus
import keelbench
import native
from keelbench import BIN, Builds, link, sha1_of

OFFSETS = ("--axis=env", "--from=0", "--to=3072", "--step=1024")


def log(msg):
    print(f"guard-agreement: {msg}", file=sys.stderr, flush=True)


def build_plan(B, name, flags):
    """The build NAME: layout-order (recommended defaults + FLAGS) into plan-agree-NAME,
    the objects compiled with @PLAN/compile.rsp (in a directory named by the plan's
    compile.rsp and bbsections.txt), linked with @PLAN/link.rsp; returns the binary."""
    plan = B.path(f"plan-agree-{name}")
    keelbench.run([os.path.join(BIN, "layout-order"), "--binary", B.default, "--profile", B.fdata, *flags,
                   "-o", plan])
    h = hashlib.sha1()
    for f in ("compile.rsp", "bbsections.txt"):
        p = os.path.join(plan, f)
        if os.path.exists(p):
            h.update(open(p, "rb").read())
    objs = B.p.compile(B.path(f"obj-agree-{h.hexdigest()[:12]}"), ["@" + os.path.join(plan, "compile.rsp")])
    out = B.path(f"agree-{name}.bin")
    link(objs, out, ["@" + os.path.join(plan, "link.rsp")], B.p.libs)
    return out


class ModelCosts:
    """Per (binary sha1, model): the costs at the four offsets, kept in a TSV."""

    def __init__(self, path):
        self.path, self.known = path, {}
        if os.path.exists(path):
            for line in open(path):
                f = line.rstrip("\n").split("\t")
                if len(f) == 4 and f[3].startswith("["):
                    try:
                        self.known[(f[0], f[1])] = json.loads(f[3])
                    except ValueError:
                        continue

    def get(self, binary, model, args, cwd, env, jobs):
        key = (sha1_of(binary), model)
        if key not in self.known:
            with tempfile.TemporaryDirectory(prefix="keel-agree-") as d:
                out = os.path.join(d, "m.json")
                argv = [os.path.join(BIN, "layout-sweep"), "--backend=sim", f"--cost={model}", *OFFSETS,
                        f"-j{jobs}", *(f"--env={k}={v}" for k, v in sorted(env.items())), f"--json={out}",
                        binary, *args]
                log(f"  {' '.join(argv[1:6])} ... {os.path.basename(binary)}")
                keelbench.run(argv, cwd=cwd)
                doc = json.load(open(out))
            ms = doc["measurements"]
            if len(ms) != 4 or any(m.get("failed") for m in ms):
                sys.exit(f"guard-agreement: {binary}: expected 4 measured offsets under {model}")
            costs = [m["cost"] for m in ms]
            with open(self.path, "a") as f:
                f.write("\t".join([key[0], model, "-", json.dumps(costs)]) + "\n")
            self.known[key] = costs
        return self.known[key]


def summary(xs):
    return native.summary(xs)


def decide(ratio, aa):
    """(median, q1, q3, lo, hi, aa_lo, aa_hi, verdict): verdict 'exttsp', 'keep' or
    None (no decision: the IQR spans 1 or the median is inside the A/A range)."""
    m, q1, q3, lo, hi = summary(ratio)
    _, _, _, alo, ahi = summary(aa)
    if q1 <= 1 <= q3 or alo <= m <= ahi:
        v = None
    else:
        v = "exttsp" if m < 1 else "keep"
    return m, q1, q3, lo, hi, alo, ahi, v


def sign_test(xs):
    """(share of XS below 1, two-sided exact binomial p of that many below 1 among the
    values not equal to 1): a finer look than the IQR, printed beside the table and
    never counted as a decision; the A/A ratios' own p says whether it is calibrated."""
    below = sum(1 for x in xs if x < 1)
    n = sum(1 for x in xs if x != 1)
    k = min(below, n - below)
    p = min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n) if n else 1.0
    return below / len(xs), p


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("programs", nargs="+", metavar="PROGRAM=WORKDIR")
    ap.add_argument("--models", default="skylake,zen4,cachegrind")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--no-native", action="store_true", help="build and measure the models only")
    ap.add_argument("-j", type=int, default=2)
    a = ap.parse_args()
    models = a.models.split(",")
    keelbench.KEEP = True
    corpus.JOBS = a.j
    native.WARMUP = a.warmup
    tools = hashlib.sha1("".join(sha1_of(p) for p in (
        os.path.join(BIN, "layout-sweep"),
        os.path.join(keelbench.BUILD, "lib", "keel-sim", "keel-sim-amd64-linux"))).encode()).hexdigest()[:10]
    rows = []
    for spec in a.programs:
        name, _, work = spec.partition("=")
        if name not in corpus.PROGRAMS or not work:
            sys.exit(f"guard-agreement: {spec}: expected PROGRAM=WORKDIR, PROGRAM one of {', '.join(corpus.PROGRAMS)}")
        pw = os.path.join(os.path.abspath(work), name)
        if not os.path.exists(os.path.join(pw, "builds", "default.fdata")):
            sys.exit(f"guard-agreement: {pw}/builds/default.fdata: run bench/corpus.py {work} --programs {name} first")
        log(f"{name}: the default build and its profile ({pw}/builds)")
        prog = corpus.PROGRAMS[name](pw)
        B = Builds(prog, os.path.join(pw, "builds"), a.j)
        B.prepare()
        bins = {"exttsp": build_plan(B, "exttsp", []), "keep": build_plan(B, "keep", ["--block-order=keep"])}
        key = corpus.workload_key(prog.test_args)
        M = ModelCosts(B.path(f"agreement-model-{tools}-test-{key}.tsv"))
        mr = {}
        for m in models:
            c = {n: M.get(b, m, prog.test_args, B.w, prog.sweep_env, a.j) for n, b in bins.items()}
            mr[m] = statistics.mean(c["exttsp"]) / statistics.mean(c["keep"])
            log(f"{name}: {m}: mean cost exttsp {statistics.mean(c['exttsp']):.0f}, keep "
                f"{statistics.mean(c['keep']):.0f}, ratio {mr[m]:.4f}")
        nat = None
        if not a.no_native:
            R = native.NativeResults(B.path(f"agreement-native-w{a.warmup}-test-{key}.tsv"))
            # The 1-minute load average before and after each measured pair, kept beside it.
            loads = B.path(f"agreement-native-w{a.warmup}-test-{key}.load")
            lkey = f"{sha1_of(bins['exttsp'])}-{sha1_of(bins['keep'])}-{a.rounds}"
            known = dict(l.split("\t", 1) for l in open(loads).read().splitlines()) if os.path.exists(loads) else {}
            before = open("/proc/loadavg").read().split()[0]
            log(f"{name}: native: {a.rounds} rounds exttsp against keep (load {before})")
            # time_pair: EXTTSP --compare=KEEP: ref = exttsp, build = keep, aa = a copy of exttsp.
            kept = R.has(bins["exttsp"], bins["keep"], a.rounds)
            s = R.get(bins["exttsp"], bins["keep"], prog.test_args, B.w, a.rounds)
            if not kept or lkey not in known:
                known[lkey] = f"{before}-{open('/proc/loadavg').read().split()[0]}" if not kept else "?"
                with open(loads, "a") as f:
                    f.write(f"{lkey}\t{known[lkey]}\n")
            load = known[lkey]
            ratio = [r / b for r, b in zip(s["ref"], s["build"])]
            aa = [c / r for c, r in zip(s["aa"], s["ref"])]
            nat = decide(ratio, aa) + (load, 1000 * statistics.median(s["build"])) + sign_test(ratio) + \
                sign_test(aa)
        same = sha1_of(bins["exttsp"]) == sha1_of(bins["keep"])
        rows.append((name, mr, nat, same))
    print(f"\nguard agreement: exttsp/keep on the test input; model: mean cost over env offsets 0,1024,2048,3072 "
          f"(layout-sweep --backend=sim --cost=M); native: layout-sweep --backend=time, {a.rounds} rounds after "
          f"{a.warmup} warm-up, median [IQR] of the per-round CPU-time ratios, A/A = exttsp's copy / exttsp")
    print(f"{'program':8} " + " ".join(f"{m:>10}" for m in models) +
          f" {'native':>7} {'IQR':>15} {'min-max':>15} {'A/A min-max':>15} {'load':>9} {'keep ms':>8} "
          + " ".join(f"{'agree ' + m:>16}" for m in models))
    tally = {m: [0, 0, 0] for m in models}   # agree, disagree, no decision
    signs = []
    for name, mr, nat, same in rows:
        line = f"{name:8} " + " ".join(f"{mr[m]:10.4f}" for m in models)
        if nat is None:
            print(line + "  (no native)" + ("  (the two builds are identical)" if same else ""))
            continue
        m, q1, q3, lo, hi, alo, ahi, v, load, ms, below, p, aabelow, aap = nat
        line += (f" {m:7.4f} {q1:7.4f}-{q3:<7.4f} {lo:7.4f}-{hi:<7.4f} {alo:7.4f}-{ahi:<7.4f} {load:>9} "
                 f"{ms:8.2f} ")
        for mod in models:
            mv = "exttsp" if mr[mod] < 1 else "keep" if mr[mod] > 1 else "tie"
            if v is None:
                word, i = "no decision", 2
            elif mv == v:
                word, i = "yes", 0
            else:
                word, i = "no", 1
            tally[mod][i] += 1
            line += f"{word:>16} "
        signs.append(f"{name:8} {below:8.2f} {p:8.2g} {aabelow:8.2f} {aap:8.2g}")
        print(line.rstrip() + ("  (the two builds are identical)" if same else ""))
    if not a.no_native:
        print("agreement (agree / disagree / native no decision): " +
              ", ".join(f"{m} {t[0]}/{t[1]}/{t[2]}" for m, t in tally.items()))
        print("\nsign test (not a decision): the share of pairs exttsp/keep below 1 and its two-sided binomial p; "
              "the same for the A/A ratios (calibration: a share near 0.5, p not small)")
        print(f"{'program':8} {'<1':>8} {'p':>8} {'A/A <1':>8} {'A/A p':>8}")
        print("\n".join(signs))


if __name__ == "__main__":
    main()
