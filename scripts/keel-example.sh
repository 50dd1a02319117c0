#!/bin/sh
# README command (a): install what Keel needs, build it, and run the bundled
# example end to end: build examples/demo with clang-22, record an exact
# branch profile with valgrind (no PMU needed), and print its hottest
# functions and call edges. Outputs go to ${KEEL_BUILD:-build}/example.
# Then: plan a layout, rebuild the demo with the LayoutOpt pass plugin and the
# generated linker script, and sweep the layout-sensitive interpreter
# (examples/interp) default vs planned with the deterministic sim backend.
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

# The function-level plan (--preset=functions), which the pass plugin applies
# below; layout-order's default, the recommended plan, also lays out basic
# blocks (README.md, "The recommended build").
step "plan a layout (hot/warm/cold, function order, hot data)"
"$bin/layout-order" --preset=functions --binary "$out/demo" --profile "$out/demo.fdata" -o "$out/demo.plan" --print-plan

step "rebuild the demo with the pass plugin and the plan, link with the order file and linker script"
clang-22 -O2 -ffunction-sections -fdata-sections -fpass-plugin="$build/lib/LayoutOpt.so" \
  -mllvm -layout-plan="$out/demo.plan/plan.yaml" -mllvm -layout-summary \
  -c "$top/examples/demo/demo.c" -o "$out/demo.o"
clang-22 -fuse-ld=lld -Wl,-z,keep-text-section-prefix "$out/demo.o" -o "$out/demo.planned" \
  -Wl,--symbol-ordering-file="$out/demo.plan/order.txt" -Wl,-T,"$out/demo.plan/layout.ld"
"$out/demo" > "$out/demo.out"
"$out/demo.planned" > "$out/demo.planned.out"
cmp "$out/demo.out" "$out/demo.planned.out" && echo "same output as the default build"
llvm-nm-22 -n "$out/demo.planned" | grep -E ' [tT] ' | head -8

step "sweep the interpreter example: default link vs planned link (sim backend, I1 4 KB 2-way)"
interp="$out/interp"
"$top/examples/interp/build.sh" all "$interp" > /dev/null
"$bin/layout-record" --source=valgrind -o "$interp/interp.fdata" -- "$interp/interp.default" 2000 > /dev/null
"$bin/layout-order" --preset=functions --binary "$interp/interp.default" --profile "$interp/interp.fdata" -o "$interp/plan" > /dev/null
objs="$interp/interp.o $interp/handlers_a.o $interp/handlers_b.o $interp/handlers_c.o"
"$bin/layout-sweep" --geometry=small --from=0 --to=3840 --step=256 \
  --relink="$top/examples/interp/build.sh default $interp {pad} {out}" \
  --compare="$interp/interp.default" \
  --compare-relink="clang-22 -fuse-ld=lld $objs -Wl,--symbol-ordering-file=$interp/plan/order.txt -Wl,-T,$interp/plan/layout.ld -Wl,--defsym=__keel_code_pad={pad} -o {out}" \
  --json="$out/interp-sweep.json" --svg="$out/interp-sweep.svg" --html="$out/interp-sweep.html" \
  "$interp/interp.default" 2000 | tail -n 7

printf '\nprofile: %s\nplan: %s\nsweep report: %s\n' "$out/demo.fdata" "$out/demo.plan" "$out/interp-sweep.html"
