"""Run at the start of every Python process of `make sanitize-python` (the Makefile puts this
file on its PYTHONPATH): the sanitizer runtimes reach Python processes, and only them.

The lane preloads ASan into the interpreter through LD_PRELOAD, which every process started
from it would inherit; nvcc's tools crash with ASan preloaded (segfault). So the first
interpreter moves the preload to GPUKIT_SANITIZER_PRELOAD, where programs ignore it, and a
Python process started without the preload (a test's fresh interpreter, a multiprocessing
worker) re-executes itself with it."""

import os
import sys

_preload = os.environ.pop("LD_PRELOAD", None)
if _preload:
    os.environ["GPUKIT_SANITIZER_PRELOAD"] = _preload
elif os.environ.get("GPUKIT_SANITIZER_PRELOAD"):
    os.execve(sys.executable, sys.orig_argv, dict(os.environ, LD_PRELOAD=os.environ["GPUKIT_SANITIZER_PRELOAD"]))
