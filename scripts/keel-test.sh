#!/bin/sh
# Set up, build, and run every test (GoogleTest + lit) through ctest, then
# build the Debian package, install it with apt-get, check the installed
# tools, plugin and CMake package, and remove it (docs/install.md).
# KEEL_SKIP_DEB=1 skips the package check (it installs into /usr, as root).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup.sh"
"$top/scripts/build.sh"
cd "${KEEL_BUILD:-$top/build}"
ctest --output-on-failure -j"$(nproc)"
if [ "${KEEL_SKIP_DEB:-0}" != 1 ]; then
  "$top/scripts/keel-deb-check.sh"
fi
