#!/usr/bin/env python3
"""exit-status.py N cmd args...: run cmd (no shell), exit 0 iff it exits N.

lit's `not` only tells zero from non-zero; layout-record's exit status
carries the program's own status, which the tests check exactly."""
import subprocess
import sys

want = int(sys.argv[1])
got = subprocess.run(sys.argv[2:]).returncode
if got != want:
    print("exit-status.py: %s exited %d, expected %d" % (sys.argv[2], got, want),
          file=sys.stderr)
    sys.exit(1)
