"""python -m gpukit.pycuda_compat script.py [args]: run a PyCUDA script on gpukit."""

import gpukit.pycuda_compat  # noqa: F401  (installs the pycuda aliases)
from gpukit._script import run_script

run_script("gpukit.pycuda_compat")
