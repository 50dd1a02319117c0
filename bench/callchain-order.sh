#!/bin/sh
# Function order planned from a `perf record -g -e cpu-clock` profile
# (callchains: what a machine without LBR records) against one from
# valgrind's exact calls (layout-record --source=valgrind), against
# hotness alone (the same perf samples without their callchains: perf.data
# -> pre-aggregated text keeps the IP samples, drops the arcs) and against
# the default link, on Lua 5.4 from its Debian source package. Not part of
# CI (a few minutes).
#
#   bench/callchain-order.sh WORKDIR [RECORDINGS]
#
# RECORDINGS (default 8) perf recordings, each planned with and without
# its callchains: a sampled profile differs from one recording to the
# next, and so does the plan; a second table gives the mean, min and max
# over them.
#
# Every build links the same objects (clang-22 -O2 -gdwarf-4
# -fno-omit-frame-pointer -ffunction-sections -fdata-sections: perf -g
# unwinds by frame pointers; valgrind 3.19 reads DWARF 4); the plans are
# function-level (layout-order, default c3, no --blocks), linked with
# order.txt + layout.ld + -z separate-code. perf records lua-bench.lua 100
# (a sampled profile needs run time: 11 K to 14 K samples at -F 10000);
# valgrind, and the measurement, lua-bench.lua (1). Each binary is measured
# once by layout-sweep --backend=sim --cost=skylake (keel-sim's front-end
# model) at I1 32 KB 8-way and 8 KB 2-way, D1 32 KB, LL 256 KB, from
# directories of equal path length. Prints the cost table, each cost
# relative to the default link's.
# Environment: KEEL_BUILD (default ./build).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
K=${KEEL_BUILD:-$top/build}/bin
work=$1
recordings=${2:-8}
W=$top/bench/workloads/lua-bench.lua
. "$top/bench/lib-real-programs.sh"
mkdir -p "$work"
work=$(cd "$work" && pwd)
src=$(keel_get_source lua5.4 "$work/debsrc")
[ -f "$work/obj/lvm.o" ] || keel_build_lua "$src" "$work/obj" -O2 -gdwarf-4 \
  -fno-omit-frame-pointer -ffunction-sections -fdata-sections
cd "$work"
link() {
  clang-22 -fuse-ld=lld --ld-path=/usr/lib/llvm-22/bin/ld.lld -Wl,--emit-relocs \
    obj/*.o "$@" -lm -ldl
}
mkdir -p m/dflt m/vgnd
link -o m/dflt/lua
"$K/layout-record" --source=valgrind -o valgrind.fdata -- m/dflt/lua "$W" > /dev/null
plan() { # NAME PROFILE: plan and link m/NAME/lua
  mkdir -p "m/$1"
  "$K/layout-order" --binary m/dflt/lua --profile "$2" -o "plan-$1" --print-plan > "plan-$1.txt"
  grep '^call graph' "plan-$1.txt" | sed "s/^/$1: /" >&2
  link -Wl,--symbol-ordering-file="plan-$1/order.txt" -Wl,-T,"plan-$1/layout.ld" \
    -Wl,-z,separate-code -o "m/$1/lua"
}
plan vgnd valgrind.fdata
names="dflt vgnd"
for i in $(seq 1 "$recordings"); do
  r=$(printf %02d "$i")
  perf record -q -g -e cpu-clock -F 10000 -o "g$r.perf.data" m/dflt/lua "$W" 100 > /dev/null
  "$K/layout-profile" convert --binary=m/dflt/lua --to=pa -o "hot$r.pa" "g$r.perf.data"
  plan "pg$r" "g$r.perf.data"
  plan "ho$r" "hot$r.pa"
  names="$names pg$r ho$r"
done
for n in $names; do
  env LANG=C LC_ALL=C "$K/layout-sweep" --backend=sim --cost=skylake --axis=env \
    --from=0 --to=0 --I1=32768,8,64 --I1=8192,2,64 --D1=32768,8,64 --LL=262144,8,64 \
    --json="sweep-$n.json" "m/$n/lua" "$W" > "sweep-$n.txt" 2>&1
done
NAMES="$names" python3 - <<'PY'
import json, os
label = {"dflt": "default link", "vgnd": "valgrind exact calls"}
def name(n):
    if n in label:
        return label[n]
    kind = "perf record -g (callchains)" if n.startswith("pg") else "hotness only (the same samples, no arcs)"
    return f"{kind}, recording {int(n[2:])}"
print("| function order from | cost, I1 32 KB | vs default | I1 misses | cost, I1 8 KB | vs default | I1 misses |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
base, rel = {}, {}
for n in os.environ["NAMES"].split():
    cells = []
    for g in ("32768-8-64", "8192-2-64"):
        m = json.load(open(f"sweep-{n}.i1-{g}.json"))["measurements"][0]
        base.setdefault(g, m["cost"])
        cells += [f"{m['cost']:,.0f}", f"{(m['cost'] / base[g] - 1) * 100:+.2f}%",
                  f"{m['counters']['I1mr']:,}"]
    print(f"| {name(n)} | " + " | ".join(cells) + " |")
    rel.setdefault(n[:2], []).append(cells)
# Over the recordings: mean, min and max of the cost against the default.
print()
print("| function order from (recordings) | vs default, I1 32 KB: mean (min..max) | I1 8 KB: mean (min..max) |")
print("| --- | ---: | ---: |")
for k, what in (("pg", "perf record -g (callchains)"), ("ho", "hotness only (no arcs)")):
    rows = rel.get(k, [])
    out = []
    for col in (1, 4):
        v = [float(r[col].rstrip("%")) for r in rows]
        out.append(f"{sum(v) / len(v):+.2f}% ({min(v):+.2f}%..{max(v):+.2f}%)")
    print(f"| {what} ({len(rows)}) | {out[0]} | {out[1]} |")
PY
