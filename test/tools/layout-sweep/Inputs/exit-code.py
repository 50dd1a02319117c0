"""Run a command and check its exit code: exit-code.py CODE CMD ARGS...

lit's internal shell has no $?, and `not` accepts any non-zero code; the
sweep's exit codes (1 gate, 2 bad input, 3 missing capability) matter.
The command's stdout and stderr pass through."""
import subprocess
import sys

want = int(sys.argv[1])
got = subprocess.call(sys.argv[2:])
if got != want:
    sys.stderr.write(f"exit-code.py: expected exit code {want}, got {got}\n")
    sys.exit(1)
