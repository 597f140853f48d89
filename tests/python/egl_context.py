"""A headless OpenGL context through EGL, driven with ctypes (PyOpenGL is not needed), for the
tests of gpukit.gl: OpenGL buffers and 2-D textures made, written and read back.

open_context() tries, in order, each EGL device (EGL_EXT_platform_device; the one EGL names
the wanted CUDA device first, where it says), then EGL_DEFAULT_DISPLAY; on each, a desktop
OpenGL context (eglBindAPI(EGL_OPENGL_API)) over a 1x1 pbuffer or, failing that, with no
surface (EGL_KHR_surfaceless_context). The first that becomes current wins. It works with
GLVND's loaders (libEGL.so.1, libOpenGL.so.0 or libGL.so.1) over NVIDIA's EGL driver or
Mesa's. Where none can be made, it raises Unavailable saying why each try failed.
"""

from __future__ import annotations

import ctypes
from typing import Any

# EGL's constants (EGL/egl.h, EGL/eglext.h).
EGL_EXTENSIONS = 0x3055
EGL_VENDOR = 0x3053
EGL_NONE = 0x3038
EGL_SURFACE_TYPE = 0x3033
EGL_PBUFFER_BIT = 0x0001
EGL_RENDERABLE_TYPE = 0x3040
EGL_OPENGL_BIT = 0x0008
EGL_RED_SIZE = 0x3024
EGL_GREEN_SIZE = 0x3023
EGL_BLUE_SIZE = 0x3022
EGL_WIDTH = 0x3057
EGL_HEIGHT = 0x3056
EGL_OPENGL_API = 0x30A2
EGL_PLATFORM_DEVICE_EXT = 0x313F
EGL_CUDA_DEVICE_NV = 0x323A

# OpenGL's constants (GL/gl.h, GL/glext.h).
GL_VENDOR = 0x1F00
GL_RENDERER = 0x1F01
GL_VERSION = 0x1F02
GL_ARRAY_BUFFER = 0x8892
GL_DYNAMIC_DRAW = 0x88E8
GL_TEXTURE_2D = 0x0DE1
GL_TEXTURE_MIN_FILTER = 0x2801
GL_TEXTURE_MAG_FILTER = 0x2800
GL_NEAREST = 0x2600
GL_PACK_ALIGNMENT = 0x0D05
GL_UNPACK_ALIGNMENT = 0x0CF5
GL_RGBA8 = 0x8058
GL_RGBA = 0x1908
GL_R32F = 0x822E
GL_RED = 0x1903
GL_UNSIGNED_BYTE = 0x1401
GL_FLOAT = 0x1406

_void_p = ctypes.c_void_p
_uint = ctypes.c_uint
_int = ctypes.c_int


class Unavailable(Exception):
    """No OpenGL context can be made here; the message says why."""


def _load(names: tuple[str, ...]) -> ctypes.CDLL:
    reasons = []
    for name in names:
        try:
            return ctypes.CDLL(name)
        except OSError as error:
            reasons.append(str(error))
    raise Unavailable(f"none of {', '.join(names)} can be loaded: {'; '.join(reasons)}")


def _function(library: ctypes.CDLL, name: str, restype: Any, *argtypes: Any) -> Any:
    function = getattr(library, name)
    function.restype = restype
    function.argtypes = argtypes
    return function


def _attributes(*pairs: int) -> ctypes.Array[ctypes.c_int]:
    values = (*pairs, EGL_NONE)
    return (ctypes.c_int * len(values))(*values)


class _Egl:
    """The EGL entry points the helper calls."""

    def __init__(self) -> None:
        lib = _load(("libEGL.so.1",))
        self.GetProcAddress = _function(lib, "eglGetProcAddress", _void_p, ctypes.c_char_p)
        self.QueryString = _function(lib, "eglQueryString", ctypes.c_char_p, _void_p, _int)
        self.GetDisplay = _function(lib, "eglGetDisplay", _void_p, _void_p)
        self.Initialize = _function(lib, "eglInitialize", _uint, _void_p, _void_p, _void_p)
        self.Terminate = _function(lib, "eglTerminate", _uint, _void_p)
        self.BindAPI = _function(lib, "eglBindAPI", _uint, _uint)
        self.ChooseConfig = _function(
            lib,
            "eglChooseConfig",
            _uint,
            _void_p,
            ctypes.POINTER(_int),
            ctypes.POINTER(_void_p),
            _int,
            ctypes.POINTER(_int),
        )
        self.CreatePbufferSurface = _function(
            lib, "eglCreatePbufferSurface", _void_p, _void_p, _void_p, ctypes.POINTER(_int)
        )
        self.DestroySurface = _function(lib, "eglDestroySurface", _uint, _void_p, _void_p)
        self.CreateContext = _function(
            lib, "eglCreateContext", _void_p, _void_p, _void_p, _void_p, ctypes.POINTER(_int)
        )
        self.DestroyContext = _function(lib, "eglDestroyContext", _uint, _void_p, _void_p)
        self.MakeCurrent = _function(lib, "eglMakeCurrent", _uint, _void_p, _void_p, _void_p, _void_p)
        self.GetError = _function(lib, "eglGetError", _int)

    def extension(self, name: str, prototype: Any) -> Any:
        """An extension's entry point, or None where EGL has none."""
        address = self.GetProcAddress(name.encode())
        return prototype(address) if address else None

    def error(self, call: str) -> str:
        return f"{call} failed (EGL error {self.GetError():#x})"


class _Gl:
    """The OpenGL entry points the helper calls (from libOpenGL.so.0, else libGL.so.1)."""

    def __init__(self) -> None:
        lib = _load(("libOpenGL.so.0", "libGL.so.1"))
        self.GetString = _function(lib, "glGetString", ctypes.c_char_p, _uint)
        self.GetError = _function(lib, "glGetError", _uint)
        self.Finish = _function(lib, "glFinish", None)
        self.PixelStorei = _function(lib, "glPixelStorei", None, _uint, _int)
        self.GenBuffers = _function(lib, "glGenBuffers", None, _int, ctypes.POINTER(_uint))
        self.DeleteBuffers = _function(lib, "glDeleteBuffers", None, _int, ctypes.POINTER(_uint))
        self.BindBuffer = _function(lib, "glBindBuffer", None, _uint, _uint)
        self.BufferData = _function(lib, "glBufferData", None, _uint, ctypes.c_ssize_t, _void_p, _uint)
        self.BufferSubData = _function(lib, "glBufferSubData", None, _uint, ctypes.c_ssize_t, ctypes.c_ssize_t, _void_p)
        self.GetBufferSubData = _function(
            lib, "glGetBufferSubData", None, _uint, ctypes.c_ssize_t, ctypes.c_ssize_t, _void_p
        )
        self.GenTextures = _function(lib, "glGenTextures", None, _int, ctypes.POINTER(_uint))
        self.DeleteTextures = _function(lib, "glDeleteTextures", None, _int, ctypes.POINTER(_uint))
        self.BindTexture = _function(lib, "glBindTexture", None, _uint, _uint)
        self.TexParameteri = _function(lib, "glTexParameteri", None, _uint, _uint, _int)
        self.TexImage2D = _function(
            lib, "glTexImage2D", None, _uint, _int, _int, _int, _int, _int, _uint, _uint, _void_p
        )
        self.TexSubImage2D = _function(
            lib, "glTexSubImage2D", None, _uint, _int, _int, _int, _int, _int, _uint, _uint, _void_p
        )
        self.GetTexImage = _function(lib, "glGetTexImage", None, _uint, _int, _uint, _uint, _void_p)


def _data_pointer(data: bytes | bytearray | memoryview | None) -> tuple[Any, int]:
    """A pointer to `data`'s bytes (None: a null pointer) and their count; the first item
    keeps the bytes alive."""
    if data is None:
        return None, 0
    view = memoryview(data).cast("B")
    buffer = (ctypes.c_char * view.nbytes).from_buffer_copy(view)
    return buffer, view.nbytes


class EglContext:
    """An OpenGL context made by open_context(), current on the thread that made it, with the
    few OpenGL calls the tests need. close() destroys it."""

    def __init__(self, egl: _Egl, gl: _Gl, display: int, surface: int | None, context: int, how: str) -> None:
        self._egl, self.gl = egl, gl
        self._display, self._surface, self._context = display, surface, context
        self.how = how  # which display and surface, for reports
        self.vendor = self._string(GL_VENDOR)
        self.renderer = self._string(GL_RENDERER)
        self.version = self._string(GL_VERSION)
        # Rows of any width, packed: numpy's layout.
        gl.PixelStorei(GL_PACK_ALIGNMENT, 1)
        gl.PixelStorei(GL_UNPACK_ALIGNMENT, 1)

    def _string(self, name: int) -> str:
        value = self.gl.GetString(name)
        return value.decode() if value else ""

    def __repr__(self) -> str:
        return f"<EglContext {self.vendor} {self.renderer}, OpenGL {self.version}, {self.how}>"

    @property
    def is_nvidia(self) -> bool:
        """Whether NVIDIA's driver renders it (CUDA registers only its objects)."""
        return "NVIDIA" in self.vendor

    def make_current(self) -> None:
        if not self._egl.MakeCurrent(self._display, self._surface, self._surface, self._context):
            raise RuntimeError(self._egl.error("eglMakeCurrent"))

    def close(self) -> None:
        """Release and destroy the context (its objects with it)."""
        self._egl.MakeCurrent(self._display, None, None, None)
        self._egl.DestroyContext(self._display, self._context)
        if self._surface:
            self._egl.DestroySurface(self._display, self._surface)
        self._egl.Terminate(self._display)

    def check(self, what: str) -> None:
        """RuntimeError naming `what` when OpenGL reports an error."""
        error = self.gl.GetError()
        if error:
            raise RuntimeError(f"{what}: OpenGL error {error:#x}")

    def finish(self) -> None:
        self.gl.Finish()

    def new_buffer(self, data: bytes | bytearray | memoryview) -> int:
        """A new buffer object holding `data`."""
        name = _uint()
        self.gl.GenBuffers(1, ctypes.byref(name))
        pointer, size = _data_pointer(data)
        self.gl.BindBuffer(GL_ARRAY_BUFFER, name)
        self.gl.BufferData(GL_ARRAY_BUFFER, size, pointer, GL_DYNAMIC_DRAW)
        self.gl.BindBuffer(GL_ARRAY_BUFFER, 0)
        self.check("glBufferData")
        return name.value

    def write_buffer(self, buffer: int, data: bytes | bytearray | memoryview, offset: int = 0) -> None:
        pointer, size = _data_pointer(data)
        self.gl.BindBuffer(GL_ARRAY_BUFFER, buffer)
        self.gl.BufferSubData(GL_ARRAY_BUFFER, offset, size, pointer)
        self.gl.BindBuffer(GL_ARRAY_BUFFER, 0)
        self.check("glBufferSubData")

    def read_buffer(self, buffer: int, size: int, offset: int = 0) -> bytes:
        out = ctypes.create_string_buffer(size)
        self.gl.BindBuffer(GL_ARRAY_BUFFER, buffer)
        self.gl.GetBufferSubData(GL_ARRAY_BUFFER, offset, size, out)
        self.gl.BindBuffer(GL_ARRAY_BUFFER, 0)
        self.check("glGetBufferSubData")
        return out.raw

    def delete_buffer(self, buffer: int) -> None:
        self.gl.DeleteBuffers(1, ctypes.byref(_uint(buffer)))

    def new_texture_2d(
        self,
        width: int,
        height: int,
        internal_format: int,
        pixel_format: int,
        pixel_type: int,
        data: bytes | bytearray | memoryview | None = None,
    ) -> int:
        """A new GL_TEXTURE_2D of one level, from `data` (None: undefined texels)."""
        name = _uint()
        self.gl.GenTextures(1, ctypes.byref(name))
        self.gl.BindTexture(GL_TEXTURE_2D, name)
        # One level, sampled as is: a texture without mipmaps is complete only so.
        self.gl.TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST)
        self.gl.TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST)
        pointer, _ = _data_pointer(data)
        self.gl.TexImage2D(GL_TEXTURE_2D, 0, internal_format, width, height, 0, pixel_format, pixel_type, pointer)
        self.gl.BindTexture(GL_TEXTURE_2D, 0)
        self.check("glTexImage2D")
        return name.value

    def write_texture_2d(
        self,
        texture: int,
        width: int,
        height: int,
        pixel_format: int,
        pixel_type: int,
        data: bytes | bytearray | memoryview,
        y: int = 0,
    ) -> None:
        """Writes `height` rows of `width` texels from row `y` on."""
        pointer, _ = _data_pointer(data)
        self.gl.BindTexture(GL_TEXTURE_2D, texture)
        self.gl.TexSubImage2D(GL_TEXTURE_2D, 0, 0, y, width, height, pixel_format, pixel_type, pointer)
        self.gl.BindTexture(GL_TEXTURE_2D, 0)
        self.check("glTexSubImage2D")

    def read_texture_2d(self, texture: int, pixel_format: int, pixel_type: int, size: int) -> bytes:
        out = ctypes.create_string_buffer(size)
        self.gl.BindTexture(GL_TEXTURE_2D, texture)
        self.gl.GetTexImage(GL_TEXTURE_2D, 0, pixel_format, pixel_type, out)
        self.gl.BindTexture(GL_TEXTURE_2D, 0)
        self.check("glGetTexImage")
        return out.raw

    def delete_texture(self, texture: int) -> None:
        self.gl.DeleteTextures(1, ctypes.byref(_uint(texture)))


def _device_displays(egl: _Egl, cuda_device: int) -> list[tuple[str, int]]:
    """(description, display) of each EGL device, the one EGL names `cuda_device` first."""
    extensions = (egl.QueryString(None, EGL_EXTENSIONS) or b"").decode().split()
    if "EGL_EXT_platform_device" not in extensions:
        return []
    query_devices = egl.extension(
        "eglQueryDevicesEXT", ctypes.CFUNCTYPE(_uint, _int, ctypes.POINTER(_void_p), ctypes.POINTER(_int))
    )
    platform_display = egl.extension(
        "eglGetPlatformDisplayEXT", ctypes.CFUNCTYPE(_void_p, _uint, _void_p, ctypes.POINTER(_int))
    )
    query_attribute = egl.extension(
        "eglQueryDeviceAttribEXT", ctypes.CFUNCTYPE(_uint, _void_p, _int, ctypes.POINTER(ctypes.c_ssize_t))
    )
    if query_devices is None or platform_display is None:
        return []
    devices = (_void_p * 16)()
    count = _int()
    if not query_devices(len(devices), devices, ctypes.byref(count)):
        return []
    found = []
    for index in range(count.value):
        cuda = ctypes.c_ssize_t(-1)
        names_cuda = query_attribute is not None and query_attribute(
            devices[index], EGL_CUDA_DEVICE_NV, ctypes.byref(cuda)
        )
        egl.GetError()  # a device without the attribute leaves an error behind
        display = platform_display(EGL_PLATFORM_DEVICE_EXT, devices[index], None)
        if display:
            found.append((names_cuda and cuda.value == cuda_device, f"EGL device {index}", display))
    found.sort(key=lambda entry: not entry[0])
    return [(how, display) for _, how, display in found]


def _make_current(egl: _Egl, gl: _Gl, display: int, how: str) -> EglContext:
    if not egl.Initialize(display, None, None):
        raise Unavailable(egl.error("eglInitialize"))
    try:
        if not egl.BindAPI(EGL_OPENGL_API):
            raise Unavailable(egl.error("eglBindAPI(EGL_OPENGL_API)"))
        config, count = _void_p(), _int()
        colour = (EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT)
        surface = None
        pbuffer = _attributes(EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, *colour)
        if egl.ChooseConfig(display, pbuffer, ctypes.byref(config), 1, ctypes.byref(count)) and count.value:
            surface = egl.CreatePbufferSurface(display, config, _attributes(EGL_WIDTH, 1, EGL_HEIGHT, 1))
        if not surface:
            extensions = (egl.QueryString(display, EGL_EXTENSIONS) or b"").decode().split()
            if "EGL_KHR_surfaceless_context" not in extensions:
                raise Unavailable("no pbuffer configuration and no EGL_KHR_surfaceless_context")
            surfaceless = _attributes(*colour)
            if not (
                egl.ChooseConfig(display, surfaceless, ctypes.byref(config), 1, ctypes.byref(count)) and count.value
            ):
                raise Unavailable(egl.error("eglChooseConfig(EGL_OPENGL_BIT)"))
        context = egl.CreateContext(display, config, None, None)
        if not context:
            raise Unavailable(egl.error("eglCreateContext"))
        if not egl.MakeCurrent(display, surface, surface, context):
            egl.DestroyContext(display, context)
            raise Unavailable(egl.error("eglMakeCurrent"))
        return EglContext(egl, gl, display, surface, context, f"{how}, {'pbuffer' if surface else 'surfaceless'}")
    except Unavailable:
        egl.Terminate(display)
        raise


def open_context(cuda_device: int = 0) -> EglContext:
    """A new OpenGL context, current on this thread, preferring the EGL device of CUDA device
    `cuda_device`; Unavailable saying why not when none can be made."""
    egl, gl = _Egl(), _Gl()
    candidates = _device_displays(egl, cuda_device)
    default = egl.GetDisplay(None)
    if default:
        candidates.append(("EGL_DEFAULT_DISPLAY", default))
    if not candidates:
        raise Unavailable("EGL offers no display: no EGL device (EGL_EXT_platform_device) and no default display")
    reasons = []
    for how, display in candidates:
        try:
            return _make_current(egl, gl, display, how)
        except Unavailable as why:
            reasons.append(f"{how}: {why}")
    raise Unavailable("no OpenGL context could be made through EGL: " + "; ".join(reasons))


def open_or_skip(cuda_device: int = 0) -> EglContext:
    """open_context() for a pytest fixture: the context, or the test skipped saying why there
    is none."""
    import pytest

    try:
        return open_context(cuda_device)
    except Unavailable as why:
        pytest.skip(str(why))
