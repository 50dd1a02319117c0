#!/bin/sh
# record-overhead.sh - how much `layout-record --source=perf` slows a program.
#
#   bench/record-overhead.sh [-n RUNS] [-s] [-- program args...]
#
# Goal (docs/recording.md): at most 5% at a 100 us sampling interval with the
# branch stack read at every sample, the figure Ono et al. measured for their
# prototype (docs/references.md) (1% at 100 us without LBR, 11% at 10 us).
#
# The program's own run time is measured, not layout-record's: the default
# workload (a C loop with calls, built here with clang) times itself with
# CLOCK_MONOTONIC and prints the nanoseconds; for a user command, the wall
# time of the whole run is used, which includes layout-record's start-up and
# its post-processing (an upper bound). Each configuration runs RUNS times,
# interleaved with the others; the median is reported.
#
# Exit 3 with "no counters here" on a machine without hardware counters or
# without branch stacks (e.g. a VM).
#
# -s measures the software clock instead (--event=cpu-clock --lbr=none, no
# CPI counters): no PMU needed, so it runs in VMs too. That is the cost of
# the recorder itself (interrupts, ring buffer, reading), not of LBR, and
# says nothing about the 5% goal.
set -eu

runs=5
software=0
while [ $# -gt 0 ]; do
  case $1 in
    -n) runs=$2; shift 2 ;;
    -s) software=1; shift ;;
    --) shift; break ;;
    *) echo "usage: $0 [-n RUNS] [-s] [-- program args...]" >&2; exit 2 ;;
  esac
done

top=$(cd "$(dirname "$0")/.." && pwd)
build=${KEEL_BUILD:-$top/build}
record=$build/bin/layout-record
[ -x "$record" ] || record=$(command -v layout-record || true)
if [ -z "$record" ] || [ ! -x "$record" ]; then
  echo "layout-record not found (build Keel first, or set KEEL_BUILD)" >&2
  exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/keel-overhead-XXXXXX")
trap 'rm -rf "$work"' EXIT

self_timed=0
if [ $# -eq 0 ]; then
  cat > "$work/loop.c" <<'C'
#include <stdio.h>
#include <time.h>
__attribute__((noinline)) static unsigned long step(unsigned long X) {
  return X * 6364136223846793005UL + 1442695040888963407UL;
}
__attribute__((noinline)) static unsigned long inner(unsigned long X) {
  for (int I = 0; I < 64; ++I)
    X = step(X) ^ (X >> 7);
  return X;
}
int main(void) {
  struct timespec A, B;
  clock_gettime(CLOCK_MONOTONIC, &A);
  volatile unsigned long Sink = 0;
  for (unsigned long I = 0; I < 3000000UL; ++I)
    Sink += inner(I);
  clock_gettime(CLOCK_MONOTONIC, &B);
  printf("%lld\n", (long long)(B.tv_sec - A.tv_sec) * 1000000000LL +
                       (B.tv_nsec - A.tv_nsec));
  return 0;
}
C
  clang-22 -O2 "$work/loop.c" -o "$work/loop"
  set -- "$work/loop"
  self_timed=1
fi

if [ "$software" -eq 1 ]; then
  sw="--event=cpu-clock --lbr=none --cycles-event= --instructions-event="
  probe="$sw --freq=1000"
  configs="baseline
$sw --freq=1000
$sw --freq=10000
$sw --freq=50000"
else
  probe="--lbr=user-callret --freq=1000"
  configs="baseline
--lbr=none --freq=10000
--lbr=user-callret --freq=1000
--lbr=user-callret --freq=10000
--lbr=any --freq=10000
--lbr=user-callret --freq=100000"
fi

# Can this machine sample (with branch stacks, unless -s) at all?
set +e
# shellcheck disable=SC2086 # the probe is a list of options
"$record" --source=perf $probe -o "$work/probe.fdata" \
  -- "$@" >/dev/null 2>"$work/probe.err"
status=$?
set -e
if [ "$status" -eq 3 ]; then
  echo "no counters here: $(sed 's/^layout-record: error: //' "$work/probe.err")"
  exit 3
elif [ "$status" -ne 0 ]; then
  cat "$work/probe.err" >&2
  exit "$status"
fi

# run_ns CMD...: nanoseconds of one run (self-timed or wall clock).
run_ns() {
  if [ "$self_timed" -eq 1 ]; then
    "$@" 2>/dev/null | tail -n 1
  else
    python3 -c 'import subprocess, sys, time
t = time.monotonic_ns()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(time.monotonic_ns() - t)' "$@"
  fi
}

median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# Interleave: run 1 of every configuration, then run 2, ... so that drifts
# of the machine (frequency, other load) spread over all of them.
i=0
while [ "$i" -lt "$runs" ]; do
  n=0
  echo "$configs" | while IFS= read -r config; do
    n=$((n + 1))
    if [ "$config" = baseline ]; then
      run_ns "$@" >> "$work/times.$n"
    else
      # shellcheck disable=SC2086 # the configuration is a list of options
      run_ns "$record" --source=perf $config -o "$work/out.fdata" -- "$@" >> "$work/times.$n"
    fi
  done
  i=$((i + 1))
done

echo "program: $*"
echo "runs: $runs per configuration, interleaved (median)"
printf '%-72s %10s %9s\n' configuration "median ms" overhead
base_ms=""
n=0
echo "$configs" | {
  while IFS= read -r config; do
    n=$((n + 1))
    ms=$(median < "$work/times.$n" | awk '{printf "%.1f", $1 / 1e6}')
    if [ -z "$base_ms" ]; then
      base_ms=$ms
      printf '%-72s %10s %9s\n' "$config" "$ms" "-"
    else
      printf '%-72s %10s %8.1f%%\n' "$config" "$ms" \
        "$(awk -v a="$ms" -v b="$base_ms" 'BEGIN {print (a / b - 1) * 100}')"
    fi
  done
}
if [ "$software" -eq 0 ]; then
  echo "goal: <= 5% for --lbr=user-callret --freq=10000 (100 us, the LBR papers' interval; docs/references.md)"
else
  echo "software clock: recorder cost only, not the LBR goal"
fi
