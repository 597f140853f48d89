"""OpenGL interoperability, PyCUDA's ``pycuda.gl``: OpenGL buffer objects, textures and
renderbuffers registered with CUDA (RegisteredBuffer, RegisteredImage) and mapped
(``map()``, a RegisteredMapping) so that kernels and copies reach their memory.

gpukit neither links against OpenGL nor loads it: the caller makes the OpenGL context (GLUT,
GLFW, EGL, PyOpenGL, ...) and passes the objects' names. Registering, mapping and unmapping
need that OpenGL context current on the calling thread and a CUDA context on the GPU that
renders it; any CUDA context interoperates with OpenGL (see make_context). While an object is
mapped, OpenGL must not use it.
"""

from __future__ import annotations

from typing import SupportsIndex

from gpukit import driver as _driver
from gpukit._gpukit import (
    RegisteredBuffer as RegisteredBuffer,
    RegisteredImage as RegisteredImage,
    RegisteredMapping as RegisteredMapping,
    RegisteredObject as RegisteredObject,
    graphics_map_flags as graphics_map_flags,
)
from gpukit._warnings import warn as _warn


def init() -> None:
    """Initialise the CUDA driver. Deprecated since CUDA 3.0, as in PyCUDA: every context
    interoperates with OpenGL, so nothing else is needed."""
    _warn("gpukit.gl.init() is deprecated since CUDA 3.0: any context works with OpenGL", DeprecationWarning)
    _driver.init()


def make_context(dev: _driver.Device, flags: SupportsIndex = 0) -> _driver.Context:
    """Return a new context on ``dev``, made current, to use with OpenGL.

    PyCUDA made it with cuGLCtxCreate, which CUDA 12 removed: any context interoperates with
    OpenGL now, so this is ``dev.make_context(flags)``, an ordinary context. ``dev`` must be
    the GPU that renders the OpenGL context.
    """
    if not isinstance(dev, _driver.Device):
        raise TypeError(f"make_context(dev): expected a gpukit.driver.Device, got {type(dev).__name__} {dev!r}")
    return dev.make_context(flags)


class BufferObjectMapping:
    """A mapped BufferObject (deprecated since CUDA 3.0, as in PyCUDA): a RegisteredMapping
    under its old names. Unmapped by unmap() or when it is gone."""

    def __init__(self, mapping: RegisteredMapping) -> None:
        if not isinstance(mapping, RegisteredMapping):
            raise TypeError(
                f"BufferObjectMapping(mapping): expected a RegisteredMapping (BufferObject.map() makes one), got "
                f"{type(mapping).__name__} {mapping!r}"
            )
        self._mapping = mapping

    def device_ptr(self) -> int:
        """The buffer's device address."""
        return self._mapping.device_ptr_and_size()[0]

    def size(self) -> int:
        """The buffer's size in bytes."""
        return self._mapping.device_ptr_and_size()[1]

    def unmap(self) -> None:
        """Give the buffer back to OpenGL; LogicError when it is unmapped already."""
        self._mapping.unmap()


class BufferObject:
    """An OpenGL buffer object registered with CUDA the pre-CUDA-3.0 way (deprecated since
    CUDA 3.0, as in PyCUDA): a RegisteredBuffer under its old names; errors name
    RegisteredBuffer."""

    def __init__(self, bufobj: SupportsIndex) -> None:
        _warn("gpukit.gl.BufferObject is deprecated since CUDA 3.0: use RegisteredBuffer", DeprecationWarning)
        self._registered = RegisteredBuffer(bufobj)

    def handle(self) -> int:
        """The OpenGL name of the buffer."""
        return self._registered.gl_handle()

    def unregister(self) -> None:
        """Unregister the buffer now; LogicError while it is mapped."""
        self._registered.unregister()

    def map(self) -> BufferObjectMapping:
        """Map the buffer for CUDA (on the default stream) and return its BufferObjectMapping."""
        return BufferObjectMapping(self._registered.map())


__all__ = [
    "BufferObject",
    "BufferObjectMapping",
    "RegisteredBuffer",
    "RegisteredImage",
    "RegisteredMapping",
    "RegisteredObject",
    "graphics_map_flags",
    "init",
    "make_context",
]
