"""The bytes of a layout-sweep JSON report without the two provenance fields
that differ between two commands measuring the same: "command" (the argv)
and "date" (the clock, unless SOURCE_DATE_EPOCH is set). Used by
same-but-command.py and kill-shared-run.py."""
import re

# The provenance object's "command" array and "date" line, as llvm::json
# prints them (two-space indents, one element a line).
COMMAND = re.compile(r'\n( *)"command": \[\n(?:\1  .*\n)*?\1\],')
DATE = re.compile(r'\n *"date": "[^"\n]*",')


def strip(path):
    """The text of \\p path with every provenance command and date replaced
    by a marker; ValueError unless each record has one of each."""
    text = open(path, encoding="utf-8").read()
    text, commands = COMMAND.subn("\n<command>,", text)
    text, dates = DATE.subn("\n<date>,", text)
    if commands == 0 or commands != dates:
        raise ValueError(f"{path}: {commands} command and {dates} date fields "
                         "(expected one of each per provenance record)")
    return text
