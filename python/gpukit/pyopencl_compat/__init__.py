"""Run code written for PyOpenCL's tools on gpukit.cl unchanged: importing this module makes
``import pyopencl`` give ``gpukit.cl``, and ``pyopencl.tools``, ``pyopencl.characterize`` and
``pyopencl.cltypes``, ``pyopencl.array``, ``pyopencl.clmath``, ``pyopencl.clrandom``,
``pyopencl.elementwise``, ``pyopencl.scan``, ``pyopencl.algorithm``, ``pyopencl.bitonic_sort`` and
``pyopencl.reduction`` give the gpukit.cl modules of the same names (the same module objects).

gpukit.cl covers PyOpenCL's core objects (platforms, devices, contexts, queues, buffers,
programs, kernels, events, enqueue_copy) and the tools of the seed (docs/opencl.md); a PyOpenCL
module it does not implement (pyopencl.cache, ...) raises ImportError saying so.
``python -m gpukit.pyopencl_compat script.py [args]`` runs a script this way.
"""

from __future__ import annotations

from gpukit import _aliases

ALIASES = {
    "pyopencl": "gpukit.cl",
    "pyopencl.tools": "gpukit.cl.tools",
    "pyopencl.characterize": "gpukit.cl.characterize",
    "pyopencl.cltypes": "gpukit.cl.cltypes",
    "pyopencl.array": "gpukit.cl.array",
    "pyopencl.clmath": "gpukit.cl.clmath",
    "pyopencl.clrandom": "gpukit.cl.clrandom",
    "pyopencl.elementwise": "gpukit.cl.elementwise",
    "pyopencl.scan": "gpukit.cl.scan",
    "pyopencl.algorithm": "gpukit.cl.algorithm",
    "pyopencl.bitonic_sort": "gpukit.cl.bitonic_sort",
    "pyopencl.reduction": "gpukit.cl.reduction",
}

_SEE = "see docs/opencl.md"

# PyOpenCL's other modules (and their submodules): importing one raises ImportError saying so.
UNAVAILABLE = {
    name: f"gpukit.cl does not implement {name} (PyOpenCL's {what}); {_SEE}"
    for name, what in {
        "pyopencl.cache": "program cache",
        "pyopencl.invoker": "kernel invoker generator",
        "pyopencl.capture_call": "kernel call capture",
        "pyopencl.ipython_ext": "IPython extension",
        "pyopencl.compyte": "internal helpers",
        "pyopencl._cl": "compiled extension",
    }.items()
}


def install() -> None:
    """Put the pyopencl finder first on sys.meta_path (once)."""
    _aliases.install("pyopencl", "PyOpenCL", ALIASES, UNAVAILABLE)


install()
