#!/bin/sh
# Compare function orders by simulated I1 misses (cachegrind), as ratios
# against the default link, in one run. Not part of CI (a few minutes).
#
#   bench/order-compare.sh [PROGRAM...]     PROGRAM: planner-bench interp lua zstd
#
# For each program, variants linked with ld.lld-22 from the same objects
# (clang-22 -O2 -ffunction-sections -fdata-sections):
#   default        plain link
#   lld-hfsort     --call-graph-ordering-file=callgraph.txt (C3 inside lld)
#   lld-cdsort     the same plus --call-graph-profile-sort=cdsort
#   keel-<order>   layout-order --order=<order>: order.txt + layout.ld
# lld gets the plan's callgraph.txt, i.e. the call graph our orders use.
# The profile is an exact callgrind profile of the default binary, made
# with the same input the measurement uses.
# Programs:
#   planner-bench  examples/planner-bench/gen.py SEED, for each of SEEDS
#   interp         examples/interp (threaded-dispatch interpreter)
#   lua            Lua 5.4 from the Debian source package (apt-get source,
#                  cached in $KEEL_SRC) running bench/workloads/lua-bench.lua
#   zstd           the zstd CLI from the libzstd source package running its
#                  own benchmark, made deterministic (lib-real-programs.sh)
# The last table is the geometric mean of the ratios over all runs.
# Environment: KEEL_BUILD (default ./build), SEEDS (default "2002 7 42"),
#   ORDERS (default "c3 ph cdsort exttsp none"), KEEL_SRC (default
#   realsrc/ in $TMPDIR, else in /tmp), CACHE (cachegrind geometry).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${KEEL_BUILD:-$top/build}
seeds=${SEEDS:-2002 7 42}
orders=${ORDERS:-c3 ph cdsort exttsp none}
programs=${*:-planner-bench interp lua zstd}
order_tool=$build/bin/layout-order
cache=${CACHE:---I1=8192,2,64 --D1=32768,8,64 --LL=262144,8,64}
CFLAGS="-O2 -ffunction-sections -fdata-sections"
work=$(mktemp -d "${TMPDIR:-/tmp}/order-compare-XXXXXX")
trap 'rm -rf "$work"' EXIT
variants="default lld-hfsort lld-cdsort $(for o in $orders; do printf 'keel-%s ' "$o"; done)"

# misses ARGV... -> "Irefs I1misses"
misses() {
  valgrind --tool=cachegrind $cache --cache-sim=yes \
    --cachegrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
    awk '/ I +refs:/ {gsub(",","",$4); r=$4} / I1 +misses:/ {gsub(",","",$4); m=$4}
         END {print r, m}'
}

# compare NAME: objects are in ./*.o, RUN holds the arguments after the binary.
compare() {
  name=$1
  link() { out=$1; shift; clang-22 -fuse-ld=lld ./*.o -o "$out" -lm "$@"; }
  link default
  # shellcheck disable=SC2086
  valgrind --tool=callgrind --collect-jumps=yes --dump-instr=yes \
    --callgrind-out-file=cg.out ./default $RUN > /dev/null 2> cg.log
  for o in $orders; do
    "$order_tool" --preset=functions --binary default --profile cg.out --order="$o" -o "plan-$o" 2> "plan-$o.log"
    link "keel-$o" -Wl,--symbol-ordering-file="plan-$o/order.txt" \
      -Wl,--no-warn-symbol-ordering -Wl,-T,"plan-$o/layout.ld"
  done
  link lld-hfsort -Wl,--call-graph-ordering-file=plan-c3/callgraph.txt \
    -Wl,--call-graph-profile-sort=hfsort
  link lld-cdsort -Wl,--call-graph-ordering-file=plan-c3/callgraph.txt \
    -Wl,--call-graph-profile-sort=cdsort
  echo
  echo "$name ($(grep -c . plan-c3/order.txt) hot+warm functions, $RUN)"
  printf '%-14s %12s %10s %8s\n' variant Irefs I1-misses ratio
  base=""
  for v in $variants; do
    # shellcheck disable=SC2086
    set -- $(misses "./$v" $RUN)
    [ -z "$base" ] && base=$2
    ratio=$(awk -v m="$2" -v b="$base" 'BEGIN {printf "%.3f", m / b}')
    printf '%-14s %12s %10s %8s\n' "$v" "$1" "$2" "$ratio"
    echo "$v $ratio" >> "$work/ratios"
  done
}

echo "cachegrind $cache"
for p in $programs; do
  case $p in
    planner-bench)
      for seed in $seeds; do
        mkdir "$work/pb$seed" && cd "$work/pb$seed"
        python3 "$top/examples/planner-bench/gen.py" "$seed" > bench.c
        clang-22 $CFLAGS -c bench.c -o bench.o
        RUN=200000 compare "planner-bench seed $seed"
      done ;;
    interp)
      mkdir "$work/interp" && cd "$work/interp"
      "$top/examples/interp/build.sh" objects "$PWD" > /dev/null
      RUN=20000 compare interp ;;
    lua)
      . "$top/bench/lib-real-programs.sh"
      # The unpacked lua5.4-* source tree if there is one, else apt-get source.
      src=$(keel_get_source lua5.4 "${KEEL_SRC:-${TMPDIR:-/tmp}/realsrc}")
      mkdir "$work/lua" && cd "$work/lua"
      keel_build_lua "$src" "$PWD" $CFLAGS
      rm -f lua5.4-deb-multiarch.h
      cp "$top/bench/workloads/lua-bench.lua" "$work/lua-bench.lua"
      RUN="$work/lua-bench.lua 1" compare lua ;;
    zstd)
      . "$top/bench/lib-real-programs.sh"
      src=$(keel_get_source libzstd "${KEEL_SRC:-${TMPDIR:-/tmp}/realsrc}")
      mkdir "$work/zstd" && cd "$work/zstd"
      keel_build_zstd "$src" "$PWD" $CFLAGS
      cp "$src/lib/compress/zstd_compress.c" "$work/zstd-sample"
      RUN="$(keel_zstd_args "$work/zstd-sample")" compare zstd ;;
    *) echo "unknown program $p" >&2; exit 2 ;;
  esac
done
echo
echo "geometric mean of the ratios over all runs above"
for v in $variants; do
  awk -v v="$v" '$1 == v {s += log($2); n++} END {printf "%-14s %8.3f\n", v, exp(s / n)}' "$work/ratios"
done
