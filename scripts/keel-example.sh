#!/bin/sh
# README command (a): install what Keel needs, build it, and run the bundled
# example end to end: build examples/demo with clang-22, record an exact
# branch profile with valgrind (no PMU needed), and print its hottest
# functions and call edges. Outputs go to ${KEEL_BUILD:-build}/example.
# Later pipeline stages (plan, build with the plan, sweep) append here.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${KEEL_BUILD:-$top/build}
export KEEL_BUILD="$build"

"$top/scripts/setup.sh"
"$top/scripts/build.sh"

out="$build/example"
mkdir -p "$out"
bin="$build/bin"

step() { printf '\n== %s\n' "$*"; }

step "build the demo (clang-22 -O2, relocations kept for BOLT)"
clang-22 -O2 -Wl,--emit-relocs "$top/examples/demo/demo.c" -o "$out/demo"

step "record an exact branch profile under valgrind (callgrind)"
"$bin/layout-record" --source=valgrind -o "$out/demo.fdata" \
  --keep-callgrind="$out/demo.callgrind" -- "$out/demo"

step "hottest functions and call edges"
"$bin/layout-profile" show --binary "$out/demo" --top=8 "$out/demo.fdata"

printf '\nprofile: %s\n' "$out/demo.fdata"
