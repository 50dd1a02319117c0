#!/bin/sh
# Set up, build, and run every test (GoogleTest + lit) through ctest.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup.sh"
"$top/scripts/build.sh"
cd "${KEEL_BUILD:-$top/build}"
ctest --output-on-failure -j"$(nproc)"
