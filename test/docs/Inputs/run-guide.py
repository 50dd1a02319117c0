"""Run the commands of a markdown guide and check the output it shows.

usage: run-guide.py GUIDE.md WORKDIR [--also DOC.md]...

Every ```console block of GUIDE.md is a transcript: lines starting with "$ "
are commands (a trailing backslash continues one onto the next line), the
lines after a command up to the next "$ " are the output the guide shows.
Each command runs with bash in WORKDIR, in order, with KEEL_EXAMPLES set to
the examples/ folder of the source tree the guide is in (unless set: the
package check sets the installed share/doc/keel/examples) and PATH/KEEL_LIB
from the caller; a command that exits non-zero fails the run (the status of
a pipeline is its last command's, so `| head` is fine).

The shown output must appear in the real output (stdout and stderr) as a
subsequence of lines, compared with blanks collapsed, and otherwise
exactly: every address, count and percentage as printed. Two marks relax
that, and only where the guide shows them:
  - "..." inside a shown line matches any text; a shown line that is just
    "..." stands for lines the guide leaves out;
  - a number written with a "~" in front ("~76 s") is one the guide says
    varies (a timing, a machine's core count): it matches any number.
Nothing else is approximate: Keel's counts are deterministic, and a number
that changes is a change the guide must show. They used to move by a few
cycles with the length of the build tree's path (valgrind put keel-sim's
directory and the stack/heap shim into the program's LD_PRELOAD); the sweep
now names both by descriptor, as it names the binary, so the build tree,
an install prefix and the package print the same numbers wherever the
guide runs.

--also DOC.md: another document that shows steps of the guide. Each of
its ```console commands that the guide ran too (the same text) is checked
against the guide's run of it, not run again; its other commands are
listed as not checked (they need what the guide does not make). A DOC
with none of the guide's commands fails the run: it checks nothing.

Prints every command with its real output, so a failure shows what changed.
"""
import os
import re
import subprocess
import sys


def blocks(text):
    """[(command, [shown output lines])] of all ```console blocks, in order."""
    out, inside, cmd = [], False, None
    for line in text.splitlines():
        if line.startswith("```"):
            inside = line.strip() == "```console"
            cmd = None
            continue
        if not inside:
            continue
        if cmd is not None and cmd.endswith("\\"):
            cmd = cmd[:-1] + " " + line.strip()
            out[-1] = (cmd, [])
        elif line.startswith("$ "):
            cmd = line[2:]
            out.append((cmd, []))
        elif out and cmd is not None:
            out[-1][1].append(line)
    return out


def norm(line):
    return " ".join(line.split())


# A number the guide marks as varying: "~" and then digits.
VARYING = re.compile(r"~[-+]?\d+(?:\.\d+)?")


def pattern(shown):
    """The regular expression of a shown line: its text exactly, "..."
    matching anything, each ~number any number."""
    parts = []
    for i, piece in enumerate(norm(shown).split("...")):
        if i:
            parts.append(".*")
        pos = 0
        for m in VARYING.finditer(piece):
            parts.append(re.escape(piece[pos:m.start()]))
            parts.append(r"[-+]?\d+(?:\.\d+)?")
            pos = m.end()
        parts.append(re.escape(piece[pos:]))
    return re.compile("".join(parts))


def check(shown, actual):
    """The first shown line not found (in order) in the actual output, or None."""
    lines = [norm(l) for l in actual.splitlines()]
    i = 0
    for s in shown:
        if not s.strip() or s.strip() == "...":
            continue
        p = pattern(s)
        while i < len(lines) and not p.fullmatch(lines[i]):
            i += 1
        if i == len(lines):
            return s
        i += 1
    return None


def run(cmd, work, env):
    r = subprocess.run(["bash", "-c", cmd], cwd=work, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print("$ " + cmd)
    print(r.stdout, end="")
    if r.returncode != 0:
        sys.exit("run-guide: '%s' exited %d" % (cmd, r.returncode))
    return r.stdout


def verify(doc, cmd, shown, output):
    missing = check(shown, output)
    if missing is not None:
        sys.exit("run-guide: %s: '%s' did not print the line shown:\n  %s"
                 % (os.path.basename(doc), cmd, missing))


def main():
    args = sys.argv[1:]
    also = []
    while "--also" in args:
        i = args.index("--also")
        also.append(args[i + 1])
        del args[i:i + 2]
    guide, work = args
    env = dict(os.environ)
    src = os.path.dirname(os.path.dirname(os.path.abspath(guide)))
    env.setdefault("KEEL_EXAMPLES", os.path.join(src, "examples"))
    steps = blocks(open(guide).read())
    if not steps:
        sys.exit("run-guide: no ```console commands in " + guide)
    ran = {}
    for cmd, shown in steps:
        ran[cmd] = run(cmd, work, env)
        verify(guide, cmd, shown, ran[cmd])
    print("run-guide: %d commands ran and printed what the guide shows" % len(steps))
    for doc in also:
        shown_steps = blocks(open(doc).read())
        if not shown_steps:
            sys.exit("run-guide: no ```console commands in " + doc)
        checked = 0
        for cmd, shown in shown_steps:
            if cmd not in ran:
                print("run-guide: %s: not checked (not the guide's): %s"
                      % (os.path.basename(doc), cmd))
                continue
            verify(doc, cmd, shown, ran[cmd])
            checked += 1
        if not checked:
            sys.exit("run-guide: %s shows none of the guide's commands" % doc)
        print("run-guide: %s: %d of its %d commands are the guide's and show what it printed"
              % (os.path.basename(doc), checked, len(shown_steps)))


if __name__ == "__main__":
    main()
