#!/bin/sh
# Measure Minami et al.'s mM-nL2-kF kernel family (docs/references.md) on this machine against the
# model's estimate, with the machine's own measured ceilings.
#
#   bench/roofline-family.sh [OUTDIR]        (KEEL_BUILD=build dir, default build)
#
# Steps:
#  1. `layout-roofline machine`: this machine's ceilings (read kernels).
#  2. The family's own "basic tests" (the paper's section 3.2): the same
#     generated code with only memory arrays (mM-0L2) or only L2 arrays
#     (0M-nL2). The best of them give a second set of ceilings, measured with
#     the family's access pattern but without mixing memory and L2 arrays:
#     family-ceilings.json. (The mixed kernels are never used to set a
#     ceiling.)
#  3. For each mixed kernel: generate it (examples/roofline/gen-family.py),
#     compile it (clang-22 -O2 -mavx2 -mfma), let the RooflineAnalysis plugin
#     count m, nL2, nL1_S, nL1_L and k from the IR, estimate it with
#     `layout-roofline model` (the default --overlap=auto, which takes the
#     mode `machine` measured on this machine (its "level_overlap"), and
#     explicitly the paper's max() and --overlap=sum, each with both sets of
#     ceilings), run it, and run it again built with
#     --prefetch=1024 (software prefetch of the memory arrays: a diagnostic
#     for memory-level parallelism, not part of the family).
#
# Timed runs are pinned to one CPU under SCHED_FIFO when possible
# (ROOFLINE_RUN, default "chrt -f 1 taskset -c 1" for root, else nothing):
# on a machine shared with other work this keeps the core to ourselves (not
# the shared L3 and DRAM). Every kernel reports the best 1 MiB-per-array
# chunk of REPS (5) passes; the machine tool takes the best of N likewise.
#
# Writes OUTDIR/family.md (the tables), OUTDIR/family.json,
# OUTDIR/family.svg (the chart), OUTDIR/machine.*, OUTDIR/family-ceilings.json.
# Not part of CI: it takes about three minutes and needs ~2 GB of memory.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${KEEL_BUILD:-$top/build}
out=${1:-${TMPDIR:-/tmp}/roofline-family}
tool=$build/bin/layout-roofline
plugin=$build/lib/KeelRoofline.so
cc=${CC:-clang-22}
opt=${OPT:-/usr/lib/llvm-22/bin/opt}
prefetch=${ROOFLINE_PREFETCH:-1024}
mkdir -p "$out"

if [ -z "${ROOFLINE_RUN+set}" ]; then
  if [ "$(id -u)" = 0 ] && command -v chrt >/dev/null && command -v taskset >/dev/null &&
     chrt -f 1 true 2>/dev/null; then
    ROOFLINE_RUN="chrt -f 1 taskset -c 1"
  else
    ROOFLINE_RUN=""
  fi
fi

basic="1M-0L2-1F 2M-0L2-2F 3M-0L2-3F 4M-0L2-4F
0M-4L2-4F 0M-8L2-8F 0M-12L2-12F 0M-16L2-16F"
kernels="1M-0L2-1F 2M-0L2-2F 3M-0L2-3F 4M-0L2-4F
1M-2L2-3F 1M-4L2-5F 1M-6L2-7F 1M-8L2-9F 1M-12L2-13F 1M-16L2-17F
2M-2L2-4F 2M-4L2-6F 2M-8L2-10F 2M-12L2-14F
3M-6L2-9F 3M-12L2-15F 2M-4L2-16F 1M-8L2-25F"

# Diagnostic, not in the medians: memory arrays plus arithmetic only (no L2
# arrays). If memory time and in-core time overlapped, these would run at
# max(Mtime, compute time).
diag="1M-0L2-9F 1M-0L2-17F 1M-0L2-33F 2M-0L2-18F"

cat /proc/loadavg > "$out/load-before"
echo "== machine ceilings (${ROOFLINE_RUN:-no pinning})" >&2
# shellcheck disable=SC2086
$ROOFLINE_RUN "$tool" machine --json -o "$out/machine.json" --svg="$out/machine.svg"

build_kernel() { # name variant-suffix [gen-family options]
  name=$1 suffix=$2
  shift 2
  python3 "$top/examples/roofline/gen-family.py" "$name" "$@" -o "$out/$name$suffix.c"
  "$cc" -O2 -mavx2 -mfma "$out/$name$suffix.c" -o "$out/$name$suffix"
}

: > "$out/basic.jsonl"
for k in $basic; do
  echo "== basic $k" >&2
  build_kernel "$k" ""
  # shellcheck disable=SC2086
  $ROOFLINE_RUN "$out/$k" >> "$out/basic.jsonl"
done

# Family-shape ceilings: best memory-only and best L2-only rate (bytes the
# loads move: 8 B per array per element). L1band and Ppeak stay the machine's.
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
c = json.load(open(f"{out}/machine.json"))["ceilings"]["one_core"]
mem, l2 = 0.0, 0.0
for line in open(f"{out}/basic.jsonl"):
    r = json.loads(line)
    gbs = 8 * (r["m"] + r["nL2"]) * r["gflops"] / r["k"]
    if r["nL2"] == 0:
        mem = max(mem, gbs)
    elif r["m"] == 0:
        l2 = max(l2, gbs)
m = json.load(open(f"{out}/machine.json"))
fc = {"name": "family-shape (mM-0L2 and 0M-nL2 kernels)", "Mband": mem,
      "L2band": l2, "L1band": c["L1band"], "Ppeak": c["Ppeak"]}
# The same machine: its measured level overlap applies to these ceilings too.
if "level_overlap" in m:
    fc["level_overlap"] = m["level_overlap"]
json.dump(fc, open(f"{out}/family-ceilings.json", "w"), indent=1)
PY

: > "$out/runs.jsonl"
: > "$out/runs-prefetch.jsonl"
for k in $kernels; do
  echo "== $k" >&2
  build_kernel "$k" ""
  build_kernel "$k" ".pf" --prefetch="$prefetch"
  "$cc" -O2 -mavx2 -mfma -emit-llvm -S "$out/$k.c" -o "$out/$k.ll"
  "$opt" -load-pass-plugin="$plugin" -passes=keel-roofline -disable-output \
    -keel-roofline-json="$out/$k.pass.json" "$out/$k.ll"
  for c in machine family; do
    if [ $c = machine ]; then mf=$out/machine.json; else mf=$out/family-ceilings.json; fi
    "$tool" model --machine="$mf" --input="$out/$k.pass.json" \
      --json -o "$out/$k.$c.auto.json"
    "$tool" model --machine="$mf" --input="$out/$k.pass.json" \
      --overlap=max --json -o "$out/$k.$c.max.json"
    "$tool" model --machine="$mf" --input="$out/$k.pass.json" \
      --overlap=sum --json -o "$out/$k.$c.sum.json"
  done
  # shellcheck disable=SC2086
  $ROOFLINE_RUN "$out/$k" >> "$out/runs.jsonl"
  # shellcheck disable=SC2086
  $ROOFLINE_RUN "$out/$k.pf" >> "$out/runs-prefetch.jsonl"
done
: > "$out/diag.jsonl"
: > "$out/diag-prefetch.jsonl"
for k in $diag; do
  echo "== diagnostic $k" >&2
  build_kernel "$k" ""
  build_kernel "$k" ".pf" --prefetch="$prefetch"
  # shellcheck disable=SC2086
  $ROOFLINE_RUN "$out/$k" >> "$out/diag.jsonl"
  # shellcheck disable=SC2086
  $ROOFLINE_RUN "$out/$k.pf" >> "$out/diag-prefetch.jsonl"
done
cat /proc/loadavg > "$out/load-after"

python3 - "$out" "$ROOFLINE_RUN" $kernels <<'PY'
import json, statistics, sys
out, runner, names = sys.argv[1], sys.argv[2], sys.argv[3:]
machine = json.load(open(f"{out}/machine.json"))
c = machine["ceilings"]["one_core"]
fc = json.load(open(f"{out}/family-ceilings.json"))
def jsonl(path):
    return {r["name"]: r for r in map(json.loads, open(path))}
runs, pf, basic = jsonl(f"{out}/runs.jsonl"), jsonl(f"{out}/runs-prefetch.jsonl"), jsonl(f"{out}/basic.jsonl")
diag, diag_pf = jsonl(f"{out}/diag.jsonl"), jsonl(f"{out}/diag-prefetch.jsonl")
def loop0(path):
    return next(x for x in json.load(open(path))["kernels"] if x["name"] == "kernel:loop0")
variants = [(c_, o_) for c_ in ("machine", "family") for o_ in ("auto", "max", "sum")]
lo = machine.get("level_overlap")
auto_mode = json.load(open(f"{out}/{names[0]}.machine.auto.json"))["overlap"]
auto_desc = f'{auto_mode["mode"]}, {auto_mode["why"]}'
rows, points = [], []
errs = {v: [] for v in variants}
errs_pf = {v: [] for v in variants}
for n in names:
    k = loop0(f"{out}/{n}.machine.max.json")
    est = {v: loop0(f"{out}/{n}.{v[0]}.{v[1]}.json")["estimate"] for v in variants}
    meas, meas_pf = runs[n]["gflops"], pf[n]["gflops"]
    row = {"kernel": n, "m": k["m"], "nL2": k["nL2"], "k": k["k"],
           "counts": f'{k["m"]:g}M-{k["nL2"]:g}L2-{k["k"]:g}F' +
                     (f' (+{k["nL1_S"]:g} S, {k["nL1_L"]:g} L)' if k["nL1_S"] or k["nL1_L"] else ""),
           "measured": meas, "measured_prefetch": meas_pf}
    for v in variants:
        g = est[v]["gflops"]
        row[f"estimate_{v[0]}_{v[1]}"] = g
        row[f"bound_{v[0]}_{v[1]}"] = est[v]["bound"]
        row[f"error_{v[0]}_{v[1]}"] = (meas - g) / g
        errs[v].append(abs((meas - g) / g))
        errs_pf[v].append(abs((meas_pf - g) / g))
    # Per element (ns): each level's transfer time with the family-shape
    # ceilings (the paper charges m+n arrays at L2), the measured time.
    row["mtime_ns"] = 8 * k["m"] / fc["Mband"]
    row["l2time_ns"] = 8 * (k["m"] + k["nL2"]) / fc["L2band"]
    row["l2only_ns"] = 8 * k["nL2"] / fc["L2band"]
    row["measured_ns"] = k["k"] / meas
    row["measured_prefetch_ns"] = k["k"] / meas_pf
    rows.append(row)
    points.append({"label": n, "intensity": k["k"] / (8 * k["m"]),
                   "gflops": meas, "estimate": est[("machine", "auto")]["gflops"]})
mixed = [i for i, r in enumerate(rows) if r["nL2"] > 0]
med = {v: statistics.median(errs[v]) for v in variants}
med_mixed = {v: statistics.median([errs[v][i] for i in mixed]) for v in variants}
med_pf = {v: statistics.median([errs_pf[v][i] for i in mixed]) for v in variants}
pct = lambda x: f"{x*100:+.1f}%"
L = []
L.append("Basic tests (the family's code with memory arrays only or L2 arrays only), GB/s the loads moved:")
L.append("")
L.append("| kernel | GFLOP/s | GB/s |")
L.append("|---|---:|---:|")
for name, r in basic.items():
    L.append(f'| {name} | {r["gflops"]:.2f} | {8 * (r["m"] + r["nL2"]) * r["gflops"] / r["k"]:.2f} |')
L.append("")
L.append(f"Ceilings, one core. Machine (read kernels): Mband {c['Mband']:.2f}, L2band {c['L2band']:.2f}, "
         f"L1band {c['L1band']:.2f} GB/s, Ppeak {c['Ppeak']:.2f} GFLOP/s. "
         f"Family-shape (best basic test): Mband {fc['Mband']:.2f}, L2band {fc['L2band']:.2f} GB/s. "
         f"STREAM triad {machine['stream_triad']['gbs']:.2f} GB/s (24 B/element; "
         f"{machine['stream_triad']['gbs'] * 4 / 3:.2f} GB/s counting the write-allocate read), "
         f"DRAM read / triad = {machine['stream_triad']['dram_read_over_triad']:.3f}.")
L.append("")
L.append("The family, GFLOP/s (estimate and signed error of the measurement against it):")
L.append("")
if lo:
    L.append(f"Level overlap measured by `machine` ({lo.get('kernel', '?')}, ns per element): memory alone {lo.get('mem_ns', 0):.3f}, "
             f"L2 alone {lo.get('l2_ns', 0):.3f}, both {lo.get('both_ns', 0):.3f}: f = {lo['factor']:.2f}, mode {lo['mode']}. "
             f"`model` (default --overlap=auto) used: {auto_desc}.")
else:
    L.append(f"The machine file has no level_overlap; `model` (default --overlap=auto) used: {auto_desc}.")
L.append("")
L.append("| kernel | compiler says | measured | auto, machine | bound | error | paper's max(), machine | bound | error | sum, machine | error | max(), family | error | sum, family | error |")
L.append("|---|---|---:|---:|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|")
for r in rows:
    L.append(f'| {r["kernel"]} | {r["counts"]} | {r["measured"]:.2f} | {r["estimate_machine_auto"]:.2f} | {r["bound_machine_auto"]} | {pct(r["error_machine_auto"])} | '
             f'{r["estimate_machine_max"]:.2f} | {r["bound_machine_max"]} | {pct(r["error_machine_max"])} | '
             f'{r["estimate_machine_sum"]:.2f} | {pct(r["error_machine_sum"])} | '
             f'{r["estimate_family_max"]:.2f} | {pct(r["error_family_max"])} | {r["estimate_family_sum"]:.2f} | {pct(r["error_family_sum"])} |')
L.append("")
L.append(f"Median |error| (largest in brackets), over all {len(rows)} kernels and over the {len(mixed)} mixed ones "
         "(with family-shape ceilings the mM-0L2 rows are not independent: their basic-test twins set Mband):")
L.append("")
L.append("| ceilings | auto, all | paper's max(), all | --overlap=sum, all | auto, mixed | paper's max(), mixed | --overlap=sum, mixed |")
L.append("|---|---:|---:|---:|---:|---:|---:|")
for cl in ("machine", "family"):
    L.append(f"| {cl} | " + " | ".join(
        f"{med[(cl, o)]*100:.1f}% ({max(errs[(cl, o)])*100:.1f}%)" for o in ("auto", "max", "sum")) + " | " + " | ".join(
        f"{med_mixed[(cl, o)]*100:.1f}% ({max(errs[(cl, o)][i] for i in mixed)*100:.1f}%)" for o in ("auto", "max", "sum")) + " |")
L.append("")
L.append("Per element, ns (family-shape ceilings): Mtime = 8m/Mband, L2time = 8(m+n)/L2band, "
         "L2 arrays alone = 8n/L2band; measured plain and with software prefetch of the memory arrays:")
L.append("")
L.append("| kernel | Mtime | L2time | max | L2 arrays alone | Mtime + that | measured | measured, prefetch |")
L.append("|---|---:|---:|---:|---:|---:|---:|---:|")
for r in rows:
    L.append(f'| {r["kernel"]} | {r["mtime_ns"]:.3f} | {r["l2time_ns"]:.3f} | {max(r["mtime_ns"], r["l2time_ns"]):.3f} | '
             f'{r["l2only_ns"]:.3f} | {r["mtime_ns"] + r["l2only_ns"]:.3f} | {r["measured_ns"]:.3f} | {r["measured_prefetch_ns"]:.3f} |')
L.append("")
L.append("With software prefetch (same estimates), median |error| over the mixed kernels: " + ", ".join(
    f"{cl} ceilings {med_pf[(cl, 'auto')]*100:.1f}% (auto) / {med_pf[(cl, 'max')]*100:.1f}% (max()) / {med_pf[(cl, 'sum')]*100:.1f}% (sum)" for cl in ("machine", "family")) + ".")
L.append("")
L.append("Diagnostic: memory arrays and arithmetic only, per element, ns. Compute = FP instructions "
         "(m+n-1 adds, e FMAs, 1 accumulate per 4 elements) at the FMA peak's issue rate, 2(m+n+e)/Ppeak:")
L.append("")
L.append("| kernel | Mtime | compute | max | sum | measured | measured, prefetch |")
L.append("|---|---:|---:|---:|---:|---:|---:|")
diag_rows = []
for name, r in diag.items():
    e = (r["k"] - r["m"] - r["nL2"]) // 2
    mt = 8 * r["m"] / fc["Mband"]
    ct = 2 * (r["m"] + r["nL2"] + e) / c["Ppeak"]
    meas_ns, pf_ns = r["k"] / r["gflops"], r["k"] / diag_pf[name]["gflops"]
    diag_rows.append({"kernel": name, "mtime_ns": mt, "compute_ns": ct,
                      "measured_ns": meas_ns, "measured_prefetch_ns": pf_ns})
    L.append(f"| {name} | {mt:.3f} | {ct:.3f} | {max(mt, ct):.3f} | {mt + ct:.3f} | {meas_ns:.3f} | {pf_ns:.3f} |")
load0 = open(f"{out}/load-before").read().split()[:3]
load1 = open(f"{out}/load-after").read().split()[:3]
L.append("")
L.append(f"Timed runs under `{runner or 'no pinning'}`; load average {' '.join(load0)} before, {' '.join(load1)} after.")
L.append("")
L.append(f"Median |error|, machine ceilings, all {len(rows)} kernels: auto ({auto_mode['mode']}: {auto_mode['why']}) "
         f"{med[('machine', 'auto')]*100:.1f}%, max() {med[('machine', 'max')]*100:.1f}%, sum {med[('machine', 'sum')]*100:.1f}%.")
open(f"{out}/family.md", "w").write("\n".join(L) + "\n")
json.dump({"title": f"mM-nL2-kF family: measured (dots) vs estimate, --overlap=auto ({auto_mode['mode']}) (squares)",
           "points": points}, open(f"{out}/points.json", "w"), indent=1)
json.dump({"ceilings": c, "family_ceilings": fc, "stream_triad_gbs": machine["stream_triad"]["gbs"],
           "basic": list(basic.values()), "rows": rows, "diagnostic": diag_rows,
           "median_abs_error": {f"{a}_{b}": med[(a, b)] for a, b in variants},
           "median_abs_error_mixed": {f"{a}_{b}": med_mixed[(a, b)] for a, b in variants},
           "median_abs_error_prefetch_mixed": {f"{a}_{b}": med_pf[(a, b)] for a, b in variants},
           "level_overlap": lo, "auto_overlap": auto_mode,
           "runner": runner, "load_before": load0, "load_after": load1},
          open(f"{out}/family.json", "w"), indent=1)
print("\n".join(L))
PY
"$tool" chart --machine="$out/machine.json" --points="$out/points.json" --svg="$out/family.svg"
echo "wrote $out/family.md $out/family.svg" >&2
