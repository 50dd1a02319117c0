#!/usr/bin/env python3
"""A --relink that writes the same functions in another order: variant PAD
links order-prog.c's functions rotated by PAD/64 places (lld's
--symbol-ordering-file). PAD=BIGPAD compiles f2 one instruction longer, a
variant that is not a map of the others.
usage: order-link.py CLANG SRC DIR PAD OUT [BIGPAD]"""
import subprocess, sys

clang, src, d, pad, out = sys.argv[1:6]
pad = int(pad)
big = len(sys.argv) > 6 and pad == int(sys.argv[6])
names = ["f0", "f1", "f2", "f3", "f4"]
k = (pad // 64) % len(names)
order = f"{d}/order-{pad}.txt"
with open(order, "w") as f:
    f.write("\n".join(names[k:] + names[:k]) + "\n")
cmd = [clang, "-O1", "-ffunction-sections", "-fuse-ld=lld",
       f"-Wl,--symbol-ordering-file={order}", src, "-o", out]
if big:
    cmd.insert(1, "-DBIGGER")
subprocess.run(cmd, check=True)
