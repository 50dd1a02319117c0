#!/usr/bin/env python3
"""expect-exit.py CODE OUTPUT -- CMD ARGS...

Run CMD; succeed only if it exits with CODE and OUTPUT does not exist
afterwards (bad input must leave no output behind). CMD's stderr and stdout
are copied to stdout for FileCheck."""
import os
import subprocess
import sys

code, output, sep = int(sys.argv[1]), sys.argv[2], sys.argv[3]
assert sep == "--"
p = subprocess.run(sys.argv[4:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
sys.stdout.write(p.stdout.decode())
if p.returncode != code:
    print(f"expect-exit: exit code {p.returncode}, expected {code}")
    sys.exit(1)
if os.path.exists(output):
    print(f"expect-exit: {output} exists")
    sys.exit(1)
