"""Run PyCUDA programs on gpukit unchanged: importing this module makes ``import pycuda``
and its submodules give gpukit's modules (``pycuda.driver`` *is* ``gpukit.driver``).

Nothing is imported until a program imports it, so importing this module creates no
context; ``import pycuda.autoinit`` does, as in PyCUDA. A PyCUDA module gpukit does not
implement (pycuda.fortran, pycuda.deferred, ...) raises ImportError saying so and whether it is
planned. ``python -m gpukit.pycuda_compat script.py [args]`` runs a script this way.
"""

from __future__ import annotations

from gpukit import _aliases

ALIASES = {
    "pycuda": "gpukit",
    "pycuda.driver": "gpukit.driver",
    "pycuda.compiler": "gpukit.compiler",
    "pycuda.tools": "gpukit.tools",
    "pycuda.autoinit": "gpukit.autoinit",
    "pycuda.autoprimaryctx": "gpukit.autoprimaryctx",
    "pycuda.gpuarray": "gpukit.gpuarray",
    "pycuda.elementwise": "gpukit.elementwise",
    "pycuda.cumath": "gpukit.cumath",
    "pycuda.scan": "gpukit.scan",
    "pycuda.reduction": "gpukit.reduction",
    "pycuda.characterize": "gpukit.characterize",
    "pycuda.debug": "gpukit.debug",
    "pycuda.curandom": "gpukit.curandom",
    "pycuda.gl": "gpukit.gl",
    "pycuda.gl.autoinit": "gpukit.gl.autoinit",
    "pycuda.sparse": "gpukit.sparse",
    "pycuda.sparse.packeted": "gpukit.sparse.packeted",
    "pycuda.sparse.coordinate": "gpukit.sparse.coordinate",
    "pycuda.sparse.cg": "gpukit.sparse.cg",
    "pycuda.sparse.operator": "gpukit.sparse.operator",
    "pycuda.sparse.inner": "gpukit.sparse.inner",
    # PyCUDA's private modules that libraries import all the same.
    "pycuda._driver": "gpukit.driver",
    "pycuda._cluda": "gpukit.pycuda_compat._cluda",
    "pycuda._mymako": "gpukit.pycuda_compat._mymako",
    "pycuda.compyte": "gpukit.pycuda_compat.compyte",
    "pycuda.compyte.array": "gpukit.pycuda_compat.compyte.array",
}

_SEE = "see docs/migrating-from-pycuda.md"

# PyCUDA's other modules (and their submodules): importing one raises ImportError saying
# what gpukit offers instead of it.
UNAVAILABLE = {
    "pycuda.sparse.pkt_build": "pycuda.sparse.pkt_build is PyCUDA's internal builder of METIS packets; gpukit's "
    "PacketedSpMV needs none: it builds its CSR blocks itself",
    "pycuda.sparse.pkt_build_cython": "pycuda.sparse.pkt_build_cython is PyCUDA's Cython builder of METIS packets; "
    "gpukit's PacketedSpMV needs none: it builds its CSR blocks itself",
    "pycuda.fortran": f"gpukit does not implement pycuda.fortran (nvfortran kernels) and has no plans to; {_SEE}",
    "pycuda.deferred": f"gpukit does not implement pycuda.deferred (DeferredSourceModule) and has no plans to; "
    f"SourceModule compiles for the current context's device; {_SEE}",
    "pycuda.compyte.dtypes": "gpukit has no pycuda.compyte.dtypes: its dtype registry (get_or_register_dtype, "
    "dtype_to_ctype, parse_c_arg) is in pycuda.tools",
    "pycuda._pvt_struct": "pycuda._pvt_struct is PyCUDA's private struct packer; gpukit has none: use prepare() "
    "formats or Python's struct module",
}


def install() -> None:
    """Put the pycuda finder first on sys.meta_path (once)."""
    _aliases.install("pycuda", "PyCUDA", ALIASES, UNAVAILABLE)


install()
