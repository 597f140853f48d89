"""``python -m gpukit.<module> script.py [args]``: run a script as its ``__main__``."""

from __future__ import annotations

import os
import runpy
import sys


def run_script(command: str) -> None:
    """Run the script named by sys.argv[1] as ``__main__``, seeing sys.argv[1:] as its argv
    and its own directory first on sys.path, as when it is run directly. `command` is the
    module that runs it, for the usage message."""
    if len(sys.argv) < 2:
        sys.exit(f"usage: python -m {command} script.py [args...]")
    script = sys.argv[1]
    if not os.path.isfile(script):
        sys.exit(f"{command}: {script} is not a file")
    sys.argv = sys.argv[1:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")
