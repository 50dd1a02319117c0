"""Run the commands of a markdown guide and check the output it shows.

usage: run-guide.py GUIDE.md WORKDIR

Every ```console block of GUIDE.md is a transcript: lines starting with "$ "
are commands (a trailing backslash continues one onto the next line), the
lines after a command up to the next "$ " are the output the guide shows.
Each command runs with bash in WORKDIR, in order, with KEEL_SRC set to the
source tree the guide is in (unless set) and PATH/KEEL_LIB from the caller;
a command that exits non-zero fails the run (the status of a pipeline is
its last command's, so `| head` is fine). The shown output must appear in
the real output (stdout and stderr) as a subsequence of lines, compared with
blanks collapsed; "..." inside a shown line matches any text, a shown line
that is just "..." stands for lines the guide leaves out, and numbers match
within 1% (simulated costs move by a few cycles with the length of the
directory the guide runs in). Prints every
command with its real output, so a failure shows what changed.
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
            continue
        if not inside:
            continue
        if cmd is not None and cmd.endswith("\\"):
            cmd = cmd[:-1] + " " + line.strip()
            out[-1] = (cmd, [])
        elif line.startswith("$ "):
            cmd = line[2:]
            out.append((cmd, []))
        elif out:
            out[-1][1].append(line)
    return [(c, shown) for c, shown in out]


def norm(line):
    return " ".join(line.split())


NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?![\w.])")


def close(a, b):
    """Shown and real numbers agree within 1% (or 0.05 near zero)."""
    x, y = float(a), float(b)
    return abs(x - y) <= max(0.01 * max(abs(x), abs(y)), 0.05)


def matches(shown, actual):
    """The shown line matches the real one: same text, "..." matching
    anything, numbers within close()."""
    parts = []
    for i, piece in enumerate(norm(shown).split("...")):
        if i:
            parts.append(".*")
        pos = 0
        for m in NUMBER.finditer(piece):
            parts.append(re.escape(piece[pos:m.start()]))
            parts.append(r"([-+]?\d+(?:\.\d+)?)")
            pos = m.end()
        parts.append(re.escape(piece[pos:]))
    m = re.fullmatch("".join(parts), norm(actual))
    if m is None:
        return False
    return all(close(a, b) for a, b in zip(NUMBER.findall(norm(shown).replace("...", " ")), m.groups()))


def check(shown, actual):
    """The first shown line not found (in order) in the actual output, or None."""
    lines = actual.splitlines()
    i = 0
    for s in shown:
        if not s.strip() or s.strip() == "...":
            continue
        while i < len(lines) and not matches(s, lines[i]):
            i += 1
        if i == len(lines):
            return s
        i += 1
    return None


def main():
    guide, work = sys.argv[1], sys.argv[2]
    env = dict(os.environ)
    env.setdefault("KEEL_SRC", os.path.dirname(os.path.dirname(os.path.abspath(guide))))
    steps = blocks(open(guide).read())
    if not steps:
        sys.exit("run-guide: no ```console commands in " + guide)
    for cmd, shown in steps:
        r = subprocess.run(["bash", "-c", cmd], cwd=work, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        print("$ " + cmd)
        print(r.stdout, end="")
        if r.returncode != 0:
            sys.exit("run-guide: '%s' exited %d" % (cmd, r.returncode))
        missing = check(shown, r.stdout)
        if missing is not None:
            sys.exit("run-guide: '%s' did not print the line the guide shows:\n  %s" % (cmd, missing))
    print("run-guide: %d commands ran and printed what the guide shows" % len(steps))


if __name__ == "__main__":
    main()
