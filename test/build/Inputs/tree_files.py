"""The files of a source tree that the build checks read (include-cycles.py,
library-names.py): those git lists in SRC (tracked, or new and not ignored)
when SRC is a git checkout, else those on disk less .git and build trees (a
folder holding CMakeCache.txt); sorted, relative, with / separators."""
import os
import subprocess


def listed_files(src, keep=lambda path: True):
    """The files KEEP(path) accepts."""
    try:
        out = subprocess.run(
            ["git", "-C", src, "ls-files", "--cached", "--others", "--exclude-standard"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True, text=True)
        files = [f for f in out.stdout.splitlines()
                 if keep(f) and os.path.isfile(os.path.join(src, f))]
        if files:
            return sorted(files)
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for root, dirs, names in os.walk(src):
        dirs[:] = sorted(d for d in dirs if d != ".git"
                         and not os.path.exists(os.path.join(root, d, "CMakeCache.txt")))
        for n in names:
            rel = os.path.relpath(os.path.join(root, n), src).replace(os.sep, "/")
            if keep(rel):
                files.append(rel)
    return sorted(files)
