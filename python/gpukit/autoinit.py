"""Importing this module makes a context on the default device current
(``tools.make_default_context()``) and releases it cleanly at interpreter exit."""

from __future__ import annotations

import sys

from gpukit import tools as _tools
from gpukit._exit import release_at_exit as _release_at_exit

context = _tools.make_default_context()
device = context.get_device()
_release_at_exit(sys.modules[__name__])
