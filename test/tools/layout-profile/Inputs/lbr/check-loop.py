#!/usr/bin/env python3
"""Seed 000's check on a known hot loop, against layout-lbrgen's truth.

check-loop.py BLOCKS.json TRUTH.json FUNCTION ITERATIONS [TOLERANCE%]

The loop block is FUNCTION's block with the most estimated cycles in the
block table (layout-profile blocks --json). Compared with the truth of the
same [start, end] block:
  instructions  IC (disassembly) x ITERATIONS  vs  executed instructions
  cycles        CPI x IC x ITERATIONS          vs  modelled cycles
  whole run     estimated cycles (windows scaled to intervals) vs modelled
Prints each error and PASS, or FAIL and exits 1 when one exceeds TOLERANCE.
"""
import json
import sys


def main():
    blocks_path, truth_path, function, iters = sys.argv[1:5]
    tol = float(sys.argv[5]) if len(sys.argv) > 5 else 5.0
    iters = int(iters)
    with open(blocks_path) as f:
        blocks = json.load(f)["blocks"]
    with open(truth_path) as f:
        truth = json.load(f)
    mine = [b for b in blocks if b["function"] == function]
    if not mine:
        print(f"FAIL: no block of {function} in the block table")
        return 1
    loop = max(mine, key=lambda b: b["est_cycles"] or 0)
    tb = [b for b in truth["blocks"]
          if b["start"] == loop["start"] and b["end"] == loop["end"]]
    if not tb:
        print(f"FAIL: the truth has no block {loop['start']}-{loop['end']}")
        return 1
    tb = tb[0]
    print(f"loop block {loop['start']}-{loop['end']} IC {loop['instructions']}"
          f" CPI {loop['cpi']:.4f}; truth: {tb['executions']} executions,"
          f" {tb['instructions']} instructions, {tb['cycles']:.0f} cycles")
    checks = [
        ("instructions", loop["instructions"] * iters, tb["instructions"]),
        ("cycles", loop["cpi"] * loop["instructions"] * iters, tb["cycles"]),
        ("whole-run cycles", loop["est_cycles"], tb["cycles"]),
    ]
    ok = True
    for name, est, true in checks:
        err = 100.0 * (est - true) / true
        print(f"{name}: estimate {est:.0f} truth {true:.0f} error {err:+.2f}%")
        ok = ok and abs(err) <= tol
    print("PASS" if ok else f"FAIL: an error exceeds {tol}%")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
