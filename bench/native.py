"""corpus.py --native N: the test input's native run time, a third instrument beside
cachegrind and keel-sim (bench/keelbench.py).

For each pair (reference, build) one product run does the timing:

  layout-sweep --backend=time --axis=env --from=0 --to=0 --step=1 \\
      --compare=BUILD --aa-copies=1 --rounds=N --warmup=1 --json=FILE REFERENCE ARGS...

The env axis at offset 0 is one variant with nothing moved, so the sweep is only its
time backend (docs/sweep-statistics.md, "The time backend"): pinned to one CPU, a
warm-up round, then N rounds that each run the reference, the build and a
byte-identical copy of the reference once, in an order shuffled per round; every run
is started as /dev/fd/100 with the same argv[0] (--exec-as=fd), stdin /dev/null,
stdout and stderr to files, a fixed environment. Why the product and not a loop of
our own: the same pinning, shuffling, argv[0] and environment rules as every
`layout-sweep --backend=time`, and its --json keeps the raw per-round samples, so the
two binaries of one round make a pair.

The metric is the time backend's: the child's CPU time (user + sys from wait4). On
a machine shared with other builds, wall time also holds the time a run waited for
the CPU; the median wall ratio (unpaired: a ratio of medians) is printed beside.

Per pair: N ratios build/reference, one per round; their median, quartiles and
min-max; and the same for copy/reference of the same rounds (A/A: what the same
binary measures against itself in that run, the noise the ratio sits in). Pairs:
each build against the default link, each against BOLT when bolt is among the
builds, and one "copy" row per program, the default link against a byte-identical
copy of itself (A/A mode).

Results are kept in WORKDIR/<program>/builds/native-test-<input key>.tsv, one line
per (reference sha1, build sha1, rounds), appended and flushed per pair, so a rerun
measures nothing twice (a changed binary is measured again). Wall-clock is noisy on
a loaded 2-core machine: the table shows the mechanism and its noise, not a speed-up.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

import keelbench
from keelbench import sha1_of

WARMUP = 1


def log(msg):
    print(f"corpus: native: {msg}", file=sys.stderr, flush=True)


class NativeResults:
    """The per-round samples of each measured pair, kept in a TSV: reference sha1,
    build sha1, rounds, then the JSON of the samples."""

    def __init__(self, path):
        self.path, self.known = path, {}
        if os.path.exists(path):
            for line in open(path):
                f = line.rstrip("\n").split("\t")
                if len(f) == 4:
                    try:
                        self.known[(f[0], f[1], int(f[2]))] = json.loads(f[3])
                    except ValueError:
                        continue   # a line cut short by a killed run: measured again

    def has(self, ref, build, rounds):
        return (sha1_of(ref), sha1_of(build), rounds) in self.known

    def get(self, ref, build, args, cwd, rounds):
        key = (sha1_of(ref), sha1_of(build), rounds)
        if key not in self.known:
            got = time_pair(ref, build, args, cwd, rounds)
            with open(self.path, "a") as f:
                f.write("\t".join([key[0], key[1], str(rounds), json.dumps(got, sort_keys=True)]) + "\n")
                f.flush()
            self.known[key] = got
        return self.known[key]


def time_pair(ref, build, args, cwd, rounds):
    """One layout-sweep --backend=time run (the module's docstring); returns the raw
    per-round samples {ref, build, aa} (seconds of CPU time) and the wall medians."""
    tool = os.path.join(keelbench.BIN, "layout-sweep")
    with tempfile.TemporaryDirectory(prefix="keel-native-") as d:
        out = os.path.join(d, "time.json")
        argv = [tool, "--backend=time", "--axis=env", "--from=0", "--to=0", "--step=1",
                f"--compare={build}", "--aa-copies=1", f"--rounds={rounds}", f"--warmup={WARMUP}",
                f"--json={out}", ref, *args]
        r = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           errors="replace")
        if r.returncode != 0:
            sys.exit(f"corpus: native: command failed ({r.returncode}): {' '.join(argv)}\n{r.stderr[-2000:]}")
        doc = json.load(open(out))
    one = lambda ms: ms[0] if len(ms) == 1 and not ms[0]["failed"] else None
    base, other = one(doc["measurements"]), one(doc["compare"]["measurements"])
    aa = one(doc["noise_floor"])
    if not (base and other and aa):
        sys.exit(f"corpus: native: {' '.join(argv)}: expected one measured variant, its --compare and "
                 f"one A/A copy (a failed run?)")
    return {"ref": base["samples"], "build": other["samples"], "aa": aa["samples"],
            "wall_ref": base["counters"]["wall_s"], "wall_build": other["counters"]["wall_s"]}


def summary(xs):
    """(median, first quartile, third quartile, min, max) of XS."""
    q = statistics.quantiles(xs, n=4, method="inclusive") if len(xs) > 1 else [xs[0]] * 3
    return statistics.median(xs), q[0], q[2], min(xs), max(xs)


def pairs_of(names):
    """(reference, build) pairs: the default link against its copy (A/A), each build
    against the default link, each against BOLT when bolt is among the builds."""
    out = [("default", "copy")]
    out += [("default", n) for n in names if n != "default"]
    if "bolt" in names:
        out += [("bolt", n) for n in names if n != "bolt"]
    return out


def measure_native(name, B, prog, names, rounds, results):
    """The native rows of program NAME: [(build, reference, samples)]; RESULTS: the
    TSV that keeps them (NativeResults)."""
    bins = {n: B.build(n, B.path(n + ".bin")) for n in set(names) | {"default"}}
    # The A/A row's copy: the default link, byte for byte, under a name of the same length.
    copy = B.path("defcopy.bin")
    shutil.copyfile(bins["default"], copy)
    os.chmod(copy, 0o755)
    bins["copy"] = copy
    R = NativeResults(results)
    rows = []
    for ref, n in pairs_of(names):
        kept = R.has(bins[ref], bins[n], rounds)
        log(f"{name}: {n} against {ref}: {rounds} rounds" + (" (kept from an earlier run)" if kept else ""))
        rows.append((n, ref, R.get(bins[ref], bins[n], prog.test_args, B.w, rounds)))
    return rows


def table(name, rows, rounds):
    """The native rows of one program, ratios build/reference per round."""
    print(f"\n{name}: native CPU time of the test input (layout-sweep --backend=time: {rounds} rounds after "
          f"{WARMUP} warm-up, each running the reference, the build and a copy of the reference once, "
          f"shuffled, one pinned CPU); ratio = build / reference within a round; A/A = the reference's "
          f"copy / the reference, same rounds; wall = median wall / median wall (unpaired)")
    print(f"{'program':8} {'build':12} {'vs':8} {'pairs':>5} {'median':>7} {'IQR':>15} {'min-max':>15} "
          f"{'A/A med':>7} {'A/A min-max':>15} {'wall':>7} {'ref ms':>8}")
    for n, ref, s in rows:
        ratio = [b / r for b, r in zip(s["build"], s["ref"])]
        aa = [c / r for c, r in zip(s["aa"], s["ref"])]
        m, q1, q3, lo, hi = summary(ratio)
        am, _, _, alo, ahi = summary(aa)
        print(f"{name:8} {n:12} {ref:8} {len(ratio):5d} {m:7.4f} {q1:7.4f}-{q3:<7.4f} {lo:7.4f}-{hi:<7.4f} "
              f"{am:7.4f} {alo:7.4f}-{ahi:<7.4f} {s['wall_build'] / s['wall_ref']:7.4f} "
              f"{1000 * statistics.median(s['ref']):8.2f}", flush=True)
