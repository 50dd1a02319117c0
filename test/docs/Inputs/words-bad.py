"""Write a tree of the things words.py rejects, one of each, into DIR.

usage: words-bad.py DIR

The words are put together from pieces here, so that neither this file nor
the tree's own check (words.py on the source tree) finds them in the source.
"""
import os
import sys

ISSUE = "Iss" + "ue 12"
SEED = "se" + "ed 003"
WORK = "/wo" + "rk/main"
TMP = "/tm" + "p/corpus"
RUN = "R" + "UN:"

FILES = {
    "docs/a.md": f"As {ISSUE} asks.\nBuilt in {WORK}.\nRun in {TMP}.\n",
    "bench/results/old.md": f"{ISSUE}, {SEED}, {TMP}: a dated record, kept.\nTools from {WORK}.\n",
    "bench/b.py": f"# the method of {SEED}\n",
    "test/tools/bare.test": f"{RUN} true\n# {RUN} true\n",
    "test/tools/ok.test": f"# {RUN} true\n## a scratch path: {TMP}\n",
    "test/tools/semi.ll": f"# {RUN} true\n; {RUN} true\n",
    "test/tools/Inputs/helper.test": f"{RUN} not a test\n",
    "test/unit/x.c": f"{RUN} not a test\n",
}


def main():
    top = sys.argv[1]
    for path, text in FILES.items():
        full = os.path.join(top, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
