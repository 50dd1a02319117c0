#!/usr/bin/env python3
"""perf-data-edit.py IN OUT WHAT VALUE

Copy the perf.data IN to OUT with one field changed, for bad-input tests:
  size N   the size field of the first record of the data section
  type N   the type field of the first record of the data section
  magic S  the 8-byte magic
  zstd-cut N  the last compressed record (PERF_RECORD_COMPRESSED) loses the
           last N bytes of its payload (N a multiple of 8); N / 8
           FINISHED_ROUND records take their place, so nothing else moves"""
import struct
import sys

src, dst, what, value = sys.argv[1:5]
d = bytearray(open(src, "rb").read())
data_off = struct.unpack_from("<Q", d, 40)[0]
if what == "size":
    struct.pack_into("<H", d, data_off + 6, int(value, 0))
elif what == "type":
    struct.pack_into("<I", d, data_off, int(value, 0))
elif what == "magic":
    d[0:8] = value.encode()
elif what == "zstd-cut":
    cut = int(value, 0)
    assert cut > 0 and cut % 8 == 0
    data_size = struct.unpack_from("<Q", d, 48)[0]
    at, last = data_off, None
    while at < data_off + data_size:
        rtype, _, rsize = struct.unpack_from("<IHH", d, at)
        if rtype == 81:
            last = at
        at += rsize
    if last is None:
        sys.exit("no compressed record")
    size = struct.unpack_from("<H", d, last + 6)[0]
    assert size - 8 > cut, "the payload is shorter than that"
    struct.pack_into("<H", d, last + 6, size - cut)
    for k in range(last + size - cut, last + size, 8):
        struct.pack_into("<IHH", d, k, 68, 0, 8)
else:
    sys.exit(f"unknown field {what}")
open(dst, "wb").write(bytes(d))
