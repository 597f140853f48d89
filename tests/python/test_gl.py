"""gpukit.gl, PyCUDA's pycuda.gl: its names and argument checks (no GPU needed), the EGL
helper's OpenGL round trips (any EGL driver, Mesa's too), and on a GPU whose EGL driver is
NVIDIA's, OpenGL buffers and textures registered, written by kernels and copies through the
mapped pointer and arrays and read back through OpenGL, and the reverse; the misuses of a
mapping; BufferObject; gl.autoinit; and a PyCUDA gl_interop-style program through the pycuda
drop-in where PyOpenGL can make a context. The OpenGL context is headless, through EGL
(egl_context.py); tests that need one skip, with the reason, where none can be made."""

import gc
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import egl_context
import gpukit.driver as drv
import gpukit.gl as gl
from gpukit.compiler import SourceModule

KERNELS = r"""
extern "C" __global__ void affine(unsigned int* p, unsigned int a, unsigned int b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = a * p[i] + b;
}
extern "C" __global__ void iota(float* p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = 0.25f * i;
}
extern "C" __global__ void sample_rgba(unsigned int* out, cudaTextureObject_t texture, int w) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w) {
        uchar4 t = tex2D<uchar4>(texture, x, y);
        out[y * w + x] = t.x | t.y << 8 | t.z << 16 | (unsigned int)t.w << 24;
    }
}
extern "C" __global__ void write_surface(cudaSurfaceObject_t surface, int w) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w) surf2Dwrite(1000.0f * y + x, surface, x * 4, y);
}
"""


@pytest.fixture(scope="module")
def egl():
    """The tests' OpenGL context through EGL, or a skip saying why there is none."""
    context = egl_context.open_or_skip()
    yield context
    context.close()


@pytest.fixture
def cuda_gl(egl, ctx):
    """(OpenGL context, CUDA context) on one NVIDIA GPU: CUDA registers only objects of
    NVIDIA's OpenGL driver."""
    if not egl.is_nvidia:
        pytest.skip(
            f"OpenGL renders on {egl.vendor} {egl.renderer}, not NVIDIA's driver: CUDA cannot register its objects"
        )
    egl.make_current()
    yield egl, ctx
    gc.collect()  # mappings and registrations left by a failed test go while both contexts exist


def launch(function, n, *args):
    function(*args, np.int32(n), block=(256, 1, 1), grid=((n + 255) // 256, 1))


# --- no GPU needed ---------------------------------------------------------------------------


def test_pycuda_names():
    for name in ("init", "make_context", "graphics_map_flags", "BufferObject", "BufferObjectMapping"):
        assert hasattr(gl, name), name
    for name in ("RegisteredBuffer", "RegisteredImage", "RegisteredMapping"):
        assert isinstance(getattr(gl, name), type), name
    flags = gl.graphics_map_flags
    assert (flags.NONE, flags.READ_ONLY, flags.WRITE_DISCARD) == (0, 1, 2)
    assert issubclass(gl.RegisteredBuffer, gl.RegisteredObject) and issubclass(gl.RegisteredImage, gl.RegisteredObject)


@pytest.mark.parametrize(
    "call, error, text",
    [
        (lambda: gl.RegisteredBuffer("1"), TypeError, "RegisteredBuffer(bufobj): expected an integer"),
        (lambda: gl.RegisteredBuffer(-1), drv.LogicError, "RegisteredBuffer(bufobj): expected an integer from 0"),
        (lambda: gl.RegisteredBuffer(1, 4), drv.LogicError, "RegisteredBuffer(flags): expected graphics_map_flags"),
        (lambda: gl.RegisteredBuffer(1, 3), drv.LogicError, "got 3"),
        (lambda: gl.RegisteredImage(1, 0x0DE1, 16), drv.LogicError, "RegisteredImage(flags): expected"),
        (lambda: gl.RegisteredImage(1, None), TypeError, "RegisteredImage(target): expected an integer"),
        (lambda: gl.RegisteredImage(1), TypeError, "target"),
        (lambda: gl.RegisteredBuffer(1, flag=0), TypeError, "flag"),
        (lambda: gl.make_context(0), TypeError, "make_context(dev): expected a gpukit.driver.Device"),
        (lambda: gl.make_context(dev=None, flag=0), TypeError, "flag"),
        (lambda: gl.BufferObjectMapping(None), TypeError, "expected a RegisteredMapping"),
        (lambda: drv.memcpy_htoa(object(), 0, b""), TypeError, "Array"),
    ],
)
def test_bad_arguments_are_refused_before_the_driver_is_asked(call, error, text):
    with pytest.raises(error) as info:
        call()
    assert text in str(info.value)


def test_the_egl_helper_round_trips_buffers_and_textures(egl):
    """The OpenGL side of the tests, on whatever EGL driver this machine has (Mesa's llvmpipe
    in CI)."""
    rng = np.random.default_rng(1)
    data = rng.integers(0, 2**32, 1000, dtype=np.uint32)
    buffer = egl.new_buffer(data.tobytes())
    egl.write_buffer(buffer, np.arange(10, dtype=np.uint32).tobytes(), 40)
    data[10:20] = np.arange(10)
    assert np.array_equal(np.frombuffer(egl.read_buffer(buffer, data.nbytes), np.uint32), data)
    image = rng.integers(0, 256, (13, 17, 4), dtype=np.uint8)
    texture = egl.new_texture_2d(17, 13, egl_context.GL_RGBA8, egl_context.GL_RGBA, egl_context.GL_UNSIGNED_BYTE)
    egl.write_texture_2d(texture, 17, 13, egl_context.GL_RGBA, egl_context.GL_UNSIGNED_BYTE, image.tobytes())
    back = egl.read_texture_2d(texture, egl_context.GL_RGBA, egl_context.GL_UNSIGNED_BYTE, image.nbytes)
    assert np.array_equal(np.frombuffer(back, np.uint8).reshape(image.shape), image)
    egl.delete_texture(texture)
    egl.delete_buffer(buffer)


# --- a GPU rendering OpenGL through NVIDIA's EGL ----------------------------------------------


@pytest.mark.gpu
def test_a_kernel_writes_a_buffer_opengl_wrote_and_opengl_reads_it(cuda_gl):
    egl, _ = cuda_gl
    data = np.random.default_rng(2).integers(0, 2**20, 4099, dtype=np.uint32)
    buffer = egl.new_buffer(data.tobytes())
    registered = gl.RegisteredBuffer(buffer)
    assert registered.gl_handle() == buffer
    mapping = registered.map()
    address, size = mapping.device_ptr_and_size()
    assert size == data.nbytes
    seen = np.empty_like(data)
    drv.memcpy_dtoh(seen, address)
    assert np.array_equal(seen, data)  # what OpenGL wrote
    launch(
        SourceModule(KERNELS, no_extern_c=True).get_function("affine"),
        data.size,
        np.uintp(address),
        np.uint32(3),
        np.uint32(7),
    )
    mapping.unmap()
    assert np.array_equal(np.frombuffer(egl.read_buffer(buffer, data.nbytes), np.uint32), 3 * data + 7)
    registered.unregister()
    egl.delete_buffer(buffer)


@pytest.mark.gpu
def test_write_discard_buffer_mapped_on_a_stream(cuda_gl):
    egl, _ = cuda_gl
    n = 1000
    buffer = egl.new_buffer(bytes(4 * n))
    registered = gl.RegisteredBuffer(buffer, gl.graphics_map_flags.WRITE_DISCARD)
    stream = drv.Stream()
    mapping = registered.map(stream)
    address, _ = mapping.device_ptr_and_size()
    SourceModule(KERNELS, no_extern_c=True).get_function("iota")(
        np.uintp(address), np.int32(n), block=(256, 1, 1), grid=(4, 1), stream=stream
    )
    mapping.unmap()  # on the stream it was mapped on
    assert np.array_equal(
        np.frombuffer(egl.read_buffer(buffer, 4 * n), np.float32), 0.25 * np.arange(n, dtype=np.float32)
    )
    registered.unregister()
    egl.delete_buffer(buffer)


@pytest.mark.gpu
def test_rgba8_texture_copied_to_and_from_its_mapped_array(cuda_gl):
    egl, _ = cuda_gl
    rng = np.random.default_rng(3)
    width, height = 37, 21
    image = rng.integers(0, 256, (height, width, 4), dtype=np.uint8)
    texture = egl.new_texture_2d(width, height, egl_context.GL_RGBA8, egl_context.GL_RGBA, egl_context.GL_UNSIGNED_BYTE)
    registered = gl.RegisteredImage(texture, egl_context.GL_TEXTURE_2D)
    mapping = registered.map()
    array = mapping.array(0, 0)
    descriptor = array.get_descriptor()
    assert (descriptor.width, descriptor.height, descriptor.num_channels) == (width, height, 4)
    assert descriptor.format == drv.array_format.UNSIGNED_INT8
    assert array.nbytes == image.nbytes
    drv.memcpy_htoa(array, 0, image)
    mapping.unmap()
    back = egl.read_texture_2d(texture, egl_context.GL_RGBA, egl_context.GL_UNSIGNED_BYTE, image.nbytes)
    assert np.array_equal(np.frombuffer(back, np.uint8).reshape(image.shape), image)

    other = rng.integers(0, 256, image.shape, dtype=np.uint8)
    egl.write_texture_2d(texture, width, height, egl_context.GL_RGBA, egl_context.GL_UNSIGNED_BYTE, other.tobytes())
    mapping = registered.map()
    seen = np.empty_like(other)
    drv.memcpy_atoh(seen, mapping.array(0, 0), 0)
    mapping.unmap()
    assert np.array_equal(seen, other)
    registered.unregister()
    egl.delete_texture(texture)


@pytest.mark.gpu
def test_a_mapped_images_array_is_a_driver_array_for_copies_and_textures(cuda_gl):
    """What PyCUDA programs do with mapping.array(): memcpy_atoa it into an Array of their own,
    sample it through a TextureObject."""
    egl, _ = cuda_gl
    rng = np.random.default_rng(4)
    width, height = 37, 21
    image = rng.integers(0, 256, (height, width, 4), dtype=np.uint8)
    texture = egl.new_texture_2d(width, height, egl_context.GL_RGBA8, egl_context.GL_RGBA, egl_context.GL_UNSIGNED_BYTE)
    egl.write_texture_2d(texture, width, height, egl_context.GL_RGBA, egl_context.GL_UNSIGNED_BYTE, image.tobytes())
    registered = gl.RegisteredImage(texture, egl_context.GL_TEXTURE_2D, gl.graphics_map_flags.READ_ONLY)
    mapping = registered.map()
    array = mapping.array(0, 0)
    assert type(array) is drv.Array  # Memcpy2D of it: test_pycuda_gl_sparse_sides.py

    own = drv.Array(array.get_descriptor())
    drv.memcpy_atoa(own, 0, array, 0, image.nbytes)
    seen = np.empty_like(image)
    drv.memcpy_atoh(seen, own, 0)
    assert np.array_equal(seen, image)

    sampler = drv.TextureObject.from_array(array, flags=drv.TRSF_READ_AS_INTEGER)
    out = drv.mem_alloc(4 * width * height)
    SourceModule(KERNELS, no_extern_c=True).get_function("sample_rgba")(
        out, sampler, np.int32(width), block=(64, 1, 1), grid=(1, height)
    )
    texels = np.empty((height, width), np.uint32)
    drv.memcpy_dtoh(texels, out)
    assert np.array_equal(texels, image.view(np.uint32)[..., 0])
    sampler.destroy()
    mapping.unmap()
    with pytest.raises(drv.LogicError, match="RegisteredMapping that has been unmapped"):
        drv.TextureObject.from_array(array)
    registered.unregister()
    egl.delete_texture(texture)


@pytest.mark.gpu
def test_a_kernel_writes_a_mapped_image_through_a_surface(cuda_gl):
    egl, _ = cuda_gl
    width, height = 40, 9
    texture = egl.new_texture_2d(width, height, egl_context.GL_R32F, egl_context.GL_RED, egl_context.GL_FLOAT)
    flags = gl.graphics_map_flags.WRITE_DISCARD | drv.graphics_register_flags.SURFACE_LDST
    registered = gl.RegisteredImage(texture, egl_context.GL_TEXTURE_2D, flags)
    mapping = registered.map()
    surface = drv.SurfaceObject(mapping.array(0, 0))
    SourceModule(KERNELS, no_extern_c=True).get_function("write_surface")(
        surface, np.int32(width), block=(64, 1, 1), grid=(1, height)
    )
    surface.destroy()
    mapping.unmap()
    back = egl.read_texture_2d(texture, egl_context.GL_RED, egl_context.GL_FLOAT, 4 * width * height)
    y, x = np.mgrid[:height, :width]
    assert np.array_equal(np.frombuffer(back, np.float32).reshape(height, width), (1000.0 * y + x).astype(np.float32))
    registered.unregister()
    egl.delete_texture(texture)


@pytest.mark.gpu
def test_freeing_a_mapped_images_array_lets_go_of_it_only(cuda_gl):
    egl, _ = cuda_gl
    texture = egl.new_texture_2d(4, 4, egl_context.GL_RGBA8, egl_context.GL_RGBA, egl_context.GL_UNSIGNED_BYTE)
    registered = gl.RegisteredImage(texture, egl_context.GL_TEXTURE_2D)
    mapping = registered.map()
    array = mapping.array(0, 0)
    array.free()  # CUDA owns it: nothing is destroyed or unmapped
    with pytest.raises(drv.LogicError, match="has been freed"):
        array.handle
    assert mapping.is_mapped
    drv.memcpy_htoa(mapping.array(0, 0), 0, bytes(64))
    mapping.unmap()
    registered.unregister()
    egl.delete_texture(texture)


@pytest.mark.gpu
def test_r32f_texture_written_by_a_kernel_through_device_memory(cuda_gl):
    egl, _ = cuda_gl
    width, height = 40, 9
    n = width * height
    texture = egl.new_texture_2d(width, height, egl_context.GL_R32F, egl_context.GL_RED, egl_context.GL_FLOAT)
    registered = gl.RegisteredImage(texture, egl_context.GL_TEXTURE_2D, gl.graphics_map_flags.NONE)
    values = drv.mem_alloc(4 * n)
    launch(SourceModule(KERNELS, no_extern_c=True).get_function("iota"), n, values)
    mapping = registered.map()
    array = mapping.array(0, 0)
    assert array.get_descriptor_3d().format == drv.array_format.FLOAT
    drv.memcpy_dtoa(array, 0, values, 4 * n)
    mapping.unmap()
    expected = 0.25 * np.arange(n, dtype=np.float32)
    back = egl.read_texture_2d(texture, egl_context.GL_RED, egl_context.GL_FLOAT, 4 * n)
    assert np.array_equal(np.frombuffer(back, np.float32), expected)

    # The reverse: OpenGL writes its second half of rows, CUDA copies them out.
    rows = np.full((height - 4, width), -1.5, np.float32)
    egl.write_texture_2d(texture, width, height - 4, egl_context.GL_RED, egl_context.GL_FLOAT, rows.tobytes(), y=4)
    mapping = registered.map()
    drv.memcpy_atod(values, mapping.array(0, 0), 4 * 4 * width, rows.nbytes)
    mapping.unmap()
    seen = np.empty_like(rows)
    drv.memcpy_dtoh(seen, values)
    assert np.array_equal(seen, rows)
    registered.unregister()
    egl.delete_texture(texture)


@pytest.mark.gpu
def test_misuse_is_a_clear_error(cuda_gl):
    egl, _ = cuda_gl
    buffer = egl.new_buffer(bytes(256))
    texture = egl.new_texture_2d(8, 8, egl_context.GL_RGBA8, egl_context.GL_RGBA, egl_context.GL_UNSIGNED_BYTE)
    registered = gl.RegisteredBuffer(buffer)
    image = gl.RegisteredImage(texture, egl_context.GL_TEXTURE_2D)
    mapping = registered.map()
    with pytest.raises(drv.LogicError, match="mapped already"):
        registered.map()
    with pytest.raises(drv.LogicError, match="the buffer is mapped; unmap its RegisteredMapping first"):
        registered.unregister()
    with pytest.raises(drv.LogicError, match="a mapped buffer has no arrays"):
        mapping.array(0, 0)
    with pytest.raises(TypeError, match="stream must be"):
        registered.map("stream")
    mapping.unmap()
    assert not mapping.is_mapped and not registered.is_mapped
    with pytest.raises(drv.LogicError, match="has been unmapped"):
        mapping.unmap()
    with pytest.raises(drv.LogicError, match="has been unmapped"):
        mapping.device_ptr_and_size()

    image_mapping = image.map()
    array = image_mapping.array(0, 0)
    with pytest.raises(drv.LogicError, match="a mapped image has no device pointer"):
        image_mapping.device_ptr_and_size()
    with pytest.raises(drv.LogicError, match="RegisteredMapping.array\\(index\\): expected an integer from 0"):
        image_mapping.array(-1, 0)
    with pytest.raises(drv.LogicError, match="cuGraphicsSubResourceGetMappedArray"):
        image_mapping.array(0, 3)  # one level only
    with pytest.raises(drv.LogicError, match="whole rows"):
        drv.memcpy_htoa(array, 1, bytes(32))
    image_mapping.unmap()
    with pytest.raises(drv.LogicError, match="has been unmapped"):
        drv.memcpy_htoa(array, 0, bytes(32))
    with pytest.raises(drv.LogicError, match="has been unmapped"):
        array.handle

    registered.unregister()
    registered.unregister()  # again: nothing
    with pytest.raises(drv.LogicError, match="this RegisteredBuffer has been unregistered"):
        registered.map()
    image.unregister()
    egl.delete_texture(texture)
    egl.delete_buffer(buffer)


@pytest.mark.gpu
def test_a_mapping_keeps_its_resource_and_its_arrays_keep_it_mapped(cuda_gl):
    egl, _ = cuda_gl
    data = np.arange(64, dtype=np.uint32)
    buffer = egl.new_buffer(data.tobytes())
    mapping = gl.RegisteredBuffer(buffer).map()  # the RegisteredBuffer has no other reference
    gc.collect()
    seen = np.empty_like(data)
    drv.memcpy_dtoh(seen, mapping.device_ptr_and_size()[0])
    assert np.array_equal(seen, data)
    del mapping  # unmaps, then unregisters the buffer
    gc.collect()
    registered = gl.RegisteredBuffer(buffer)
    registered.map()  # dropped at once: unmapped
    assert not registered.is_mapped
    registered.unregister()

    texture = egl.new_texture_2d(4, 4, egl_context.GL_RGBA8, egl_context.GL_RGBA, egl_context.GL_UNSIGNED_BYTE)
    image = gl.RegisteredImage(texture, egl_context.GL_TEXTURE_2D)
    array = image.map().array(0, 0)  # the array keeps its mapping, and so the image mapped
    gc.collect()
    assert image.is_mapped
    drv.memcpy_htoa(array, 0, bytes(64))
    del array
    gc.collect()
    assert not image.is_mapped
    image.unregister()
    egl.delete_texture(texture)
    egl.delete_buffer(buffer)


@pytest.mark.gpu
def test_buffer_object_the_deprecated_way(cuda_gl):
    egl, _ = cuda_gl
    data = np.arange(100, dtype=np.uint32)
    buffer = egl.new_buffer(data.tobytes())
    with pytest.warns(DeprecationWarning, match="BufferObject is deprecated"):
        registered = gl.BufferObject(buffer)
    assert registered.handle() == buffer
    mapping = registered.map()
    assert mapping.size() == data.nbytes
    drv.memcpy_htod(mapping.device_ptr(), data[::-1].copy())
    mapping.unmap()
    with pytest.raises(drv.LogicError, match="has been unmapped"):
        mapping.unmap()
    registered.unregister()
    assert np.array_equal(np.frombuffer(egl.read_buffer(buffer, data.nbytes), np.uint32), data[::-1])
    egl.delete_buffer(buffer)


@pytest.mark.gpu
def test_make_context_makes_an_ordinary_current_context():
    with pytest.warns(DeprecationWarning, match="gl.init"):
        gl.init()
    context = gl.make_context(drv.Device(0))
    try:
        assert drv.Context.get_current() == context
        assert context.get_device() == drv.Device(0)
    finally:
        drv.Context.pop()
        context.detach()


def run_script(text, **environment):
    """Runs the Python program `text` in a process of its own, this one's import path and
    `environment` added to its environment: its stdout, after checking that it exited with 0
    and reported no failed release and no leak; a program that prints "skip: why" first skips
    the test."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), **environment)
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(text)], env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
    if result.stdout.startswith("skip:"):
        pytest.skip(result.stdout[len("skip:") :].strip())
    for sign in ("gpukit warning", "GpukitWarning", "leaked"):
        assert sign not in result.stderr, result.stderr
    return result.stdout


@pytest.mark.gpu
def test_autoinit_after_an_opengl_context():
    out = run_script(
        """
        import sys
        import egl_context
        try:
            egl = egl_context.open_context()
        except egl_context.Unavailable as why:
            print("skip:", why)
            sys.exit()
        import gpukit.driver as drv
        import gpukit.gl.autoinit as autoinit
        assert drv.Context.get_current() == autoinit.context
        assert autoinit.device == autoinit.context.get_device()
        if egl.is_nvidia:
            import gpukit.gl as gl
            buffer = egl.new_buffer(bytes(16))
            registered = gl.RegisteredBuffer(buffer)
            mapping = registered.map()
            print("mapped", mapping.device_ptr_and_size()[1])
        print("ok")  # left mapped and registered at exit: released quietly
        """
    )
    assert out.split()[-1] == "ok"


# PyCUDA's examples/from-wiki/gl_interop.py without a window: PyOpenGL makes a headless context
# through EGL (its first device that can, else the default display), the pixel buffers are
# BufferObjects, and the invert kernel runs through pycuda.gl and pycuda.gl.autoinit on gpukit.
GL_INTEROP_PROGRAM = r"""
import ctypes
import sys

import numpy

try:
    from OpenGL import EGL
    from OpenGL.EGL.EXT.device_enumeration import eglQueryDevicesEXT
    from OpenGL.EGL.EXT.platform_base import eglGetPlatformDisplayEXT
    from OpenGL.EGL.EXT.platform_device import EGL_PLATFORM_DEVICE_EXT
    from OpenGL.GL import (GL_ARRAY_BUFFER, GL_DYNAMIC_DRAW, GL_VENDOR, glBindBuffer, glBufferData, glDeleteBuffers,
                           glGenBuffers, glGetBufferSubData, glGetString)
except Exception as why:
    print("skip: PyOpenGL with EGL cannot be imported:", why)
    sys.exit()


def displays():
    devices, count = (EGL.EGLDeviceEXT * 8)(), EGL.EGLint()
    if eglQueryDevicesEXT(8, devices, ctypes.pointer(count)):
        for device in devices[: count.value]:
            yield eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, device, None)
    yield EGL.eglGetDisplay(EGL.EGL_DEFAULT_DISPLAY)


def make_current(display):
    major, minor = EGL.EGLint(), EGL.EGLint()
    EGL.eglInitialize(display, ctypes.pointer(major), ctypes.pointer(minor))
    config, count = EGL.EGLConfig(), EGL.EGLint()
    attributes = (EGL.EGLint * 5)(EGL.EGL_SURFACE_TYPE, EGL.EGL_PBUFFER_BIT, EGL.EGL_RENDERABLE_TYPE,
                                  EGL.EGL_OPENGL_BIT, EGL.EGL_NONE)
    EGL.eglChooseConfig(display, attributes, ctypes.pointer(config), 1, ctypes.pointer(count))
    surface = EGL.eglCreatePbufferSurface(display, config, (EGL.EGLint * 5)(EGL.EGL_WIDTH, 1, EGL.EGL_HEIGHT, 1,
                                                                          EGL.EGL_NONE))
    EGL.eglBindAPI(EGL.EGL_OPENGL_API)
    context = EGL.eglCreateContext(display, config, EGL.EGL_NO_CONTEXT, None)
    return bool(context) and bool(EGL.eglMakeCurrent(display, surface, surface, context))


failures = []
try:
    for display in displays():
        try:
            if make_current(display):
                break
            failures.append("eglMakeCurrent failed")
        except Exception as why:  # PyOpenGL raises EGLError for a failed call
            failures.append(str(why))
    else:
        print("skip: PyOpenGL cannot make an OpenGL context through EGL:", "; ".join(failures))
        sys.exit()
except Exception as why:
    print("skip: PyOpenGL cannot list EGL's displays:", why)
    sys.exit()
if b"NVIDIA" not in glGetString(GL_VENDOR):
    print("skip: PyOpenGL's context is not NVIDIA's:", glGetString(GL_VENDOR).decode())
    sys.exit()

import gpukit.pycuda_compat  # noqa: F401  (pycuda.* are gpukit's modules)
import pycuda.driver as cuda_driver
import pycuda.gl as cuda_gl
import pycuda.gl.autoinit  # noqa: F401
from pycuda.compiler import SourceModule

width, height = 64, 32
source = numpy.random.default_rng(4).integers(0, 256, (width * height, 4), dtype=numpy.uint8)
source_pbo, dest_pbo = glGenBuffers(1), glGenBuffers(1)
for pbo, data in ((source_pbo, source), (dest_pbo, numpy.zeros_like(source))):
    glBindBuffer(GL_ARRAY_BUFFER, pbo)
    glBufferData(GL_ARRAY_BUFFER, data, GL_DYNAMIC_DRAW)
    glBindBuffer(GL_ARRAY_BUFFER, 0)
pycuda_source_pbo = cuda_gl.BufferObject(int(source_pbo))
pycuda_dest_pbo = cuda_gl.BufferObject(int(dest_pbo))

invert = SourceModule('''
__global__ void invert(unsigned char *source, unsigned char *dest)
{
  int block_num        = blockIdx.x + blockIdx.y * gridDim.x;
  int thread_num       = threadIdx.y * blockDim.x + threadIdx.x;
  int threads_in_block = blockDim.x * blockDim.y;
  int idx              = 4 * (threads_in_block * block_num + thread_num);
  dest[idx  ] = 255 - source[idx  ];
  dest[idx+1] = 255 - source[idx+1];
  dest[idx+2] = 255 - source[idx+2];
}
''').get_function("invert")
invert.prepare("PP")

source_mapping = pycuda_source_pbo.map()
dest_mapping = pycuda_dest_pbo.map()
invert.prepared_call((width // 16, height // 16), (16, 16, 1), source_mapping.device_ptr(), dest_mapping.device_ptr())
cuda_driver.Context.synchronize()
source_mapping.unmap()
dest_mapping.unmap()
pycuda_source_pbo.unregister()

glBindBuffer(GL_ARRAY_BUFFER, dest_pbo)
result = numpy.frombuffer(glGetBufferSubData(GL_ARRAY_BUFFER, 0, source.nbytes), numpy.uint8).reshape(source.shape)
glBindBuffer(GL_ARRAY_BUFFER, 0)
assert numpy.array_equal(result[:, :3], 255 - source[:, :3]), "the inverted image differs"
assert not result[:, 3].any()
pycuda_dest_pbo.unregister()
glDeleteBuffers(2, [source_pbo, dest_pbo])
print("ok")
"""


@pytest.mark.gpu
def test_pycuda_gl_interop_program_through_the_drop_in():
    assert run_script(GL_INTEROP_PROGRAM, PYOPENGL_PLATFORM="egl").strip() == "ok"
