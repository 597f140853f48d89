"""Importing this module makes the default device's *primary* context current (the one
the CUDA runtime, CuPy and PyTorch use), so gpukit shares it with them."""

from __future__ import annotations

import sys

from gpukit import tools as _tools
from gpukit._exit import release_at_exit as _release_at_exit

device = _tools.get_default_device()
context = device.retain_primary_context()
context.push()
_release_at_exit(sys.modules[__name__])
