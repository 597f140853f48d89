"""Programs written against PyCUDA's pycuda.gl and pycuda.sparse, run unchanged: on gpukit
through gpukit.pycuda_compat, and on PyCUDA itself with GPUKIT_PYCUDA_ORIGINAL=1 where PyCUDA
is installed (built with CUDA_ENABLE_GL for the OpenGL tests; scipy, pymetis and Cython for
PyCUDA's PacketedSpMV). The GPU check runs both sides and compares. Every result is checked
against numpy or scipy. OpenGL is headless through EGL (egl_context.py); the OpenGL tests skip,
with the reason, where no NVIDIA EGL context can be made."""

import os

import numpy as np
import pytest

if os.environ.get("GPUKIT_PYCUDA_ORIGINAL") == "1":
    pytest.importorskip("pycuda.driver", reason="GPUKIT_PYCUDA_ORIGINAL=1 needs PyCUDA installed")
else:
    import gpukit.pycuda_compat  # noqa: F401  (import pycuda gives gpukit)

import pycuda.driver as cuda  # noqa: E402
import pycuda.gpuarray as gpuarray  # noqa: E402
from pycuda.compiler import SourceModule  # noqa: E402

import egl_context  # noqa: E402

pytestmark = pytest.mark.gpu

KERNEL = """
__global__ void affine(unsigned int* p, unsigned int a, unsigned int b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = a * p[i] + b;
}
"""


@pytest.fixture(scope="module")
def context():
    cuda.init()
    ctx = cuda.Device(0).make_context()
    yield ctx
    ctx.pop()
    ctx.detach()


@pytest.fixture(scope="module")
def egl():
    opened = egl_context.open_or_skip()
    if not opened.is_nvidia:
        opened.close()
        pytest.skip("OpenGL does not render on NVIDIA's driver here: CUDA cannot register its objects")
    yield opened
    opened.close()


@pytest.fixture
def gl(egl, context):
    """pycuda.gl, with the EGL context current (its import fails where PyCUDA lacks GL)."""
    egl.make_current()
    import pycuda.gl

    return pycuda.gl


def affine(pointer, n):
    SourceModule(KERNEL).get_function("affine")(
        np.uintp(pointer), np.uint32(3), np.uint32(7), np.int32(n), block=(128, 1, 1), grid=((n + 127) // 128, 1)
    )


def test_a_kernel_rewrites_an_opengl_buffer(egl, gl):
    data = np.random.default_rng(1).integers(0, 1 << 20, 1000, dtype=np.uint32)
    buffer = egl.new_buffer(data.tobytes())
    registered = gl.RegisteredBuffer(int(buffer))
    mapping = registered.map()
    pointer, size = mapping.device_ptr_and_size()
    assert size == data.nbytes
    affine(pointer, data.size)
    mapping.unmap()
    registered.unregister()
    back = np.frombuffer(egl.read_buffer(buffer, data.nbytes), np.uint32)
    assert np.array_equal(back, 3 * data + 7)
    egl.delete_buffer(buffer)


def test_the_deprecated_buffer_object(egl, gl):
    data = np.arange(300, dtype=np.uint32)
    buffer = egl.new_buffer(data.tobytes())
    buffer_object = gl.BufferObject(int(buffer))
    mapping = buffer_object.map()
    affine(mapping.device_ptr(), data.size)
    assert mapping.size() == data.nbytes
    mapping.unmap()
    buffer_object.unregister()
    assert np.array_equal(np.frombuffer(egl.read_buffer(buffer, data.nbytes), np.uint32), 3 * data + 7)
    egl.delete_buffer(buffer)


def test_a_mapped_texture_is_an_array_that_memcpy2d_copies(egl, gl):
    rng = np.random.default_rng(2)
    width, height = 37, 21
    image = rng.integers(0, 256, (height, width, 4), dtype=np.uint8)
    texture = egl.new_texture_2d(width, height, egl_context.GL_RGBA8, egl_context.GL_RGBA, egl_context.GL_UNSIGNED_BYTE)
    egl.write_texture_2d(texture, width, height, egl_context.GL_RGBA, egl_context.GL_UNSIGNED_BYTE, image.tobytes())
    registered = gl.RegisteredImage(int(texture), egl_context.GL_TEXTURE_2D)
    mapping = registered.map()
    array = mapping.array(0, 0)
    assert isinstance(array, cuda.Array)
    descriptor = array.get_descriptor()
    assert (descriptor.width, descriptor.height, descriptor.num_channels) == (width, height, 4)

    box = np.zeros((7, 17, 4), np.uint8)  # rows 5..11, texels 3..19
    copy = cuda.Memcpy2D()
    copy.set_src_array(array)
    copy.src_x_in_bytes, copy.src_y = 3 * 4, 5
    copy.set_dst_host(box)
    copy.width_in_bytes, copy.height = 17 * 4, 7
    copy(aligned=True)
    assert np.array_equal(box, image[5:12, 3:20])

    patch = rng.integers(0, 256, (4, 9, 4), dtype=np.uint8)  # into rows 2..5, texels 10..18
    copy = cuda.Memcpy2D()
    copy.set_src_host(patch)
    copy.set_dst_array(array)
    copy.dst_x_in_bytes, copy.dst_y = 10 * 4, 2
    copy.width_in_bytes, copy.height = 9 * 4, 4
    copy(aligned=True)
    mapping.unmap()
    registered.unregister()
    expected = image.copy()
    expected[2:6, 10:19] = patch
    back = egl.read_texture_2d(texture, egl_context.GL_RGBA, egl_context.GL_UNSIGNED_BYTE, image.nbytes)
    assert np.array_equal(np.frombuffer(back, np.uint8).reshape(image.shape), expected)
    egl.delete_texture(texture)


def test_an_opengl_context_from_pycuda_gl(egl, context):
    egl.make_current()
    import pycuda.gl

    gl_context = pycuda.gl.make_context(cuda.Device(0))
    try:
        data = np.arange(64, dtype=np.uint32)
        buffer = egl.new_buffer(data.tobytes())
        registered = pycuda.gl.RegisteredBuffer(int(buffer))
        mapping = registered.map()
        affine(mapping.device_ptr_and_size()[0], data.size)
        mapping.unmap()
        registered.unregister()
        assert np.array_equal(np.frombuffer(egl.read_buffer(buffer, data.nbytes), np.uint32), 3 * data + 7)
        egl.delete_buffer(buffer)
    finally:
        gl_context.pop()
        gl_context.detach()


def laplacian(side, dtype):
    """The 5-point Laplacian of a side x side grid plus 0.05 I: symmetric positive definite."""
    sparse = pytest.importorskip("scipy.sparse")
    one_d = sparse.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(side, side))
    eye = sparse.identity(side)
    return (
        (sparse.kron(one_d, eye) + sparse.kron(eye, one_d) + 0.05 * sparse.identity(side * side)).tocsr().astype(dtype)
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_coordinate_spmv(context, dtype):
    from pycuda.sparse.coordinate import CoordinateSpMV

    matrix = laplacian(23, dtype)
    x = np.random.default_rng(3).standard_normal(matrix.shape[1]).astype(dtype)
    spmv = CoordinateSpMV(matrix, dtype)
    y = spmv(gpuarray.to_gpu(x)).get()
    np.testing.assert_allclose(y, matrix @ x, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_sparse_solve_program(context, dtype):
    """PyCUDA's examples/from-wiki/sparse_solve.py, on a 2-D Laplacian instead of a file."""
    from pycuda.sparse.cg import solve_pkt_with_cg
    from pycuda.sparse.operator import DiagonalPreconditioner
    from pycuda.sparse.packeted import PacketedSpMV
    from pycuda.tools import DeviceMemoryPool, PageLockedMemoryPool

    matrix = laplacian(40, dtype)
    dev_pool, pagelocked_pool = DeviceMemoryPool(), PageLockedMemoryPool()
    spmv = PacketedSpMV(matrix, True, matrix.dtype)
    precon = DiagonalPreconditioner(
        spmv.permute(gpuarray.to_gpu((1 / matrix.diagonal()).astype(dtype), allocator=dev_pool.allocate))
    )
    rhs = np.random.default_rng(4).random(spmv.shape[0]).astype(spmv.dtype)
    x = spmv.unpermute(spmv(spmv.permute(gpuarray.to_gpu(rhs)))).get()
    np.testing.assert_allclose(x, matrix @ rhs, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-5)
    result, it_count, res_count = solve_pkt_with_cg(
        spmv,
        gpuarray.to_gpu(rhs, dev_pool.allocate),
        precon,
        tol=1e-7 if dtype == np.float64 else 5e-5,
        pagelocked_allocator=pagelocked_pool.allocate,
    )
    solution = result.get()
    assert it_count > 0 and res_count >= 1
    assert np.linalg.norm(matrix @ solution - rhs) / np.linalg.norm(rhs) < (1e-6 if dtype == np.float64 else 1e-3)
    pagelocked_pool.stop_holding()
    dev_pool.stop_holding()
