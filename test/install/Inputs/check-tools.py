"""Check every Keel tool in a bin directory: LLVM-style --help, --version
with the project version, and a man page that lists every option of --help.

usage: check-tools.py BIN_DIR MAN_DIR VERSION
Prints one line per tool; exits 1 naming the first tool that fails.
"""
import os
import re
import subprocess
import sys

bindir, mandir, version = sys.argv[1:4]
tools = sorted(t for t in os.listdir(bindir) if t.startswith("layout-"))
if not tools:
    sys.exit("check-tools: no layout-* tools in " + bindir)
for tool in tools:
    path = os.path.join(bindir, tool)
    v = subprocess.run([path, "--version"], capture_output=True, text=True)
    first = v.stdout.splitlines()[0] if v.stdout else ""
    if v.returncode != 0 or first != "%s (Keel) %s" % (tool, version):
        sys.exit("check-tools: %s --version: exit %d, first line %r" % (tool, v.returncode, first))
    if "built with LLVM " not in v.stdout:
        sys.exit("check-tools: %s --version does not name the LLVM version" % tool)
    h = subprocess.run([path, "--help"], capture_output=True, text=True)
    if h.returncode != 0 or not h.stdout.startswith("OVERVIEW: ") or "USAGE: " not in h.stdout:
        sys.exit("check-tools: %s --help is not LLVM-style (exit %d)" % (tool, h.returncode))
    page = os.path.join(mandir, tool + ".1")
    if not os.path.exists(page):
        sys.exit("check-tools: no man page " + page)
    roff = open(page).read().replace("\\-", "-")
    if not roff.startswith(".\\\"") or ".TH %s 1" % tool.upper() not in roff:
        sys.exit("check-tools: %s is not a section 1 man page" % page)
    options = re.findall(r"^  (--?[A-Za-z0-9][\w-]*)", h.stdout, re.M)
    missing = [o for o in options if o not in roff]
    if missing:
        sys.exit("check-tools: %s lacks %s" % (page, ", ".join(missing)))
    print("%s: --help (%d options), --version, man page" % (tool, len(options)))
print("check-tools: %d tools" % len(tools))
