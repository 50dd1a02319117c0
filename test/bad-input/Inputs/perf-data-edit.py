#!/usr/bin/env python3
"""perf-data-edit.py IN OUT WHAT VALUE

Copy the perf.data IN to OUT with one field changed, for bad-input tests:
  size N   the size field of the first record of the data section
  type N   the type field of the first record of the data section
  magic S  the 8-byte magic"""
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
else:
    sys.exit(f"unknown field {what}")
open(dst, "wb").write(bytes(d))
