#!/bin/sh
# False sharing on this machine (not run in CI):
#  1. Peri's false-sharing microbenchmark (docs/references.md) with 2 threads, unpadded (`2 0 1`, one line)
#     vs padded (`2 0 64`, 256 bytes apart): interleaved rounds, median wall
#     time of each, ratio unpadded/padded; once with the article's plain
#     loop (counter and pointer in memory, the element loaded, incremented
#     and stored each iteration), once with the optimised loop
#     (-DKEEL_FS_TIGHT: counter in a register), once with an atomic add
#     (-DKEEL_FS_ATOMIC).
#     Threads are pinned to CPUs 0 and 1 (taskset -c 0,1 plus KEEL_FS_PIN=1:
#     thread i starts on the i-th CPU). The microbenchmark runs under
#     `chrt -f 1` when run as root (CHRT=0 turns it off, CHRT=1 forces it):
#     on a loaded machine both threads then really run at the same time
#     (the rest of the machine waits, < 1 s per run).
#  2. context: the cross-CPU cache-line round trip (false-sharing-pingpong.c),
#     which says whether the two CPUs really run at the same time.
#  3. instrumentation overhead: the same runs built with KeelFalseSharing.so
#     (all accesses with the inline fast path, the default; all accesses
#     calling the runtime, -keel-fs-inline=0; sampled 1/16) vs plain, median
#     ratio, for the
#     article's loop and for the optimised loop (also under chrt when root).
# Usage: bench/false-sharing.sh [build-dir]   (env: ROUNDS=7, ITERS=50000000,
#        OITERS=10000000 for the overhead runs)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
lib=$build/lib
rounds=${ROUNDS:-7}
iters=${ITERS:-50000000}
oiters=${OITERS:-10000000}
src=$top/examples/false-sharing/fs-array.c
work=$(mktemp -d "${TMPDIR:-/tmp}/keel-fs-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

cd "$work"
clang-22 -O2 -g "$src" -o plain -pthread
clang-22 -O2 -DKEEL_FS_ATOMIC "$src" -o atomic -pthread
clang-22 -O2 -DKEEL_FS_TIGHT "$src" -o tight -pthread
clang-22 -O2 "$top/bench/false-sharing-pingpong.c" -o pingpong -pthread
rt=
chrt_on=${CHRT:-$([ "$(id -u)" = 0 ] && echo 1 || echo 0)}
[ "$chrt_on" = 1 ] && rt="chrt -f 1"
clang-22 -O2 -g -fpass-plugin="$lib/KeelFalseSharing.so" "$src" -o instr \
  -L"$lib" -lkeelfs -Wl,-rpath,"$lib" -pthread
clang-22 -O2 -g -fpass-plugin="$lib/KeelFalseSharing.so" -mllvm -keel-fs-inline=0 \
  "$src" -o call -L"$lib" -lkeelfs -Wl,-rpath,"$lib" -pthread
clang-22 -O2 -g -DKEEL_FS_TIGHT -fpass-plugin="$lib/KeelFalseSharing.so" \
  -mllvm -keel-fs-inline=0 "$src" -o tcall -L"$lib" -lkeelfs \
  -Wl,-rpath,"$lib" -pthread
clang-22 -O2 -g -fpass-plugin="$lib/KeelFalseSharing.so" -mllvm -keel-fs-sample=16 \
  "$src" -o sampled -L"$lib" -lkeelfs -Wl,-rpath,"$lib" -pthread
clang-22 -O2 -g -DKEEL_FS_TIGHT -fpass-plugin="$lib/KeelFalseSharing.so" "$src" \
  -o tinstr -L"$lib" -lkeelfs -Wl,-rpath,"$lib" -pthread
clang-22 -O2 -g -DKEEL_FS_TIGHT -fpass-plugin="$lib/KeelFalseSharing.so" \
  -mllvm -keel-fs-sample=16 "$src" -o tsampled -L"$lib" -lkeelfs \
  -Wl,-rpath,"$lib" -pthread

# run NAME PROGRAM ITERS ARGS... -> append "NAME wall-us cpu-us" to
# times.txt (cpu = user+system of the child: cpu/wall near 2 means both
# threads really ran at the same time, near 1 that they took turns)
cat > timeit.py <<'PY'
import os, resource, subprocess, sys, time
name, out = sys.argv[1], sys.argv[2]
r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
t0 = time.monotonic()
subprocess.run(sys.argv[3:], check=True, stdout=subprocess.DEVNULL)
t1 = time.monotonic()
r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
with open(out, "a") as f:
    f.write(f"{name} {int((t1 - t0) * 1e6)} {int(cpu * 1e6)}\n")
PY
runrt() {
  name=$1 prog=$2 n=$3; shift 3
  KEEL_FS_PIN=1 KEEL_FS_ITERS=$n KEEL_FS_OUT=$work/fs.out \
    python3 timeit.py "$name" times.txt $rt taskset -c 0,1 "./$prog" "$@"
}

: > times.txt
i=1
while [ "$i" -le "$rounds" ]; do
  # alternate the order every round so drift hits both sides alike
  if [ $((i % 2)) -eq 1 ]; then
    runrt unpadded plain "$iters" 2 0 1; runrt padded plain "$iters" 2 0 64
    runrt t-unpadded tight "$iters" 2 0 1; runrt t-padded tight "$iters" 2 0 64
    runrt a-unpadded atomic "$oiters" 2 0 1; runrt a-padded atomic "$oiters" 2 0 64
  else
    runrt padded plain "$iters" 2 0 64; runrt unpadded plain "$iters" 2 0 1
    runrt t-padded tight "$iters" 2 0 64; runrt t-unpadded tight "$iters" 2 0 1
    runrt a-padded atomic "$oiters" 2 0 64; runrt a-unpadded atomic "$oiters" 2 0 1
  fi
  for case in "shared 2 0 1" "padded 2 0 64"; do
    set -- $case; c=$1; shift
    runrt o-plain-$c plain "$oiters" "$@"
    runrt o-instr-$c instr "$oiters" "$@"
    runrt o-call-$c call "$oiters" "$@"
    runrt o-sampled-$c sampled "$oiters" "$@"
    runrt ot-plain-$c tight "$oiters" "$@"
    runrt ot-instr-$c tinstr "$oiters" "$@"
    runrt ot-call-$c tcall "$oiters" "$@"
    runrt ot-sampled-$c tsampled "$oiters" "$@"
  done
  i=$((i + 1))
done

for i in 1 2 3 4 5; do $rt taskset -c 0,1 ./pingpong 20000; done > pingpong.txt
uptime
lscpu | grep -E '^(Model name|Thread\(s\) per core|Core\(s\) per socket|Hypervisor vendor):'
python3 - "$rounds" "$iters" "$oiters" "$chrt_on" <<'PY'
import statistics, sys
rounds, iters, oiters, chrt_on = sys.argv[1:]
t, c = {}, {}
for line in open("times.txt"):
    k, us, cpu = line.split()
    t.setdefault(k, []).append(int(us) / 1e6)
    c.setdefault(k, []).append(int(cpu) / 1e6)
med = {k: statistics.median(v) for k, v in t.items()}
def row(k):
    v = t[k]
    par = statistics.median(ci / wi for ci, wi in zip(c[k], v))
    return (f"{k:18} median {med[k]:8.3f} s  (min {min(v):.3f}, max {max(v):.3f}, "
            f"n={len(v)})  cpu/wall {par:.2f}")
import os
print(f"# {rounds} interleaved rounds, 2 threads pinned to CPUs 0,1"
      f"{', chrt -f 1' if chrt_on == '1' else ''}")
print(f"# the article's loop (counter and pointer in memory), {iters} updates per thread")
for k in ("unpadded", "padded"):
    print(row(k))
cmed = {k: statistics.median(v) for k, v in c.items()}
print(f"ratio unpadded/padded (median wall): {med['unpadded'] / med['padded']:.2f}x")
print(f"ratio unpadded/padded (median cpu):  {cmed['unpadded'] / cmed['padded']:.2f}x")
# Other work only ever adds time (other helpers' real-time tasks compete
# for the same CPUs): the fastest run of each is the least disturbed.
print(f"ratio unpadded/padded (fastest run): {min(t['unpadded']) / min(t['padded']):.2f}x")
print(f"# optimised loop (-DKEEL_FS_TIGHT: one incl (mem) per update), {iters} updates per thread")
for k in ("t-unpadded", "t-padded"):
    print(row(k))
print(f"ratio unpadded/padded, optimised loop (median wall): {med['t-unpadded'] / med['t-padded']:.2f}x, "
      f"fastest run {min(t['t-unpadded']) / min(t['t-padded']):.2f}x")
print(f"# atomic add (-DKEEL_FS_ATOMIC), {oiters} updates per thread")
for k in ("a-unpadded", "a-padded"):
    print(row(k))
print(f"ratio unpadded/padded, atomic (median wall): {med['a-unpadded'] / med['a-padded']:.2f}x, "
      f"fastest run {min(t['a-unpadded']) / min(t['a-padded']):.2f}x")
pp = sorted(float(x) for x in open("pingpong.txt"))
print(f"cross-CPU round trip (pingpong, 5 runs): median {statistics.median(pp):.0f} ns "
      f"(min {pp[0]:.0f}, max {pp[-1]:.0f}; bare metal: ~100-200 ns)")
for pre, what in (("o", "the article's loop"), ("ot", "optimised loop")):
    print(f"# instrumentation overhead, {what}, {oiters} updates per thread")
    for case in ("shared", "padded"):
        for kind in ("plain", "instr", "call", "sampled"):
            print(row(f"{pre}-{kind}-{case}"))
    for case in ("shared", "padded"):
        p = med[f"{pre}-plain-{case}"]
        q = cmed[f"{pre}-plain-{case}"]
        f = min(t[f"{pre}-plain-{case}"])
        print(f"overhead {case:7}: instrumented {med[f'{pre}-instr-{case}'] / p:.2f}x wall "
              f"({cmed[f'{pre}-instr-{case}'] / q:.2f}x cpu, fastest {min(t[f'{pre}-instr-{case}']) / f:.2f}x), "
              f"every access calling the runtime (-keel-fs-inline=0) {med[f'{pre}-call-{case}'] / p:.2f}x wall, "
              f"sampled 1/16 {med[f'{pre}-sampled-{case}'] / p:.2f}x wall "
              f"({cmed[f'{pre}-sampled-{case}'] / q:.2f}x cpu, fastest {min(t[f'{pre}-sampled-{case}']) / f:.2f}x)")
PY
