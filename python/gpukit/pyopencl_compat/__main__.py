"""python -m gpukit.pyopencl_compat script.py [args]: run a PyOpenCL script on gpukit.cl."""

import gpukit.pyopencl_compat  # noqa: F401  (installs the pyopencl aliases)
from gpukit._script import run_script

run_script("gpukit.pyopencl_compat")
