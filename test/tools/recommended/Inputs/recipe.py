#!/usr/bin/env python3
"""Run one step of a build recipe (bench/recommended.json's schema), with argv lists.

  recipe.py RECIPE plan BINARY PROFILE PLAN   layout-order with the recipe's flags
  recipe.py RECIPE compile CLANG PLAN OUT ARG... compile: CLANG ARG... -c -o OUT, plus
                                              -fbasic-block-sections=list=PLAN/bbsections.txt
                                              and the recipe's compile_flags when the recipe
                                              asks for it and it exists
  recipe.py RECIPE link CLANG PLAN OUT OBJ... link OBJ... as the recipe says
  recipe.py RECIPE guard BASE CAND ARG...       the recipe's guard: layout-sweep of BASE
                                              (the default link) and of CAND (the recipe's
                                              link) on ARG..., gated by --max-mispredict-rise;
                                              layout-sweep's exit status (1: the guard fires,
                                              plan again with --block-order=FALLBACK)
  recipe.py RECIPE fallback-plan BINARY PROFILE PLAN   layout-order with the recipe's
                                              flags and its guard's fallback block order
"""
import json
import os
import subprocess
import sys


def main():
    recipe = json.load(open(sys.argv[1]))
    step = sys.argv[2]
    if step in ("plan", "fallback-plan"):
        binary, profile, plan = sys.argv[3:6]
        flags = recipe["layout_order_flags"]
        if step == "fallback-plan":
            order = "--block-order=" + recipe["guard"]["fallback_block_order"]
            flags = [order if f.startswith("--block-order=") else f for f in flags]
            if order not in flags:
                flags.append(order)
        argv = ["layout-order", "--binary", binary, "--profile", profile, *flags, "-o", plan]
    elif step == "guard":
        base, cand, args = sys.argv[3], sys.argv[4], sys.argv[5:]
        sweep = ["layout-sweep", "--axis=env", "--from=0", "--to=0"]
        subprocess.run([*sweep, "--json=guard-base.json", base, *args], check=True,
                       stdout=subprocess.DEVNULL)
        argv = [*sweep, "--baseline=guard-base.json",
                "--max-mispredict-rise=" + recipe["guard"]["max_mispredict_rise"], cand, *args]
    elif step == "compile":
        clang, plan, out, args = sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:]
        bbs = os.path.join(plan, "bbsections.txt")
        extra = ([f"-fbasic-block-sections=list={bbs}", *recipe.get("compile_flags", [])]
                 if recipe.get("bbsections") and os.path.exists(bbs) else [])
        argv = [clang, *args, *extra, "-c", "-o", out]
    elif step == "link":
        clang, plan, out, objs = sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:]
        argv = [clang, "-fuse-ld=lld", *objs, "-o", out,
                *(f.replace("{plan}", plan) for f in recipe["link_flags"])]
    else:
        sys.exit(f"recipe.py: unknown step {step}")
    return subprocess.run(argv).returncode


if __name__ == "__main__":
    sys.exit(main())
