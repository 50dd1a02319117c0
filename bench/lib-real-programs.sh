# Shared helpers for bench/ scripts that build real programs from Debian
# source packages, outside the repository (sourced, not run).
#   keel_enable_deb_src       copy the apt source list with Types: deb-src
#   keel_get_source PKG DIR   apt-get source PKG into DIR (once)
#   keel_build_lua SRC OUT CFLAGS...   compile Lua 5.4's objects into OUT
# Lua seeds its string hash from time() and the address of lua_newstate, and
# randomises table.sort pivots with clock(): both make the executed path
# depend on layout, so they are pinned with -D flags (no source patches).

keel_enable_deb_src() {
  f=/etc/apt/sources.list.d/keel-src.sources
  if [ ! -f "$f" ]; then
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources > "$f"
    apt-get update -qq
  fi
}

keel_get_source() {
  pkg=$1 dir=$2
  mkdir -p "$dir"
  if ! ls -d "$dir"/*/ >/dev/null 2>&1; then
    keel_enable_deb_src
    (cd "$dir" && apt-get source -qq "$pkg" >/dev/null 2>&1)
  fi
  ls -d "$dir"/*/ | head -n1
}

KEEL_LUA_DEFS="-DLUA_USE_LINUX -Dluai_makeseed(L)=0x5eed -Dl_randomizePivot()=0"

keel_build_lua() {
  src=$1 out=$2; shift 2
  mkdir -p "$out"
  # Debian's luaconf.h includes a header its rules file generates.
  printf '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"\n' > "$out/lua5.4-deb-multiarch.h"
  for c in "$src"/src/*.c; do
    case $(basename "$c") in luac.c|onelua.c) continue ;; esac
    clang-22 -c $KEEL_LUA_DEFS -I"$out" "$@" "$c" -o "$out/$(basename "$c" .c).o"
  done
}
