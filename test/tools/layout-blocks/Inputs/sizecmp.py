#!/usr/bin/env python3
"""usage: sizecmp.py SIZES.txt NM NAME...: for each NAME, print the size
layout-blocks estimated for its hot part and its symbol size (`llvm-nm -S`);
OK when every estimate is smaller (its cold part was split off)."""
import sys

sizes = {}
for line in open(sys.argv[1]):
    if line.strip() and not line.startswith("#"):
        name, n = line.split()
        sizes[name] = int(n)
sym = {}
for line in open(sys.argv[2]):
    p = line.split()
    if len(p) == 4:
        sym[p[3]] = int(p[1], 16)
ok = True
for name in sys.argv[3:]:
    hot, whole = sizes.get(name), sym.get(name)
    good = hot is not None and whole is not None and hot < whole
    print(f"{name}: hot part {hot} {'<' if good else 'not <'} symbol {whole}")
    ok &= good
print("OK" if ok else "FAIL")
sys.exit(0 if ok else 1)
