#!/usr/bin/env python3
"""Executed jumps, conditional branches and nops of one run of a binary, by function:
what the block order makes the program execute, counted exactly (callgrind
--dump-instr=yes, each instruction's count matched to its mnemonic in
llvm-objdump-22's disassembly of the binary).

usage: executed-branches.py [--top N] [--cwd DIR] BINARY [ARGS...]

Prints the executed instructions, and of them the direct unconditional jumps (jmp),
the conditional branches (j<cc>), the indirect jumps and nops, then the N functions that execute the most
jumps. Instructions outside the binary (libc, the loader) are counted apart
("outside"). Compare two builds of a program (bench/corpus.py's WORKDIR/P/builds/
keel-rec.bin and bolt.bin) on the same input; bench/results/ has such runs. The
counts are valgrind's: the jumps and branches were the same on every rerun here, the
instruction totals within a few dozen (seen: 72,416,990 and 72,416,976 for one bzip2
binary; the run's temporary file names differ).
"""
import argparse
import bisect
import collections
import os
import re
import signal
import subprocess
import sys
import tempfile

# Where valgrind may have mapped the binary: at its own addresses, or (a
# position-independent executable linked at 0) at 0x108000, valgrind's amd64
# default; the one under which the executed addresses are instruction starts.
LOAD_BASES = (0, 0x108000)


def callgrind_counts(path, binary):
    """({runtime address: executed count} of BINARY's instructions, executed
    instructions elsewhere) from a callgrind --dump-instr=yes file."""
    counts = collections.Counter()
    outside = 0
    names = {}  # ob=(id) compression
    mine = False
    cur = 0
    after_calls = False
    for line in open(path):
        if line.startswith("cob="):  # a callee's object: may name an id first
            m = re.match(r"cob=\((\d+)\)\s*(.+)", line.rstrip("\n"))
            if m:
                names[m.group(1)] = m.group(2)
            continue
        if line.startswith("ob="):
            m = re.match(r"ob=\((\d+)\)\s*(.*)", line.rstrip("\n"))
            name = line[3:].strip()
            if m:
                if m.group(2):
                    names[m.group(1)] = m.group(2)
                name = names.get(m.group(1), "")
            # valgrind names some of a binary's code "???" (an object it did
            # not map to a file: seen with -z separate-code and a linker
            # script's sections); the addresses then tell (main()).
            mine = name == "???" or (bool(name) and os.path.realpath(name) == binary)
            continue
        if line.startswith("calls="):
            after_calls = True
            continue
        tok = line.split()
        if not tok or not (tok[0][0].isdigit() or tok[0][0] in "+-*"):
            continue
        a = tok[0]
        if a.startswith("0x"):
            cur = int(a, 16)
        elif a[0] in "+-":
            cur += int(a)
        # The line after calls= is the call's inclusive cost: it moves the
        # position but its count is the callee's, not this instruction's.
        if not after_calls and len(tok) >= 3:
            if mine:
                counts[cur] += int(tok[2])
            else:
                outside += int(tok[2])
        after_calls = False
    return counts, outside


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # | head: stop quietly
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--cwd", default=None)
    ap.add_argument("binary")
    ap.add_argument("args", nargs=argparse.REMAINDER)
    o = ap.parse_args()
    binary = os.path.abspath(o.binary)
    with tempfile.TemporaryDirectory(prefix="executed-branches-") as d:
        out = os.path.join(d, "cg.out")
        r = subprocess.run(["valgrind", "--tool=callgrind", "--dump-instr=yes", f"--callgrind-out-file={out}",
                            binary, *o.args], cwd=o.cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            sys.exit(f"executed-branches: valgrind {binary} failed ({r.returncode}):\n{r.stderr[-2000:]}")
        counts, outside = callgrind_counts(out, os.path.realpath(binary))
    dis = subprocess.run(["llvm-objdump-22", "-d", "--no-show-raw-insn", binary], stdout=subprocess.PIPE, text=True,
                         check=True).stdout
    mnem = {}
    for line in dis.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(\S+)", line)
        if m:
            mnem[int(m.group(1), 16)] = m.group(2)
    syms = []
    for line in subprocess.run(["llvm-nm-22", "-n", "--defined-only", binary], stdout=subprocess.PIPE, text=True,
                               check=True).stdout.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in "tTwW" and not p[2].startswith("__keel_"):
            syms.append((int(p[0], 16), p[2]))
    addrs = [a for a, _ in syms]
    base = max(LOAD_BASES, key=lambda b: sum(c for a, c in counts.items() if a - b in mnem))
    inside = jumps = ijumps = cond = nops = unmapped = 0
    total = outside
    per_fn = collections.Counter()
    for a, c in counts.items():
        total += c
        m = mnem.get(a - base)
        if m is None:  # another "???" object's code, or not an instruction start
            unmapped += c
            continue
        inside += c
        if m == "jmp":
            jumps += c
            i = bisect.bisect_right(addrs, a - base) - 1
            per_fn[syms[i][1] if i >= 0 else "?"] += c
        elif m == "jmpq":
            ijumps += c
        elif m.startswith("j"):
            cond += c
        elif m.startswith("nop"):
            nops += c
    if inside < total / 2:
        sys.exit(f"executed-branches: only {inside} of {total} executed instructions are {binary}'s "
                 f"(load address {hex(base)}?)")
    outside += unmapped
    print(f"{binary}: {total} instructions executed, {outside} outside the binary")
    print(f"  jmp {jumps}  jcc {cond}  indirect jmp {ijumps}  nop {nops}")
    for fn, c in per_fn.most_common(o.top):
        print(f"  jmp {c:>10}  {fn}")


if __name__ == "__main__":
    main()
