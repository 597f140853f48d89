"""Run PyCUDA programs on gpukit unchanged: importing this module makes ``import pycuda``
and its submodules give gpukit's modules (``pycuda.driver`` *is* ``gpukit.driver``).

Nothing is imported until a program imports it, so importing this module creates no
context; ``import pycuda.autoinit`` does, as in PyCUDA. ``python -m gpukit.pycuda_compat
script.py [args]`` runs a script this way.
"""
import importlib
import importlib.abc
import importlib.util
import sys

ALIASES = {
    "pycuda": "gpukit",
    "pycuda.driver": "gpukit.driver",
    "pycuda.compiler": "gpukit.compiler",
    "pycuda.tools": "gpukit.tools",
    "pycuda.autoinit": "gpukit.autoinit",
    "pycuda.autoprimaryctx": "gpukit.autoprimaryctx",
    "pycuda.gpuarray": "gpukit.gpuarray",
    "pycuda.elementwise": "gpukit.gpuarray",  # ElementwiseKernel lives in gpukit.gpuarray
}


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        # The gpukit module itself, so both names share one module and its state.
        return importlib.import_module(self.target)

    def exec_module(self, module):
        pass  # already executed when gpukit imported it


class AliasFinder(importlib.abc.MetaPathFinder):
    """Finds the pycuda names of ALIASES before any installed PyCUDA is looked at."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in ALIASES:
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(ALIASES[fullname]))


def install():
    """Put the finder first on sys.meta_path (once)."""
    if not any(isinstance(finder, AliasFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, AliasFinder())


install()
