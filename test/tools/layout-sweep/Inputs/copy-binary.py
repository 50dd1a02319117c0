#!/usr/bin/env python3
"""A --relink stand-in for A/A sweeps: copy SRC to OUT whatever PAD is, so
every variant is byte-identical. usage: copy-binary.py SRC OUT PAD"""
import os, shutil, sys
src, out, pad = sys.argv[1], sys.argv[2], int(sys.argv[3])
shutil.copyfile(src, out)
os.chmod(out, 0o755)
