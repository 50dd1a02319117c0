#!/usr/bin/env python3
"""Check that the PT_LOAD segments of `llvm-readelf -lW` output map one
contiguous run of pages (no unmapped page between the first and the last).

usage: loadpages.py READELF.txt [PAGE]   (PAGE defaults to 4096)

A hole makes ld.so treat the object as non-contiguous (extra start-up work
in _dl_find_object). Prints the page ranges and a verdict; exits 1 on a hole.
"""
import sys

page = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
ranges = []
for line in open(sys.argv[1]):
    f = line.split()
    if f and f[0] == "LOAD":
        vaddr, memsz = int(f[2], 16), int(f[5], 16)
        ranges.append((vaddr // page * page, -(-(vaddr + memsz) // page) * page))
ranges.sort()
holes = 0
for (lo, hi), (nlo, _) in zip(ranges, ranges[1:]):
    if nlo > hi:
        print(f"hole: pages {hi:#x}..{nlo:#x} unmapped")
        holes += 1
for lo, hi in ranges:
    print(f"load pages {lo:#x}..{hi:#x}")
print("OK: contiguous" if ranges and not holes else "FAIL")
sys.exit(1 if holes or not ranges else 0)
