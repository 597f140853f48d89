"""Debug builds of kernels (PyCUDA's ``pycuda.debug``).

Importing this module calls ``gpukit.driver.set_debugging()``: kernels compiled afterwards
carry device debug information for cuda-gdb and compute-sanitizer.
``python -m gpukit.debug script.py [args]`` runs a script that way.
"""

from __future__ import annotations

from gpukit import driver

driver.set_debugging()

if __name__ == "__main__":
    from gpukit._script import run_script

    run_script("gpukit.debug")
