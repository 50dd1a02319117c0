#!/usr/bin/env python3
"""objdump-to-pa.py FUNC... < llvm-objdump -d --no-show-raw-insn output

Write a pre-aggregated profile that names real instructions of the given
functions: every conditional branch taken 10 times (2 mispredicted) to its
target, and the range from the function entry to its first conditional
branch executed 10 times. Deterministic: it only reads the disassembly."""
import re
import sys

funcs = set(sys.argv[1:])
cur = None
first = {}
out = []
for line in sys.stdin:
    m = re.match(r"^([0-9a-f]+) <(.+)>:$", line.strip())
    if m:
        cur = m.group(2) if m.group(2) in funcs else None
        start = m.group(1).lstrip("0")
        continue
    if cur is None:
        continue
    m = re.match(r"^\s*([0-9a-f]+):\s+(j\w+)\s+0x([0-9a-f]+) <([^+>]+)", line)
    if not m or m.group(2) == "jmp" or m.group(4) != cur:
        continue
    src, tgt = m.group(1), m.group(3)
    out.append(f"B {src} {tgt} 10 2")
    if cur not in first:
        first[cur] = (start, src)
for f, (start, src) in sorted(first.items()):
    out.append(f"F {start} {src} 10")
print("\n".join(out))
