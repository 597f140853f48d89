"""PyCUDA's ``pycuda._mymako``: the Mako template engine, or an ImportError saying how to get it
(libraries render CLUDA_PREAMBLE with ``pycuda._mymako.template.Template``)."""

try:
    import mako.template  # type: ignore[import-not-found, import-untyped, unused-ignore]  # noqa: F401  (optional; Mako ships no type information)
except ImportError as e:
    raise ImportError("pycuda._mymako needs the Mako template engine: pip install mako") from e

from mako import *  # noqa: F401,F403,E402  (PyCUDA's module is Mako's namespace)
from mako import template  # noqa: F401,E402
