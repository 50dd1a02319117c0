#!/bin/sh
# Build Keel with AddressSanitizer + UndefinedBehaviorSanitizer on its own
# libraries, tools and unit tests (-DKEEL_SANITIZE=address,undefined; the
# pass plugins, keelPlan and the LD_PRELOAD heap shim stay uninstrumented,
# see docs/hardening.md) into ${KEEL_ASAN_BUILD:-build-asan} (not KEEL_BUILD,
# which names the normal build in the same CI run) and run every test
# (GoogleTest + lit) through ctest. Any ASan/UBSan report fails its test.
#
#   scripts/keel-test-asan.sh            # KEEL_JOBS=2 by default
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${KEEL_ASAN_BUILD:-$top/build-asan}
jobs=${KEEL_JOBS:-2}
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$top" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld-22 -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=lld-22 \
    -DCMAKE_MODULE_LINKER_FLAGS=-fuse-ld=lld-22 \
    -DLLVM_DIR=/usr/lib/llvm-22/lib/cmake/llvm \
    -DKEEL_SANITIZE=address,undefined
else
  cmake "$build" -DKEEL_SANITIZE=address,undefined > /dev/null
fi
cmake --build "$build" -j"$jobs"
# Leaks are reported at exit (detect_leaks=1 is ASan's default on Linux);
# abort_on_error makes a report a crash that lit and ctest see.
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:abort_on_error=1}
export ASAN_OPTIONS UBSAN_OPTIONS
cd "$build"
ctest --output-on-failure -j"$jobs"
