#!/usr/bin/env python3
"""record-types.py FILE: the record types of a file-mode perf.data's data
section, one per line, in order of first appearance (compressed records'
contents are not looked into)."""
import struct
import sys

d = open(sys.argv[1], "rb").read()
off, size = struct.unpack_from("<QQ", d, 40)
at, seen = off, []
while at < off + size:
    rtype, _, rsize = struct.unpack_from("<IHH", d, at)
    if rtype not in seen:
        seen.append(rtype)
    at += rsize
print("\n".join(map(str, seen)))
