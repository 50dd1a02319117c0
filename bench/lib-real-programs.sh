# Shared helpers for bench/ scripts that build real programs from Debian
# source packages, outside the repository (sourced, not run).
#   keel_enable_deb_src       copy the apt source list with Types: deb-src
#   keel_get_source PKG DIR   apt-get source PKG into DIR (once)
#   keel_build_lua SRC OUT CFLAGS...   compile Lua 5.4's objects into OUT
#   keel_build_zstd SRC OUT CFLAGS...  compile the zstd CLI's objects into OUT
#   keel_zstd_args SAMPLE              the zstd workload's arguments
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
  # apt-get source unpacks into PKG-VERSION/; several packages may share DIR.
  if ! ls -d "$dir/$pkg"-*/ >/dev/null 2>&1; then
    keel_enable_deb_src
    # The newest version may be listed by a suite whose pool lacks its files
    # (seen: libzstd's security update answered 404); then try the others.
    if ! (cd "$dir" && apt-get source -qq "$pkg" >/dev/null 2>&1); then
      for v in $(apt-cache showsrc "$pkg" | sed -n 's/^Version: //p'); do
        (cd "$dir" && apt-get source -qq "$pkg=$v" >/dev/null 2>&1) && break
      done
    fi
  fi
  ls -d "$dir/$pkg"-*/ | head -n1
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

# The zstd CLI from libzstd's lib/ and programs/ sources: single-threaded
# (no ZSTD_MULTITHREAD), no legacy formats, and the C Huffman decoder instead
# of huf_decompress_amd64.S (so every function is a C function with its own
# section and basic-block address map, like the rest).
KEEL_ZSTD_DEFS="-DZSTD_LEGACY_SUPPORT=0 -DZSTD_DISABLE_ASM"

keel_zstd_sources() {
  ls "$1"/lib/common/*.c "$1"/lib/compress/*.c "$1"/lib/decompress/*.c \
     "$1"/lib/dictBuilder/*.c "$1"/programs/*.c
}

keel_build_zstd() {
  src=$1 out=$2; shift 2
  mkdir -p "$out"
  for c in $(keel_zstd_sources "$src"); do
    clang-22 -c $KEEL_ZSTD_DEFS -I"$src/lib" -I"$src/lib/common" "$@" "$c" \
      -o "$out/$(basename "$c" .c).o"
  done
}

# zstd's own benchmark (-b), made deterministic: -i0 asks for a 1 ms time
# budget, and one compression or decompression of SAMPLE takes longer than
# that under valgrind, so each level runs exactly one compression and one
# decompression pass (benchfn.c stops once the budget is spent); -qq prints
# nothing (speeds would be formatted with varying digits). Levels 1-3,
# SAMPLE cut into independent 16 KB blocks.
keel_zstd_args() {
  echo "-b1e3 -B16K -i0 -qq $1"
}
