#!/bin/sh
# Read throughput and peak memory of Keel's native perf.data reader against
# the text path the same profile takes without it (`perf script` to text,
# then `layout-profile convert` of the text) and against perf2bolt, on the
# same perf.data in the same run (not part of CI).
#
#   bench/perfdata-throughput.sh [SAMPLES [DEPTH [REPEATS]]]
#
# SAMPLES (default 1000000) LBR samples of DEPTH (default 16) entries come
# from bench/perfscript-gen.py (seed 1: real direct branches of a copy of
# layout-profile, as bench/perfscript-throughput.sh uses), are turned into a
# keel-samples file with the binary's executable mapping and build id, and
# written as perf.data by `layout-record --source=perf --replay`. Then, each
# REPEATS (default 3) times, interleaved:
#   native   layout-profile convert --to=pa FILE.perf.data
#   script   perf script -F pid,ip,brstack -i FILE.perf.data > text
#   text     layout-profile convert --perf-pid-field --to=pa text
#   perf2bolt perf2bolt-22 -p FILE.perf.data (skipped when absent or when
#            PERF2BOLT=0)
# We report the median wall and cpu time and the largest peak RSS of each
# (/usr/bin/time -v), the text path as script + text (wall summed, RSS the
# larger), the ratios, and whether each target is met: native at least 3x
# faster than the text path and 20x faster than perf2bolt (wall), at no
# more memory than the text path. The native and text profiles are compared
# (they must be identical). Needs: python3, /usr/bin/time, perf,
# llvm-objdump-22, llvm-readelf-22.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${KEEL_BUILD:-$top/build}
samples=${1:-1000000}
depth=${2:-16}
repeats=${3:-3}
llvm=/usr/lib/llvm-22/bin
tool=$build/bin/layout-profile
record=$build/bin/layout-record
[ -x "$tool" ] || { echo "build first: $tool is missing" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "install the 'time' package" >&2; exit 3; }
command -v perf > /dev/null || { echo "perf is not installed" >&2; exit 3; }
p2b=""
if [ "${PERF2BOLT:-1}" != 0 ]; then
  p2b=$(command -v perf2bolt-22 || command -v "$llvm/perf2bolt" || true)
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/keel-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$tool" "$work/target"   # a stable binary to take addresses from
"$llvm/llvm-objdump" -d --no-show-raw-insn "$work/target" > "$work/target.dis"
echo "generating $samples samples x $depth entries ..."
python3 "$top/bench/perfscript-gen.py" "$samples" "$depth" 1 \
  < "$work/target.dis" > "$work/gen.perf"
# The executable PT_LOAD of the target, mapped at its link-time address (so
# the load bias is 0 and the generated addresses are runtime addresses).
load=$("$llvm/llvm-readelf" -lW "$work/target" |
  awk '$1 == "LOAD" && $8 == "E" { print $2, $3, $6; exit }')
set -- $load
off=$(printf '%d' "$1"); vaddr=$(printf '%d' "$2"); memsz=$(printf '%d' "$3")
pgoff=$((off / 4096 * 4096)); start=$((vaddr - (off - pgoff)))
len=$(( (memsz + off - pgoff + 4095) / 4096 * 4096 ))
buildid=$("$llvm/llvm-readelf" -n "$work/target" |
  awk '/Build ID:/ { print $3; exit }')
{
  printf '# keel-samples v1\ncommand\t%s\nevent\tcycles\ncounters\t-\t-\n' "$work/target"
  printf 'sampling\tperiod\t1\nlbr\tany,user\n'
  printf 'stats\tlost-records=0\tlost-events=0\tlost-samples=0\tthrottle=0\tunthrottle=0\tunknown=0\n'
  printf 'comm\t1\t1\t0\texec\ttarget\n'
  printf 'mmap\t1\t1\t0\t0x%x\t0x%x\t0x%x\t5\t%s\t%s\n' "$start" "$len" "$pgoff" "$buildid" "$work/target"
  awk '{ printf "sample\t1\t1\t%d\t0\t1\t0x%s\t0\t0", NR, $1
         for (i = 2; i <= NF; i++) printf "\t%s/-", $i
         printf "\n" }' "$work/gen.perf"
} > "$work/gen.keelprof"
rm -f "$work/gen.perf"
"$record" --source=perf --replay="$work/gen.keelprof" \
  -o "$work/samples.perf.data" -- "$work/target" 2> /dev/null
rm -f "$work/gen.keelprof"
size=$(stat -c %s "$work/samples.perf.data")
echo "input: $samples samples, $((size / 1048576)) MiB of perf.data"

# measure NAME CMD...: run under /usr/bin/time -v (stdout to $work/NAME.out),
# append "wall cpu rss" to $work/NAME.times.
measure() {
  name=$1; shift
  /usr/bin/time -v "$@" > "$work/$name.out" 2> "$work/$name.log" || {
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
  measure native "$tool" convert --binary "$work/target" --to=pa \
    "$work/samples.perf.data" -o "$work/native.pa"
  measure script perf script -F pid,ip,brstack -i "$work/samples.perf.data"
  measure text "$tool" convert --binary "$work/target" --perf-pid-field \
    --format=perf --to=pa "$work/script.out" -o "$work/text.pa"
  if [ -n "$p2b" ]; then
    measure perf2bolt "$p2b" -p "$work/samples.perf.data" \
      -o "$work/p2b.fdata" "$work/target"
  fi
  i=$((i + 1))
done
cmp "$work/native.pa" "$work/text.pa" ||
  { echo "native and text profiles differ" >&2; exit 1; }

# median wall and cpu (the lower middle one for an even count), max rss
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
medians() {
  printf '%s %s %s\n' "$(cut -d' ' -f1 "$work/$1.times" | median)" \
    "$(cut -d' ' -f2 "$work/$1.times" | median)" \
    "$(cut -d' ' -f3 "$work/$1.times" | sort -n | tail -1)"
}
line() { echo "$2" | awk -v s="$samples" -v name="$1" '{
  printf "%-44s %8.2f s wall %8.2f s cpu %12.0f samples/s %8.1f MiB peak RSS\n",
    name, $1, $2, s / $1, $3 / 1024 }'; }
n=$(medians native); sc=$(medians script); tx=$(medians text)
path=$(echo "$sc $tx" | awk '{ print $1 + $4, $2 + $5, ($3 > $6 ? $3 : $6) }')
echo
line "native: layout-profile convert perf.data" "$n"
line "  perf script -F pid,ip,brstack" "$sc"
line "  layout-profile convert (text)" "$tx"
line "text path: perf script + convert" "$path"
if [ -n "$p2b" ]; then
  pb=$(medians perf2bolt)
  line "perf2bolt -p perf.data" "$pb"
fi
echo "$n $path" | awk '{ printf "\nnative vs text path: %.1fx faster (wall), %.1fx (cpu), memory %.2f of it\n",
  $4 / $1, $5 / $2, $3 / $6 }'
echo "$n $tx" | awk '{ printf "native vs text convert alone: %.1fx faster (wall)\n", $4 / $1 }'
if [ -n "$p2b" ]; then
  echo "$n $pb" | awk '{ printf "native vs perf2bolt: %.1fx faster (wall), %.1fx (cpu), memory %.2f of it\n",
    $4 / $1, $5 / $2, $3 / $6 }'
fi
# The targets, each judged on the median wall time.
echo
echo "$n $path ${pb:-}" | awk '{
  printf "target >= 3x the text path (wall):      %5.1fx  %s\n", $4 / $1, ($4 / $1 >= 3 ? "met" : "NOT met")
  printf "target memory <= the text path (RSS):   %5.2f   %s\n", $3 / $6, ($3 <= $6 ? "met" : "NOT met")
  if (NF >= 9)
    printf "target >= 20x perf2bolt (wall):         %5.1fx  %s\n", $7 / $1, ($7 / $1 >= 20 ? "met" : "NOT met")
  else
    print "target >= 20x perf2bolt: not measured (no perf2bolt)"
}'
