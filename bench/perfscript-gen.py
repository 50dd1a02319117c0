#!/usr/bin/env python3
"""perfscript-gen.py N DEPTH SEED < llvm-objdump -d --no-show-raw-insn BIN

Write N deterministic `perf script -F ip,brstack` samples of DEPTH LBR
entries each, made of real direct branches of BIN: execution walks from a
branch target to one of the next few branches in the same function, so the
fall-through ranges between entries are valid too. Newest entry first, as
perf prints them; cycle counts vary so nearly every sample is distinct."""
import random
import re
import sys
from bisect import bisect_left

n, depth, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
branches = []  # (addr, target, func)
func = None
for line in sys.stdin:
    m = re.match(r"^([0-9a-f]+) <(.+)>:$", line.strip())
    if m:
        func = m.group(2)
        continue
    m = re.match(r"^\s*([0-9a-f]+):\s+(j\w+|callq?)\s+0x([0-9a-f]+) <", line)
    if m and func:
        branches.append((int(m.group(1), 16), int(m.group(3), 16), func))
branches.sort()
addrs = [b[0] for b in branches]
funcs = [b[2] for b in branches]
rng = random.Random(seed)
flags = ["P"] * 7 + ["M"]
out = sys.stdout
for _ in range(n):
    b = rng.randrange(len(branches))
    chain = []
    for _ in range(depth):
        frm, to, _f = branches[b]
        chain.append("0x%x/0x%x/%s/-/-/%d" % (frm, to, rng.choice(flags), rng.randrange(1, 400)))
        # Next: one of the first branches at or after the target, same function.
        i = bisect_left(addrs, to)
        cands = [k for k in range(i, min(i + 3, len(addrs)))]
        cands = [k for k in cands if funcs[k] == funcs[i]] if i < len(addrs) else []
        b = rng.choice(cands) if cands else rng.randrange(len(branches))
    chain.reverse()
    out.write(" %x %s\n" % (branches[b][0], " ".join(chain)))
