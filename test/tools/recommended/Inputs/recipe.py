#!/usr/bin/env python3
"""Run one step of a build recipe (bench/recommended.json's schema), with argv lists.

  recipe.py RECIPE plan BINARY PROFILE PLAN   layout-order with the recipe's flags
  recipe.py RECIPE compile CLANG PLAN OUT ARG... compile: CLANG ARG... -c -o OUT, plus
                                              -fbasic-block-sections=list=PLAN/bbsections.txt
                                              and the recipe's compile_flags when the recipe
                                              asks for it and it exists
  recipe.py RECIPE link CLANG PLAN OUT OBJ... link OBJ... as the recipe says
"""
import json
import os
import subprocess
import sys


def main():
    recipe = json.load(open(sys.argv[1]))
    step = sys.argv[2]
    if step == "plan":
        binary, profile, plan = sys.argv[3:6]
        argv = ["layout-order", "--binary", binary, "--profile", profile,
                *recipe["layout_order_flags"], "-o", plan]
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
