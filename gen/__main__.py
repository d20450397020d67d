"""`python -m gen`: the command line of gen.cli, ended without the interpreter's teardown.

A run leaves the IR of every page in memory (hundreds of thousands of objects); the teardown frees
them one by one for a process that is ending anyway: 0.05-0.07 CPU s, a tenth of a regeneration
after one page changed (mypy ends the same way, util.hard_exit). Every file a command writes is
closed when it returns, and its worker processes have ended: only the standard streams are left to
flush (a stream that cannot be flushed, a closed pipe, ends the command with the status 120 the
interpreter gives it). A command that raises ends as usual, with its traceback.
"""

import os
import sys

from gen.cli import main

status = main()
try:
    sys.stdout.flush()
    sys.stderr.flush()
except OSError:
    status = status or 120
os._exit(status)
