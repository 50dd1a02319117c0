#!/bin/sh
# Compile-time cost of LayoutOpt.so (not run in CI).
#
# Generates one large translation unit (N functions calling each other, a few
# hundred globals) and a plan naming a tenth of its functions hot, a tenth
# cold and a hundred globals hot, then compiles it with clang-22 -O2 in three
# configurations, interleaved and shuffled per round (fixed seed):
#   base    no plugin
#   loaded  -fpass-plugin=LayoutOpt.so, no plan (the pass returns at once)
#   plan    -fpass-plugin=LayoutOpt.so -mllvm -layout-plan=plan.yaml
# and prints the median CPU time (user+sys of the compiler) of each and the
# median of the per-round ratios against base. Target: plan/base <= 1.01.
# On a loaded machine whole-compile ratios are noisy (a few percent), so it
# also runs the plan configuration once with -ftime-report and prints the
# pass's own time (plan reading included) as a share of the median compile.
#
# usage: bench/plugin-compile-time.sh [build-dir] [rounds] [functions]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
rounds=${2:-11}
nfun=${3:-3000}
plugin=$build/lib/LayoutOpt.so
clang=${CLANG:-/usr/lib/llvm-22/bin/clang}
[ -f "$plugin" ] || { echo "error: $plugin not built" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

exec python3 - "$clang" "$plugin" "$tmp" "$rounds" "$nfun" <<'PY'
import random, resource, statistics, subprocess, sys, time
clang, plugin, tmp, rounds, nfun = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
rng = random.Random(42)

# The translation unit: functions with loops and calls, so -O2 has real work.
src, nglob = [], nfun // 10
for g in range(nglob):
    src.append(f"int g{g} = {g};\nstatic int s{g}[{1 + g % 17}];")
for f in range(nfun):
    callee = f"f{rng.randrange(f)}(x + {f})" if f else "x"
    g = rng.randrange(nglob)
    src.append(f"""int f{f}(int x) {{
  int acc = {callee};
  for (int i = 0; i < (x & 15); ++i) {{ acc += s{g}[i % {1 + g % 17}] * i + g{g}; g{g} ^= acc; }}
  if (acc > {f * 7}) acc -= {f};
  return acc;
}}""")
open(f"{tmp}/big.c", "w").write("\n".join(src) + "\n")
plan = ["keel-plan: 1", "functions:"]
for f in range(0, nfun, 10):
    plan.append(f"  - {{ name: f{f}, class: hot, order: {f} }}")
for f in range(5, nfun, 10):
    plan.append(f"  - {{ name: f{f}, class: cold }}")
plan.append("globals:")
for g in range(0, min(nglob, 100)):
    plan.append(f"  - {{ name: g{g}, kind: data, order: {g} }}")
plan.append("false-sharing:")
for g in range(100, min(nglob, 110)):
    plan.append(f"  - {{ name: g{g}, align: 64 }}")
open(f"{tmp}/plan.yaml", "w").write("\n".join(plan) + "\n")

base = [clang, "-O2", "-ffunction-sections", "-fdata-sections", "-c", f"{tmp}/big.c", "-o", f"{tmp}/big.o"]
configs = {
    "base": base,
    "loaded": base + [f"-fpass-plugin={plugin}"],
    "plan": base + [f"-fpass-plugin={plugin}", "-mllvm", f"-layout-plan={tmp}/plan.yaml"],
}

def run(argv):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall

for argv in configs.values():  # warm-up: page cache, plugin, sanity
    run(argv)
cpu = {k: [] for k in configs}
wall = {k: [] for k in configs}
for r in range(rounds):
    order = list(configs)
    rng.shuffle(order)
    for k in order:
        c, w = run(configs[k])
        cpu[k].append(c)
        wall[k].append(w)

print(f"clang-22 -O2, one TU with {nfun} functions and {nglob} globals; {rounds} interleaved rounds")
print(f"{'config':8} {'cpu median s':>13} {'wall median s':>14} {'cpu ratio':>10} {'wall ratio':>11}")
for k in configs:
    rc = statistics.median(c / b for c, b in zip(cpu[k], cpu["base"]))
    rw = statistics.median(c / b for c, b in zip(wall[k], wall["base"]))
    print(f"{k:8} {statistics.median(cpu[k]):13.3f} {statistics.median(wall[k]):14.3f} {rc:10.4f} {rw:11.4f}")
ratio = statistics.median(c / b for c, b in zip(cpu["plan"], cpu["base"]))
print(f"plan/base median CPU ratio: {ratio:.4f} ({(ratio - 1) * 100:+.2f}%; target <= +1%)")

# The pass's own time, from the pass timing report (columns: user, system,
# user+system, wall).
report = subprocess.run(configs["plan"] + ["-ftime-report"], check=True,
                        stderr=subprocess.PIPE, text=True).stderr
for line in report.splitlines():
    if "LayoutOptPass" in line:
        nums = [float(w) for w in line.split() if w.replace(".", "", 1).isdigit()]
        pass_cpu = nums[2]
        base_cpu = statistics.median(cpu["base"])
        print(f"layout-opt pass (-ftime-report): {pass_cpu:.4f} s CPU = "
              f"{pass_cpu / base_cpu * 100:.3f}% of the median base compile")
        break
else:
    print("layout-opt pass not found in -ftime-report output")
PY
