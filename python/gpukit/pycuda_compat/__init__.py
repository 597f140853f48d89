"""Run PyCUDA programs on gpukit unchanged: importing this module makes ``import pycuda``
and its submodules give gpukit's modules (``pycuda.driver`` *is* ``gpukit.driver``).

Nothing is imported until a program imports it, so importing this module creates no
context; ``import pycuda.autoinit`` does, as in PyCUDA. A PyCUDA module gpukit does not
implement (pycuda.cumath, pycuda.gl, ...) raises ImportError saying so and whether it is
planned. ``python -m gpukit.pycuda_compat script.py [args]`` runs a script this way.
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
    "pycuda.elementwise": "gpukit.elementwise",
    "pycuda.characterize": "gpukit.characterize",
    "pycuda.debug": "gpukit.debug",
}

_SEE = "see docs/migrating-from-pycuda.md"

# PyCUDA's other modules (and their submodules): importing one raises ImportError saying
# what gpukit offers instead of it.
UNAVAILABLE = {
    "pycuda.cumath": f"gpukit does not implement pycuda.cumath yet (planned); {_SEE}",
    "pycuda.curandom": f"gpukit does not implement pycuda.curandom yet (planned); {_SEE}",
    "pycuda.reduction": f"gpukit does not implement pycuda.reduction (ReductionKernel) yet (planned); gpuarray's "
                        f"sum, dot, min and max are there; {_SEE}",
    "pycuda.scan": f"gpukit does not implement pycuda.scan yet (planned); {_SEE}",
    "pycuda.sparse": f"gpukit does not implement pycuda.sparse (sparse matrices, CG solver) and has no plans to; "
                     f"{_SEE}",
    "pycuda.gl": f"gpukit does not implement pycuda.gl (OpenGL interoperability) and has no plans to; {_SEE}",
    "pycuda.fortran": f"gpukit does not implement pycuda.fortran (nvfortran kernels) and has no plans to; {_SEE}",
    "pycuda.deferred": f"gpukit does not implement pycuda.deferred (DeferredSourceModule) and has no plans to; "
                       f"SourceModule compiles for the current context's device; {_SEE}",
    "pycuda.compyte": "pycuda.compyte is PyCUDA's internal helper package; gpukit has none: its dtype registry "
                      "(get_or_register_dtype, dtype_to_ctype, parse_c_arg) is in pycuda.tools",
    "pycuda._driver": "pycuda._driver is PyCUDA's compiled extension; gpukit has none: import pycuda.driver",
    "pycuda._pvt_struct": "pycuda._pvt_struct is PyCUDA's private struct packer; gpukit has none: use prepare() "
                          "formats or Python's struct module",
    "pycuda._cluda": "pycuda._cluda is PyCUDA's private code template; gpukit has none",
    "pycuda._mymako": "pycuda._mymako is PyCUDA's private Mako loader; gpukit has none",
}


def _unavailable_message(fullname):
    """The UNAVAILABLE message of `fullname` or of the package it is in, else None."""
    for package, message in UNAVAILABLE.items():
        if fullname == package or fullname.startswith(package + "."):
            return message
    return None


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        # The gpukit module itself, so both names share one module and its state.
        return importlib.import_module(self.target)

    def exec_module(self, module):
        pass  # already executed when gpukit imported it


class AliasFinder(importlib.abc.MetaPathFinder):
    """Answers for every pycuda name before any installed PyCUDA is looked at: the gpukit
    module of ALIASES, or ImportError saying why there is none."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "pycuda" and not fullname.startswith("pycuda."):
            return None
        if fullname in ALIASES:
            return importlib.util.spec_from_loader(fullname, _AliasLoader(ALIASES[fullname]))
        message = _unavailable_message(fullname)
        if message is not None:
            raise ImportError(message, name=fullname)
        # Not a PyCUDA module either; without this, pycuda.X would find gpukit's own X.
        raise ModuleNotFoundError(f"No module named {fullname!r}: PyCUDA has no such module, and gpukit maps "
                                  f"only PyCUDA's ({', '.join(sorted(ALIASES))})", name=fullname)


def install():
    """Put the finder first on sys.meta_path (once)."""
    if not any(isinstance(finder, AliasFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, AliasFinder())


install()
