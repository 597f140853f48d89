"""Importing this module makes a context on the default device current for use with OpenGL
(``tools.make_default_context(gl.make_context)``), as ``pycuda.gl.autoinit`` does, and
releases it cleanly at interpreter exit. Make the OpenGL context current first: its objects
are registered from the GPU that renders it."""

from __future__ import annotations

import sys

from gpukit import gl as _gl
from gpukit import tools as _tools
from gpukit._exit import release_at_exit as _release_at_exit

context = _tools.make_default_context(_gl.make_context)
device = context.get_device()
_release_at_exit(sys.modules[__name__])
