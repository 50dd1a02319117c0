"""Run a tool and check the CLI's one style: one-error.py CODE TOOL CMD ARGS...

The command must exit CODE and write exactly one line to stderr, starting
"TOOL: error: " (docs/conventions.md, "Errors"); that line is printed for
FileCheck. Anything else is reported and exits 1."""
import subprocess
import sys

want, tool, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                   stdin=subprocess.DEVNULL, text=True, errors="replace")
lines = r.stderr.splitlines()
ok = (r.returncode == want and len(lines) == 1 and
      lines[0].startswith(tool + ": error: "))
sys.stdout.write(r.stderr)
if not ok:
    print("one-error.py: wanted exit %d and one '%s: error: ' line; got exit "
          "%d and %d lines" % (want, tool, r.returncode, len(lines)))
    sys.exit(1)
