#!/bin/sh
# Configure and build Keel with clang-22 into ${KEEL_BUILD:-build}.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${KEEL_BUILD:-$top/build}
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$top" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld-22 -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=lld-22 \
    -DCMAKE_MODULE_LINKER_FLAGS=-fuse-ld=lld-22 \
    -DLLVM_DIR=/usr/lib/llvm-22/lib/cmake/llvm
fi
cmake --build "$build" -j"$(nproc)"
