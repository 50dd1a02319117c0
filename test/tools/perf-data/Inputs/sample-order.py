#!/usr/bin/env python3
"""sample-order.py FILE: how the samples of a plain file-mode perf.data are
laid out: the number of samples, how many come right after a later one in
file order ("inversions": 0 when the file is in time order) and how many
samples come before the first MMAP/MMAP2 record of the same pid."""
import struct
import sys

d = open(sys.argv[1], "rb").read()
attr_off, = struct.unpack_from("<Q", d, 24)
data_off, data_size = struct.unpack_from("<QQ", d, 40)
sample_type, = struct.unpack_from("<Q", d, attr_off + 24)
IP, TID, TIME, IDENTIFIER = 1, 2, 4, 1 << 16
assert sample_type & TIME and sample_type & TID, "needs TIME and TID"
before = bin(sample_type & (IDENTIFIER | IP)).count("1") * 8
at, times, mapped, early = data_off, [], set(), 0
while at < data_off + data_size:
    rtype, _, rsize = struct.unpack_from("<IHH", d, at)
    if rtype == 9:
        pid, = struct.unpack_from("<I", d, at + 8 + before)
        times.append(struct.unpack_from("<Q", d, at + 8 + before + 8)[0])
        early += pid not in mapped
    elif rtype in (1, 10):
        mapped.add(struct.unpack_from("<I", d, at + 8)[0])
    at += rsize
inv = sum(1 for a, b in zip(times, times[1:]) if b < a)
print("samples: %d" % len(times))
print("inversions: %d" % inv)
print("before their mmap: %d" % early)
