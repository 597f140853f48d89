"""python -m gpukit.pycuda_compat script.py [args]: run a PyCUDA script on gpukit."""
import runpy
import sys

import gpukit.pycuda_compat  # noqa: F401  (installs the pycuda aliases)


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: python -m gpukit.pycuda_compat script.py [args...]")
    sys.argv = sys.argv[1:]  # the script sees itself as argv[0], as when run directly
    runpy.run_path(sys.argv[0], run_name="__main__")


main()
