#!/bin/sh
# Run every Keel libFuzzer target for a fixed number of executions.
#
#   test/fuzz/run.sh [RUNS] [TARGET...]     (RUNS default 1000000)
#
# Needs a build configured with -DKEEL_FUZZ=ON in ${KEEL_BUILD:-build-fuzz}
# (built here if needed: cmake --build ... --target keel-fuzzers). Seeds come
# from the test fixtures (test/Inputs/**, the split-file sections of the lit
# tests, sorted by extension) plus the regression inputs checked in under
# test/fuzz/corpus/<target>/; new inputs go to a scratch corpus under
# ${KEEL_FUZZ_WORK:-<build>/fuzz-work}, never into the source tree. Exits 1 on
# the first crash, leak or sanitizer report (the reproducer is kept in the
# work directory, named crash-*/leak-*/timeout-*).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${KEEL_BUILD:-$top/build-fuzz}
# The fuzzers run from the work directory: relative paths are made absolute.
case $build in /*) ;; *) build=$PWD/$build ;; esac
runs=${1:-1000000}
[ $# -gt 0 ] && shift
work=${KEEL_FUZZ_WORK:-$build/fuzz-work}
case $work in /*) ;; *) work=$PWD/$work ;; esac
llvm_bin=/usr/lib/llvm-22/bin
targets=${*:-"perf-script perf-data fdata pre-aggregated callgrind plan sweep-journal sweep-result roofline-json roofline-callgrind samples ring-buffer"}

if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$top" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld-22 -DLLVM_DIR=/usr/lib/llvm-22/lib/cmake/llvm \
    -DKEEL_FUZZ=ON
fi
for t in $targets; do
  if [ ! -x "$build/fuzz/fuzz-$t" ]; then
    cmake --build "$build" --target keel-fuzzers -j"${KEEL_JOBS:-2}"
    break
  fi
done

# Seeds: every fixture file, and every split-file section of every lit test.
rm -rf "$work/split" && mkdir -p "$work/split"
n=0
for t in $(grep -rl '^#--- ' "$top/test" --include='*.test' || true); do
  n=$((n + 1))
  "$llvm_bin/split-file" "$t" "$work/split/$n" 2>/dev/null || true
done
seeds() { # seeds TARGET EXT...
  dir="$work/corpus/$1"; shift
  mkdir -p "$dir"
  for ext in "$@"; do
    find "$top/test/Inputs" "$top/test/tools" "$work/split" -type f -name "*.$ext" \
      -exec cp -f {} "$dir/" \; 2>/dev/null || true
  done
}
seeds perf-script perf script
seeds perf-data data
seeds fdata fdata
seeds pre-aggregated pa
seeds callgrind callgrind
seeds plan yaml plan
seeds sweep-journal journal
seeds sweep-result json
seeds roofline-json json
seeds roofline-callgrind callgrind
seeds samples keelprof samples
seeds ring-buffer ring
/usr/bin/python3 "$top/test/fuzz/ring-seeds.py" "$work/corpus/ring-buffer"

status=0
for t in $targets; do
  corpus="$work/corpus/$t"
  mkdir -p "$corpus"
  [ -d "$top/test/fuzz/corpus/$t" ] && cp -f "$top/test/fuzz/corpus/$t"/* "$corpus/" 2>/dev/null || true
  log="$work/$t.log"
  echo "== fuzz-$t: $runs runs (seeds: $(ls "$corpus" | wc -l))"
  if (cd "$work" && "$build/fuzz/fuzz-$t" -runs="$runs" -max_len=4096 -timeout=20 \
        -rss_limit_mb=2048 -print_final_stats=1 "$corpus" > "$log" 2>&1); then
    grep -E '^(Done|stat::number_of_executed_units|stat::average_exec_per_sec)' "$log" || true
  else
    echo "fuzz-$t FAILED: see $log"
    grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -5
    status=1
  fi
done
exit $status
