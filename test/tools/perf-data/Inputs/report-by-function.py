#!/usr/bin/env python3
"""report-by-function.py BINARY NM PHDRS REPORT: the sample counts of
`perf report -n --stdio --sort dso,sym` (REPORT) for BINARY's functions,
one "name count" line each, sorted by name. perf here cannot read the
symbols of the binaries it records ("symsrc__init: cannot get elf header"),
so it bins the samples by address (relative to the file, "[.] 0x..."); the
addresses are mapped to the functions of `llvm-nm -S` (NM) through the
executable segment of `llvm-readelf -lW` (PHDRS). Symbols perf did resolve
are taken by name.
   report-by-function.py --keel JSON: the same lines from `layout-profile
show --json --by=samples`."""
import json
import os
import re
import sys

def show(counts):
    for name in sorted(counts):
        if counts[name]:
            print("%s %d" % (name, counts[name]))

if sys.argv[1] == "--keel":
    show({f["name"]: f["samples"] for f in json.load(open(sys.argv[2]))["functions"]})
    sys.exit(0)
binary, nm, phdrs, report = sys.argv[1:5]
funcs = []
sizeless = set()
for line in open(nm):
    f = line.split()
    if len(f) == 4 and f[2] in "tTwW":
        funcs.append((int(f[0], 16), int(f[1], 16), f[3]))
        if int(f[1], 16) == 0:
            sizeless.add(f[3])
segs = []
for line in open(phdrs):
    f = line.split()
    if f and f[0] == "LOAD" and "E" in f[6:-1]:
        segs.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))
counts = {name: 0 for _, _, name in funcs}
dso = os.path.basename(binary)
for line in open(report):
    m = re.match(r"\s*[\d.]+%\s+(\d+)\s+(\S+)\s+\[\.\]\s+(\S+)", line)
    if not m or m.group(2) != dso:
        continue
    n, sym = int(m.group(1)), m.group(3)
    if not sym.startswith("0x"):
        # perf stretches a sizeless symbol (_init) to the next one, over
        # the .plt that follows .init; Keel keeps it to its own section
        # (Binary::functionAt), so a PLT sample is no function's there.
        if sym not in sizeless:
            counts[sym] = counts.get(sym, 0) + n
        continue
    off = int(sym, 16)
    for foff, vaddr, size in segs:
        if foff <= off < foff + size:
            addr = off - foff + vaddr
            for start, fsize, name in funcs:
                if start <= addr < start + fsize:
                    counts[name] += n
show(counts)
