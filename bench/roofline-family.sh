#!/bin/sh
# Measure seed 003's mM-nL2-kF kernel family on this machine against the
# model's estimate, with the machine's own measured ceilings.
#
#   bench/roofline-family.sh [OUTDIR]        (KEEL_BUILD=build dir, default build)
#
# For each kernel: generate it (examples/roofline/gen-family.py), compile it
# (clang-22 -O2 -mavx2 -mfma), let the RooflineAnalysis plugin count m, nL2,
# nL1_S, nL1_L and k from the IR, estimate with `layout-roofline model`, run
# it (best 1 MiB-per-stream chunk of 5 passes). Both the paper's estimate
# (max of the levels' times) and the additive extension (--overlap=sum) are
# tabulated; the chart shows the paper's. Writes OUTDIR/family.md (the
# table), OUTDIR/family.json, OUTDIR/family.svg (the chart), OUTDIR/machine.*.
# Not part of CI: it takes about a minute and needs ~2 GB of memory.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${KEEL_BUILD:-$top/build}
out=${1:-/tmp/roofline-family}
tool=$build/bin/layout-roofline
plugin=$build/lib/KeelRoofline.so
cc=${CC:-clang-22}
opt=${OPT:-/usr/lib/llvm-22/bin/opt}
mkdir -p "$out"

kernels="1M-0L2-1F 2M-0L2-2F 3M-0L2-3F 4M-0L2-4F
1M-2L2-3F 1M-4L2-5F 1M-6L2-7F 1M-8L2-9F 1M-12L2-13F 1M-16L2-17F
2M-2L2-4F 2M-4L2-6F 2M-8L2-10F 2M-12L2-14F
3M-6L2-9F 3M-12L2-15F 2M-4L2-16F 1M-8L2-25F"

echo "== machine ceilings" >&2
"$tool" machine --json -o "$out/machine.json" --svg="$out/machine.svg"

: > "$out/runs.jsonl"
for k in $kernels; do
  echo "== $k" >&2
  python3 "$top/examples/roofline/gen-family.py" "$k" -o "$out/$k.c"
  "$cc" -O2 -mavx2 -mfma "$out/$k.c" -o "$out/$k"
  "$cc" -O2 -mavx2 -mfma -emit-llvm -S "$out/$k.c" -o "$out/$k.ll"
  "$opt" -load-pass-plugin="$plugin" -passes=keel-roofline -disable-output \
    -keel-roofline-json="$out/$k.pass.json" "$out/$k.ll"
  "$tool" model --machine="$out/machine.json" --input="$out/$k.pass.json" \
    --json -o "$out/$k.model.json"
  "$tool" model --machine="$out/machine.json" --input="$out/$k.pass.json" \
    --overlap=sum --json -o "$out/$k.sum.json"
  "$out/$k" >> "$out/runs.jsonl"
done

python3 - "$out" $kernels <<'PY'
import json, statistics, sys
out, names = sys.argv[1], sys.argv[2:]
machine = json.load(open(f"{out}/machine.json"))
c = machine["ceilings"]["one_core"]
runs = {}
for line in open(f"{out}/runs.jsonl"):
    r = json.loads(line)
    runs[r["name"]] = r
rows, points, errs, errs_sum = [], [], [], []
def loop0(path):
    return next(x for x in json.load(open(path))["kernels"] if x["name"] == "kernel:loop0")
for n in names:
    k = loop0(f"{out}/{n}.model.json")
    e = k["estimate"]
    es = loop0(f"{out}/{n}.sum.json")["estimate"]
    meas = runs[n]["gflops"]
    est, est_sum = e["gflops"], es["gflops"]
    err, err_sum = (meas - est) / est, (meas - est_sum) / est_sum
    errs.append(abs(err))
    errs_sum.append(abs(err_sum))
    counts = f'{k["m"]:g}M-{k["nL2"]:g}L2-{k["k"]:g}F'
    if k["nL1_S"] or k["nL1_L"]:
        counts += f' (+{k["nL1_S"]:g} S, {k["nL1_L"]:g} L)'
    rows.append((n, counts, e["bound"], est, meas, err, est_sum, err_sum))
    # x: flops per byte of memory traffic (the classic roofline's intensity)
    points.append({"label": n, "intensity": k["k"] / (8 * k["m"]),
                   "gflops": meas, "estimate": est})
med, med_sum = statistics.median(errs), statistics.median(errs_sum)
lines = ["| kernel | compiler says | bound (paper) | estimate (paper) | measured | error (paper) | estimate (sum) | error (sum) |",
         "|---|---|---|---:|---:|---:|---:|---:|"]
for n, counts, b, est, meas, err, est_sum, err_sum in rows:
    lines.append(f"| {n} | {counts} | {b} | {est:.2f} | {meas:.2f} | {err*100:+.1f}% | {est_sum:.2f} | {err_sum*100:+.1f}% |")
lines.append("")
lines.append("GFLOP/s, one core. ")
lines.append(f"Ceilings (one core, measured in this run): Mband {c['Mband']:.2f} GB/s, L2band {c['L2band']:.2f} GB/s, "
             f"L1band {c['L1band']:.2f} GB/s, Ppeak {c['Ppeak']:.2f} GFLOP/s; "
             f"STREAM triad {machine['stream_triad']['gbs']:.2f} GB/s.")
lines.append("")
lines.append(f"Median |error| over {len(rows)} kernels: paper's model {med*100:.1f}% (max {max(errs)*100:.1f}%), "
             f"additive extension {med_sum*100:.1f}% (max {max(errs_sum)*100:.1f}%).")
open(f"{out}/family.md", "w").write("\n".join(lines) + "\n")
json.dump({"title": "mM-nL2-kF family: measured (dots) vs seed 003 estimate (squares)",
           "points": points}, open(f"{out}/points.json", "w"), indent=1)
json.dump({"ceilings": c, "stream_triad_gbs": machine["stream_triad"]["gbs"],
           "rows": [dict(zip(["kernel", "counts", "bound", "estimate", "measured", "error", "estimate_sum", "error_sum"], r)) for r in rows],
           "median_abs_error": med, "median_abs_error_sum": med_sum}, open(f"{out}/family.json", "w"), indent=1)
print("\n".join(lines))
PY
"$tool" chart --machine="$out/machine.json" --points="$out/points.json" --svg="$out/family.svg"
echo "wrote $out/family.md $out/family.svg" >&2
