#!/usr/bin/env python3
"""Write seed inputs for fuzz-ring-buffer into DIR: the 8-byte layout
selector fuzz-ring-buffer.cpp decodes, then perf_event records (a COMM and
samples with IP, TID, TIME, PERIOD, READ of a group and a branch stack)."""
import os
import struct
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)

def rec(kind, body, misc=2):
    return struct.pack("<IHH", kind, misc, 8 + len(body)) + body

def sample(ip, time, branches, group):
    b = struct.pack("<Q", ip) + struct.pack("<II", 100, 101) + struct.pack("<Q", time)
    b += struct.pack("<Q", 1000)                      # PERIOD
    b += struct.pack("<Q", len(group))                 # READ: nr
    for ident, value in group:
        b += struct.pack("<QQ", value, ident)          # value, id
    b += struct.pack("<Q", len(branches))
    for frm, to, flags in branches:
        b += struct.pack("<QQQ", frm, to, flags)
    return rec(9, b)

def comm():
    b = struct.pack("<II", 100, 101) + b"prog\0\0\0\0"
    b += struct.pack("<II", 100, 101) + struct.pack("<Q", 5)   # sample_id: TID, TIME
    return rec(3, b)

# IP|TID|TIME|PERIOD|READ|BRANCH_STACK = bits 0,1,2,7,8,11 of the selector.
bits = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 7) | (1 << 8) | (1 << 11)
recs = comm()
for i in range(3):
    recs += sample(0x401000 + i, 1000 * (i + 1),
                   [(0x401010, 0x401000, 1), (0x401020, 0x401008, 2)],
                   [(1, 5000 * (i + 1)), (2, 2500 * (i + 1))])
for name, sel2 in (("group-id", 0x01 | 0x02 | 0x40), ("group-id-hwidx", 0x01 | 0x02 | 0x20 | 0x40)):
    sel = struct.pack("<HBHHB", bits, sel2, 0, len(recs), 0)
    with open(os.path.join(out, name + ".ring"), "wb") as f:
        f.write(sel + recs)
