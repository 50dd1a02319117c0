#!/bin/sh
# Compare function orders by simulated I1 misses (cachegrind), as ratios
# against the default link, in one run. Not part of CI (a few minutes).
#
#   bench/order-compare.sh [ITERATIONS]
#
# Variants, all linked with ld.lld-22 from the same objects
# (clang -O2 -ffunction-sections -fdata-sections):
#   default        plain link (source order)
#   lld-hfsort     --call-graph-ordering-file=callgraph.txt (C3 inside lld)
#   lld-cdsort     the same plus --call-graph-profile-sort=cdsort
#   keel-<order>   layout-order --order=<order>: order.txt + layout.ld
# lld gets the plan's callgraph.txt, i.e. the same call graph our orders
# use. The profile is an exact callgrind profile of the default binary.
# The program is examples/planner-bench/gen.py with each seed of SEEDS; the
# last table is the geometric mean of the ratios over the seeds.
# Environment: KEEL_BUILD (default ./build), CLANG (clang-22),
#   SEEDS (default "2002 7 42"), ORDERS (default "c3 ph cdsort exttsp none").
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${KEEL_BUILD:-$top/build}
clang=${CLANG:-clang-22}
iters=${1:-200000}
seeds=${SEEDS:-2002 7 42}
orders=${ORDERS:-c3 ph cdsort exttsp none}
order_tool=$build/bin/layout-order
cache="--I1=8192,2,64 --D1=32768,8,64 --LL=262144,8,64"
work=$(mktemp -d "${TMPDIR:-/tmp}/order-compare-XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
variants="default lld-hfsort lld-cdsort $(for o in $orders; do printf 'keel-%s ' "$o"; done)"

# misses BIN -> "Irefs I1misses"
misses() {
  valgrind --tool=cachegrind $cache --cache-sim=yes \
    --cachegrind-out-file=/dev/null "./$1" "$iters" 2>&1 >/dev/null |
    awk '/ I +refs:/ {gsub(",","",$4); r=$4} / I1 +misses:/ {gsub(",","",$4); m=$4}
         END {print r, m}'
}

echo "cachegrind $cache, $iters iterations of examples/planner-bench"
for seed in $seeds; do
  mkdir "s$seed" && cd "s$seed"
  python3 "$top/examples/planner-bench/gen.py" "$seed" > bench.c
  "$clang" -O2 -ffunction-sections -fdata-sections -c bench.c -o bench.o
  link() { out=$1; shift; "$clang" -fuse-ld=lld bench.o -o "$out" "$@"; }
  link default
  valgrind --tool=callgrind --collect-jumps=yes --dump-instr=yes \
    --callgrind-out-file=cg.out ./default "$iters" > /dev/null 2> cg.log
  for o in $orders; do
    "$order_tool" --binary default --profile cg.out --order="$o" -o "plan-$o" 2> "plan-$o.log"
    link "keel-$o" -Wl,--symbol-ordering-file="plan-$o/order.txt" -Wl,-T,"plan-$o/layout.ld"
  done
  link lld-hfsort -Wl,--call-graph-ordering-file=plan-c3/callgraph.txt \
    -Wl,--call-graph-profile-sort=hfsort
  link lld-cdsort -Wl,--call-graph-ordering-file=plan-c3/callgraph.txt \
    -Wl,--call-graph-profile-sort=cdsort
  echo
  echo "seed $seed"
  printf '%-14s %12s %10s %8s\n' variant Irefs I1-misses ratio
  base=""
  for v in $variants; do
    set -- $(misses "$v")
    [ -z "$base" ] && base=$2
    ratio=$(awk -v m="$2" -v b="$base" 'BEGIN {printf "%.3f", m / b}')
    printf '%-14s %12s %10s %8s\n' "$v" "$1" "$2" "$ratio"
    echo "$v $ratio" >> ../ratios
  done
  cd ..
done
echo
echo "geometric mean of the ratios over seeds: $seeds"
for v in $variants; do
  awk -v v="$v" '$1 == v {s += log($2); n++} END {printf "%-14s %8.3f\n", v, exp(s / n)}' ratios
done
