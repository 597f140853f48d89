"""gpukit's warnings, attributed to the user's line: the innermost frame outside the gpukit
package, however many of gpukit's own functions lie between (the C++ core's warnings do the
same, python/bindings/common/bind_warnings.cpp)."""

from __future__ import annotations

import os
import sys
import warnings
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import FrameType

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn(message: str | Warning, category: type[Warning] = UserWarning) -> None:
    """warnings.warn(message, category), naming the first line outside gpukit."""
    frame: FrameType | None = sys._getframe(0)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level if frame is not None else 1)
