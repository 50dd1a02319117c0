#!/bin/sh
# Throughput and peak memory of `layout-profile convert` on perf script
# brstack text, beside `llvm-profgen-22 --skip-symbolization` on the same
# file in the same run (not part of CI).
#
#   bench/perfscript-throughput.sh [SAMPLES [DEPTH [REPEATS]]]
#
# SAMPLES (default 1000000) LBR samples of DEPTH (default 16) entries are
# generated deterministically (bench/perfscript-gen.py, seed 1) from the
# direct branches of a real binary: a copy of layout-profile itself, so the
# addresses are valid code and the fall-through ranges between entries are
# real. Each tool runs REPEATS (default 3) times, interleaved; we report the
# fastest wall time and the largest peak RSS (/usr/bin/time -v), and the
# ratios. Needs: python3, /usr/bin/time (Debian package "time"),
# llvm-objdump-22 and llvm-profgen-22.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${KEEL_BUILD:-$top/build}
samples=${1:-1000000}
depth=${2:-16}
repeats=${3:-3}
llvm=/usr/lib/llvm-22/bin
tool=$build/bin/layout-profile
[ -x "$tool" ] || { echo "build first: $tool is missing" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "install the 'time' package" >&2; exit 3; }

work=$(mktemp -d "${TMPDIR:-/tmp}/keel-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$tool" "$work/target"   # a stable binary to take addresses from
"$llvm/llvm-objdump" -d --no-show-raw-insn "$work/target" > "$work/target.dis"
echo "generating $samples samples x $depth entries ..."
python3 "$top/bench/perfscript-gen.py" "$samples" "$depth" 1 \
  < "$work/target.dis" > "$work/samples.perf"
size=$(stat -c %s "$work/samples.perf")
echo "input: $(wc -l < "$work/samples.perf") lines, $((size / 1048576)) MiB"

# measure NAME CMD...: run under /usr/bin/time -v, append "wall rss" to
# $work/NAME.times.
measure() {
  name=$1; shift
  /usr/bin/time -v "$@" > /dev/null 2> "$work/$name.log" || {
    cat "$work/$name.log" >&2; exit 1; }
  awk -F': ' '
    /Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0
      for (i = 1; i <= n; i++) s = s * 60 + t[i]; wall = s }
    /User time/ { user = $2 }
    /System time/ { sys = $2 }
    /Maximum resident set size/ { rss = $2 }
    END { printf "%s %s %s\n", wall, user + sys, rss }' "$work/$name.log" \
    >> "$work/$name.times"
}

i=0
while [ "$i" -lt "$repeats" ]; do
  measure keel "$tool" convert --binary "$work/target" --to=pa \
    "$work/samples.perf" -o "$work/keel.pa"
  measure profgen "$llvm/llvm-profgen" --perfscript="$work/samples.perf" \
    --binary="$work/target" --skip-symbolization --output="$work/profgen.txt"
  measure keel-fdata "$tool" convert --binary "$work/target" \
    "$work/samples.perf" -o "$work/keel.fdata"
  i=$((i + 1))
done

# best (min) wall and cpu, max rss of each tool
summary() {
  sort -n "$work/$1.times" | awk -v s="$samples" -v name="$2" '
    NR == 1 { wall = $1 } { if (cpu == "" || $2 < cpu) cpu = $2; if ($3 > rss) rss = $3 }
    END { printf "%-34s %8.2f s wall %8.2f s cpu %12.0f samples/s %8.1f MiB peak RSS\n",
          name, wall, cpu, s / wall, rss / 1024
          print wall, cpu, rss > "/dev/stderr" }' 2>> "$work/summary"
}
echo
summary keel "layout-profile convert --to=pa"
summary profgen "llvm-profgen --skip-symbolization"
summary keel-fdata "layout-profile convert (fdata)"
awk 'NR == 1 { kw = $1; kc = $2; kr = $3 } NR == 2 { pw = $1; pc = $2; pr = $3 }
     END { printf "\nspeed-up (wall): %.1fx   speed-up (cpu): %.1fx   memory: %.2f of llvm-profgen (%.1fx less)\n",
           pw / kw, pc / kc, kr / pr, pr / kr }' "$work/summary"
echo "(target: >= 5x faster at <= 1/3 of the memory)"
