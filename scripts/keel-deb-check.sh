#!/bin/sh
# Build keel_<version>_amd64.deb with CPack, check that it ships the README,
# the copyright file and the guide's examples, install it with apt-get
# (which pulls the declared dependencies), check that the installed tools,
# plugin and CMake package work from /usr, run docs/getting-started.md from
# the installed copy alone (no source tree, no build tree on PATH), then
# remove the package again.
# As root, on Debian bookworm; build dir ${KEEL_BUILD:-build}; the .deb is
# left in $KEEL_BUILD/package. docs/install.md.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${KEEL_BUILD:-$top/build}
export KEEL_BUILD="$build"

"$top/scripts/build.sh"
rm -rf "$build/package"
(cd "$build" && cpack -G DEB -B "$build/package" > /dev/null)
deb=$(ls "$build"/package/keel_*_amd64.deb)
echo "== $deb"
dpkg-deb --field "$deb" Package Version Architecture Depends

echo "== the README, the copyright file and the examples the guide copies"
dpkg-deb -c "$deb" | awk '{print $6}' > "$build/package/contents.txt"
for f in README.md copyright getting-started.md examples/interp/interp.c examples/interp/interp.h \
         examples/interp/ops.inc examples/interp/handlers_a.c examples/interp/handlers_b.c \
         examples/interp/handlers_c.c examples/app/CMakeLists.txt; do
  grep -qx "./usr/share/doc/keel/$f" "$build/package/contents.txt" \
    || { echo "keel-deb-check: the package lacks /usr/share/doc/keel/$f" >&2; exit 1; }
done
dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/share/doc/keel/copyright \
  | grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/'

if dpkg-query -W -f='${Status}' keel 2>/dev/null | grep -q "ok installed"; then
  echo "keel-deb-check: a keel package is already installed; remove it first" >&2
  exit 2
fi
work=$(mktemp -d)
cleanup() {
  apt-get remove -y -qq keel > /dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

echo "== apt-get install $deb"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$deb" > "$work/apt.log" 2>&1 \
  || { cat "$work/apt.log"; exit 1; }

echo "== installed tools"
for tool in $(dpkg -L keel | grep '^/usr/bin/' | sort); do
  "$tool" --version | head -n 1
  # keel-cc is the compiler wrapper: every word is clang's, so its --version
  # is clang's and it has no help or man page of its own (docs/optimize.md).
  if [ "$(basename "$tool")" = keel-cc ]; then
    "$tool" --version | head -n 1 | grep -q clang
    continue
  fi
  "$tool" --help > /dev/null
  test -f "/usr/share/man/man1/$(basename "$tool").1"
done

echo "== the plugin loads in clang-22, the program links with a plan template"
cat > "$work/hello.c" <<'C'
#include <stdio.h>
__attribute__((hot)) int twice(int x) { return 2 * x; }
int main(void) { printf("%d\n", twice(21)); return 0; }
C
clang-22 -O2 -ffunction-sections -fpass-plugin=/usr/lib/keel/LayoutOpt.so -c "$work/hello.c" -o "$work/hello.o"
clang-22 -fuse-ld=lld -Wl,-z,keep-text-section-prefix -Wl,-T,/usr/share/keel/linker-scripts/keel-hot-text.ld \
  "$work/hello.o" -o "$work/hello"
test "$("$work/hello")" = 42

echo "== layout-sweep finds the installed keel-sim (--cost=skylake needs it: exit 3 without)"
test -x /usr/lib/keel/keel-sim/keel-sim-amd64-linux
layout-sweep --backend=sim --cost=skylake --axis=env --from=0 --to=64 --step=64 --json "$work/hello" \
  > "$work/sweep.json"
grep -q '"sim_tool": "keel-sim"' "$work/sweep.json"

echo "== find_package(Keel) from /usr, keel_layout(), the profile target"
cmake -S /usr/share/doc/keel/examples/app -B "$work/app" -G Ninja -DCMAKE_C_COMPILER=clang-22 > /dev/null
cmake --build "$work/app" > /dev/null
cmake --build "$work/app" --target app-keel-profile > /dev/null
cmake --build "$work/app" | grep "Keel: app uses the plan"
"$work/app/app" 100

echo "== docs/getting-started.md, run from /usr/share/doc/keel with the installed tools only"
mkdir "$work/guide"
env -i PATH=/usr/bin:/bin HOME="$work" LANG=C.UTF-8 KEEL_LIB=/usr/lib/keel \
    KEEL_EXAMPLES=/usr/share/doc/keel/examples \
  python3 "$top/test/docs/Inputs/run-guide.py" /usr/share/doc/keel/getting-started.md "$work/guide" \
  > "$work/guide.log" 2>&1 || { cat "$work/guide.log"; exit 1; }
tail -n 1 "$work/guide.log"

echo "== remove"
apt-get remove -y -qq keel > /dev/null
test ! -e /usr/bin/layout-order
echo "keel-deb-check: OK"
