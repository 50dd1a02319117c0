#!/usr/bin/env python3
"""Compare a reference fdata (BOLT's instrumentation profile) with ours.

  compare-fdata.py --binary prog [--objdump llvm-objdump] REF.fdata OURS.fdata

Records are "K NAME OFF K NAME OFF MISPREDS COUNT" (BOLT's fdata). A record
is a call when its source instruction is a call (per llvm-objdump) and it
lands on a symbol's entry; every other record is a branch record (a taken branch or a block-to-block
fall-through). Prints how many of the reference's branch records our
profile has with an identical count, and every call whose count differs.
Records with an end outside the binary's symbols ("0 [unknown] ...": the
program entry from the kernel, calls into shared libraries) are left out
of both sides. BOLT names PLT entries "name@PLT"; fdata written without
PLT symbols has them as absolute addresses ("0 [unknown] ADDR"), which are
mapped to the PLT entry llvm-objdump names. Exit status 1 when fewer than
--min-branch-share of the branch records or not all calls are identical.
"""
import argparse
import re
import subprocess
import sys


def disassemble(objdump, binary):
    """(symbol -> address, address -> (mnemonic, next address), plt address -> name)."""
    out = subprocess.run([objdump, "-d", "--no-show-raw-insn", binary],
                         check=True, capture_output=True, text=True).stdout
    syms, insts, plt = {}, {}, {}
    prev = None
    for line in out.splitlines():
        m = re.match(r"^([0-9a-f]+) <(.+)>:$", line)
        if m:
            addr, name = int(m.group(1), 16), m.group(2)
            syms.setdefault(name, addr)
            if name.endswith("@plt"):
                plt[addr] = name[:-4] + "@PLT"
            prev = None
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(\S+)", line)
        if m:
            addr = int(m.group(1), 16)
            insts[addr] = [m.group(2), None]
            if prev is not None:
                insts[prev][1] = addr
            prev = addr
    return syms, insts, plt


def read_fdata(path, plt):
    recs = {}
    for line in open(path):
        f = line.split()
        if len(f) != 8 or f[0] not in "012" or f[3] not in "012":
            continue  # no_lbr / memory records / headers: not compared here
        ends = []
        for kind, name, off in ((f[0], f[1], f[2]), (f[3], f[4], f[5])):
            off = int(off, 16)
            if kind == "0":
                if off in plt:
                    name, off = plt[off], 0
                else:
                    ends = None
                    break
            ends.append((name, off))
        if ends is None:
            continue
        key = tuple(ends)
        recs[key] = recs.get(key, 0) + int(f[7])
    return recs


def base(name):
    """BOLT's "name/1" (a local) -> "name" for the symbol table."""
    return re.sub(r"/\d+$", "", name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--objdump", default="llvm-objdump")
    ap.add_argument("--min-branch-share", type=float, default=0.95)
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("ref")
    ap.add_argument("ours")
    a = ap.parse_args()
    syms, insts, plt = disassemble(a.objdump, a.binary)
    ref, ours = read_fdata(a.ref, plt), read_fdata(a.ours, plt)

    def is_call(rec):
        """A call instruction's edge to a function entry (not its return point)."""
        (name, off), (to_name, to_off) = rec
        addr = syms.get(base(name))
        if addr is None or to_off != 0:
            return False
        inst = insts.get(addr + off)
        return inst is not None and inst[0].startswith("call")

    calls = {k: v for k, v in ref.items() if is_call(k)}
    branches = {k: v for k, v in ref.items() if k not in calls}
    our_calls = {k: v for k, v in ours.items() if is_call(k)}

    def show(k):
        return "%s+%#x -> %s+%#x" % (k[0][0], k[0][1], k[1][0], k[1][1])

    same = [k for k in branches if ours.get(k) == branches[k]]
    share = len(same) / len(branches) if branches else 0.0
    print("branch records: %d in the reference, %d identical (%.1f%%)"
          % (len(branches), len(same), 100.0 * share))
    for k in sorted(branches):
        if k not in same:
            print("  differs: %s reference %d ours %s"
                  % (show(k), branches[k], ours.get(k, "none")))
    bad_calls = [k for k in sorted(set(calls) | set(our_calls))
                 if calls.get(k) != our_calls.get(k)]
    print("call records: %d in the reference, %d in ours, %d differ"
          % (len(calls), len(our_calls), len(bad_calls)))
    for k in bad_calls:
        print("  call differs: %s reference %s ours %s"
              % (show(k), calls.get(k, "none"), our_calls.get(k, "none")))
    extra = [k for k in ours if k not in ref and k not in our_calls]
    print("records only in ours: %d" % len(extra))
    if a.verbose:
        for k in sorted(extra):
            print("  only ours: %s %d" % (show(k), ours[k]))
    ok = share >= a.min_branch_share and not bad_calls and calls
    print("RESULT: %s" % ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
