#!/usr/bin/env python3
"""Write perf ring-buffer records (the layout `layout-falseshare record`
asks the kernel for: IP TID TIME ADDR CPU PERIOD READ WEIGHT DATA_SRC,
sample_id_all) that a PEBS load-latency recording of Peri's article's
fs-array (docs/references.md) would contain, for `layout-falseshare record --replay`.

usage: hitm-records.py BINARY READELF-L NM OBJDUMP MODE > records
  MODE shared: threads 101 and 102 update shared_array[0] and [1] (HITM)
       padded: shared_array[0] and [64] (L1 hits, no HITM)
       true:   both update shared_array[0] (HITM)
The program is mapped at a PIE bias of 0x555555554000."""
import re
import struct
import sys

binary, readelf, nm, objdump, mode = sys.argv[1:6]
BIAS = 0x555555554000
PID = 100

text = None
for line in open(readelf):
    f = line.split()
    if f and f[0] == "LOAD" and "E" in f[-2]:
        text = (int(f[1], 16), int(f[2], 16), int(f[5], 16))  # off vaddr memsz
        break
array = next(int(l.split()[0], 16) for l in open(nm)
             if l.split()[-1] == "shared_array")
inc = next(int(m.group(1), 16) for m in
           (re.match(r"\s*([0-9a-f]+):\s+incl\s+\(", l) for l in open(objdump))
           if m)


def record(kind, misc, body):
    return struct.pack("<IHH", kind, misc, 8 + len(body)) + body


def sample_id(tid, time):
    return struct.pack("<IIQII", PID, tid, time, 0, 0)


out = bytearray()
off, vaddr, memsz = text
start = BIAS + (vaddr & ~0xfff)
length = (vaddr + memsz - (vaddr & ~0xfff) + 0xfff) & ~0xfff
name = binary.encode() + b"\0"
name += b"\0" * (-len(name) % 8)
mmap2 = struct.pack("<IIQQQIIQQII", PID, PID, start, length, off & ~0xfff,
                    0, 0, 0, 0, 5, 2) + name + sample_id(PID, 0)
out += record(10, 2, mmap2)  # PERF_RECORD_MMAP2, MISC_USER

LOAD, STORE = 0x2, 0x4
HIT, L1, L3 = 0x2, 0x8, 0x40
SNOOP_NONE, SNOOP_HITM = 0x2, 0x10
local_hitm = LOAD | (HIT | L3) << 5 | SNOOP_HITM << 19
l1_hit = LOAD | (HIT | L1) << 5 | SNOOP_NONE << 19

index = {"shared": (0, 1), "padded": (0, 64), "true": (0, 0)}[mode]
src = l1_hit if mode == "padded" else local_hitm
time = 1
for i in range(200):
    for tid, idx in zip((101, 102), index):
        body = struct.pack("<QIIQQIIQ", BIAS + inc, PID, tid, time,
                           BIAS + array + 4 * idx, tid - 101, 0, 1000)
        body += struct.pack("<QQQ", 1, time * 7, 42)  # read: nr, value, id
        body += struct.pack("<QQ", 150, src)          # weight, data_src
        out += record(9, 2, body)                     # PERF_RECORD_SAMPLE
        time += 1
sys.stdout.buffer.write(out)
