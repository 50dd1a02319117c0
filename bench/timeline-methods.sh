#!/bin/sh
# Error of each time-line method (Ono et al., docs/references.md) against ground truth, on
# examples/lbr-loop (phase 1: hot_loop; phase 2: f1, f2, f3 with work
# 1:3:1 called in turn), for several LBR settings (not part of CI).
#
#   bench/timeline-methods.sh [ITERS [ROUNDS]]
#
# The program runs once under valgrind lackey (exact instruction trace);
# layout-lbrgen then emulates LBR sampling over that trace for each setting
# (filter any / user-callret = user-mode calls and returns; a sample every 2000 or 10000
# instructions; LBR left running as perf does, or cleared at each sample as
# in Yamamoto et al.'s prototype) with one cost model (base CPI 1, hot_loop 0.6,
# f2 2.0, 3 cycles per taken branch). `layout-profile timeline --truth`
# reports, per method, the mean over windows of the total-variation
# distance between estimated and true per-function time shares, and the
# same on the whole run's shares.
# Needs: clang-22 with static glibc, valgrind, python3.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${KEEL_BUILD:-$top/build}
iters=${1:-100000}
rounds=${2:-3000}
bin=$build/bin
[ -x "$bin/layout-lbrgen" ] || { echo "build first: $bin/layout-lbrgen is missing" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "valgrind is missing" >&2; exit 3; }

work=$(mktemp -d "${TMPDIR:-/tmp}/keel-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
clang-22 -O1 -static -fno-unroll-loops -fno-vectorize \
  "$top/examples/lbr-loop/loop.c" -o "$work/loop"
valgrind --tool=lackey --trace-mem=yes --log-file="$work/trace.log" \
  "$work/loop" "$iters" "$rounds"
model="--function-cpi=hot_loop=0.6,f2=2.0 --taken-penalty=3"

printf '%-6s %-6s %-6s  %-16s %-16s %-16s %-16s %-16s %-16s\n' filter period lbr \
  ip uniform profile sample hw hwshare
for filter in any user-callret; do
  for period in 2000 10000; do
    for clear in run clear; do
      flag=; [ $clear = clear ] && flag=--clear-lbr
      # shellcheck disable=SC2086
      "$bin/layout-lbrgen" --trace="$work/trace.log" --binary="$work/loop" \
        --lbr=$filter --period=$period $flag $model \
        -o "$work/s.keelprof" --truth="$work/truth.json" 2>/dev/null
      "$bin/layout-profile" timeline --binary="$work/loop" \
        --truth="$work/truth.json" --json="$work/tl.json" "$work/s.keelprof" >/dev/null
      python3 - "$work/tl.json" "$filter" "$period" "$clear" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["methods"]
cells = []
for k in ["ip", "uniform", "profile", "sample", "hw", "hwshare"]:
    e = m.get(k)
    cells.append("-" if e is None else
                 f"{100*e['error_mean']:4.1f}% / {100*e['error_whole_run']:4.1f}%")
print("%-6s %-6s %-6s  " % tuple(sys.argv[2:5]) +
      " ".join("%-16s" % c for c in cells))
PY
    done
  done
done
echo "cells: mean per-window error / whole-run error (total-variation distance of per-function time shares)"
