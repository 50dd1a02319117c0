"""Check that a binary has the layout a Keel plan asks for.

usage: check-layout.py ORDER_TXT NM_OUTPUT OBJECTS_NM
ORDER_TXT is layout-order's order.txt (planned function order); NM_OUTPUT is
`llvm-nm -n --defined-only` of the binary; OBJECTS_NM is `llvm-nm
--defined-only` of the program's own objects. Only the program's functions
are checked: the plan also lists C runtime start-up functions (crtbegin.o's
frame_dummy ...) that ran under valgrind but sit in one .text section the
linker cannot reorder. Passes when every planned function of the program is
in the binary, their addresses increase in the planned order, and no other
function lies between the first and the last (contiguous). Prints what it
checked; exits 1 naming the first violation.
"""
import sys


def functions(path):
    """[(address, name)] of the function symbols in llvm-nm output."""
    out = []
    for line in open(path):
        parts = line.split()
        if len(parts) == 3 and parts[1] in ("T", "t"):
            out.append((int(parts[0], 16), parts[2]))
    return out


text = functions(sys.argv[2])
addr = {name: a for a, name in text}
own = {name for _, name in functions(sys.argv[3])}
order = [l.strip() for l in open(sys.argv[1]) if l.strip() in own]

if not order:
    sys.exit("check-layout: order file is empty")
missing = [f for f in order if f not in addr]
if missing:
    sys.exit("check-layout: planned functions not in the binary: " + ", ".join(missing))
for prev, cur in zip(order, order[1:]):
    if addr[cur] <= addr[prev]:
        sys.exit("check-layout: %s (0x%x) is not after %s (0x%x)" % (cur, addr[cur], prev, addr[prev]))
lo, hi = addr[order[0]], addr[order[-1]]
planned = set(order)
between = [n for a, n in text if lo < a < hi and n not in planned]
if between:
    sys.exit("check-layout: not contiguous: %s between %s and %s" % (", ".join(between), order[0], order[-1]))
print("layout: %d planned functions contiguous in planned order: %s" % (len(order), " ".join(order)))
