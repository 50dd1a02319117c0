#!/usr/bin/env python3
"""Is bench/corpus.py's keel-rec the one command's binary? For a program the corpus
builds with its package's build system (bzip2, lz4, ...: Recorded in corpus.py),
after `corpus.py WORKDIR --programs PROGRAM --builds ...,keel-rec` has run:

  corpus-identity.py WORKDIR PROGRAM PACKAGE OUTDIR

apt-get sources PACKAGE into OUTDIR (a fresh tree, bench/lib-real-programs.sh), runs
in it the layout-optimize command corpus.py ran for keel-rec (WORKDIR/PROGRAM/builds/
rec/key.json: the same --workload, --binary, -j, --cost and build script, which names
no path of its own; --dir left at its default, keel-optimize in the tree), and
compares the kept program with corpus.py's (cmp; exit 1 if they differ), and the
default builds and profiles the two runs made. The command it runs is printed first.
"""
import json
import os
import shlex
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def same(a, b):
    return subprocess.run(["cmp", "-s", a, b]).returncode == 0


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    work, prog, pkg, out = (os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3], os.path.abspath(sys.argv[4]))
    rec = os.path.join(work, prog, "builds", "rec")
    with open(os.path.join(rec, "key.json")) as f:
        key = json.load(f)
    argv, cwd = key["argv"], key["cwd"]
    src = os.path.join(rec, "src")
    if os.path.commonpath([src, cwd]) != src:
        sys.exit(f"corpus-identity: {prog} is not built by its package (its keel-rec ran in {cwd})")
    subdir = os.path.relpath(cwd, src)
    sh = f". {shlex.quote(TOP)}/bench/lib-real-programs.sh; keel_get_source {shlex.quote(pkg)} {shlex.quote(out)}"
    tree = subprocess.run(["sh", "-c", sh], check=True, stdout=subprocess.PIPE, text=True).stdout.split()[-1]
    tree = os.path.normpath(os.path.join(tree, subdir))
    opts = [a for a in argv[:argv.index("--")] if not a.startswith("--dir=")]
    cmd = [*opts, *argv[argv.index("--"):]]
    print(f"corpus-identity: in {tree}:\n  {' '.join(shlex.quote(a) for a in cmd)}", flush=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("LC_")}
    env.update(LANG="C", LC_ALL="C")
    r = subprocess.run(cmd, cwd=tree, env=env)
    if r.returncode != 0:
        sys.exit(f"corpus-identity: layout-optimize exited with {r.returncode}")
    name = next(a for a in argv if a.startswith("--binary="))[len("--binary="):]
    mine, theirs = os.path.join(rec, "keel-optimize"), os.path.join(tree, "keel-optimize")
    ok = True
    for what, rel in (("kept program", name), ("default build", os.path.join("default", name)),
                      ("profile", "profile.fdata")):
        s = same(os.path.join(mine, rel), os.path.join(theirs, rel))
        ok &= s or what != "kept program"
        print(f"corpus-identity: {what}: {os.path.join(mine, rel)} and {os.path.join(theirs, rel)} "
              f"{'are identical' if s else 'DIFFER'}", flush=True)
    with open(os.path.join(mine, "report.json")) as f:
        a = json.load(f)["kept"]
    with open(os.path.join(theirs, "report.json")) as f:
        b = json.load(f)["kept"]
    print(f"corpus-identity: kept: corpus.py's run {a}, this run {b}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
