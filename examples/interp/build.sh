#!/bin/sh
# Build the layout-sensitive interpreter example (see README.md).
#
#   build.sh objects DIR          compile into DIR/*.o and write DIR/layout.ld
#   build.sh default DIR PAD OUT [DATAPAD]
#                                 default link, PAD bytes of code added outside
#                                 the hot code: a pad object linked BETWEEN the
#                                 object files (handlers_a.o | pad | handlers_b.o);
#                                 DATAPAD bytes of data likewise (.data.keelpad)
#   build.sh planned DIR PAD OUT [DATAPAD]
#                                 planned link: DIR/layout.ld puts the hot code
#                                 (run + handlers) contiguously at a 4 KB
#                                 boundary after __keel_code_pad bytes
#                                 (-Wl,--defsym=__keel_code_pad=PAD), and
#                                 __keel_data_pad=DATAPAD bytes before .data
#   build.sh all DIR              objects, DIR/interp.default, DIR/interp.planned
#
# Environment: CC (default clang-22), LLD (default ld.lld from LLVM 22),
# LLVM_MC (default llvm-mc-22).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-clang-22}
LLD=${LLD:-/usr/lib/llvm-22/bin/ld.lld}
LLVM_MC=${LLVM_MC:-llvm-mc-22}
CFLAGS="-O2 -ffunction-sections -fdata-sections -fno-plt -fno-asynchronous-unwind-tables"
OBJS="interp.o handlers_a.o handlers_b.o handlers_c.o"

usage() { echo "usage: $0 objects DIR | default DIR PAD OUT [DATAPAD] | planned DIR PAD OUT [DATAPAD] | all DIR" >&2; exit 2; }

check_pad() {
  case $1 in ''|*[!0-9]*) echo "$0: pad must be a byte count, got '$1'" >&2; exit 2;; esac
}

objects() {
  mkdir -p "$1"
  for src in interp handlers_a handlers_b handlers_c; do
    $CC $CFLAGS -c "$here/$src.c" -o "$1/$src.o"
  done
  # The hand-written stand-in for the planner's layout.ld: the hot code in one
  # contiguous, 4 KB-aligned region placed after the code padding, so code
  # added outside it moves the region by whole pages only.
  cat > "$1/layout.ld" <<'LD'
PROVIDE(__keel_code_pad = 0);
PROVIDE(__keel_data_pad = 0);
SECTIONS {
  .text.keel.hot : {
    . += __keel_code_pad;
    . = ALIGN(4096);
    *(.text.run)
    *(.text.op_*)
  }
} INSERT BEFORE .text;
SECTIONS {
  .data.keel.pad : {
    . += __keel_data_pad;
  }
} INSERT BEFORE .data;
LD
}

# A relocatable object holding PAD bytes of nops in its own text section and
# DATAPAD zero bytes in its own data section.
pad_object() {
  printf '\t.section .text.keelpad,"ax",@progbits\n\t.skip %s, 0x90\n\t.section .data.keelpad,"aw",@progbits\n\t.skip %s, 0\n' \
    "$1" "$2" > "$3.s"
  $LLVM_MC -filetype=obj -triple=x86_64-pc-linux-gnu "$3.s" -o "$3"
  rm -f "$3.s"
}

link_default() {
  check_pad "$2"; check_pad "$4"
  pad_object "$2" "$4" "$3.pad.o"
  (cd "$1" && $CC -fuse-ld=lld --ld-path="$LLD" interp.o handlers_a.o "$3.pad.o" \
     handlers_b.o handlers_c.o -o "$3")
  rm -f "$3.pad.o"
}

link_planned() {
  check_pad "$2"; check_pad "$4"
  (cd "$1" && $CC -fuse-ld=lld --ld-path="$LLD" $OBJS -Wl,-T,layout.ld \
     -Wl,--defsym=__keel_code_pad="$2" -Wl,--defsym=__keel_data_pad="$4" -o "$3")
}

abspath() { case $1 in /*) echo "$1";; *) echo "$PWD/$1";; esac; }

[ $# -ge 2 ] || usage
cmd=$1; dir=$(abspath "$2")
case $cmd in
  objects) objects "$dir" ;;
  default) [ $# -eq 4 ] || [ $# -eq 5 ] || usage
           link_default "$dir" "$3" "$(abspath "$4")" "${5:-0}" ;;
  planned) [ $# -eq 4 ] || [ $# -eq 5 ] || usage
           link_planned "$dir" "$3" "$(abspath "$4")" "${5:-0}" ;;
  all) objects "$dir"
       link_default "$dir" 0 "$dir/interp.default" 0
       link_planned "$dir" 0 "$dir/interp.planned" 0 ;;
  *) usage ;;
esac
