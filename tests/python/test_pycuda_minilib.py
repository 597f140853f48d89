"""A library built on PyCUDA (tests/python/pycuda_minilib), run unchanged: on gpukit through
gpukit.pycuda_compat, and on PyCUDA itself with GPUKIT_PYCUDA_ORIGINAL=1 where PyCUDA is
installed (the GPU check runs both sides; both must pass the same tests). Every result is
checked against numpy."""

import os

import numpy as np
import pytest

if os.environ.get("GPUKIT_PYCUDA_ORIGINAL") == "1":
    pytest.importorskip("pycuda.driver", reason="GPUKIT_PYCUDA_ORIGINAL=1 needs PyCUDA installed")
else:
    import gpukit.pycuda_compat  # noqa: F401  (import pycuda gives gpukit)

import pycuda.driver as cuda  # noqa: E402
import pycuda.gpuarray as gpuarray  # noqa: E402

import pycuda_minilib as minilib  # noqa: E402
from pycuda_minilib import kernels  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.fixture
def thread():
    cuda.init()
    t = minilib.Thread(0)
    with t:
        yield t
        t.synchronize()
    t.release()


def host_data(n, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).uniform(0.5, 2.0, n).astype(dtype)


def test_offset_views_and_their_arithmetic(thread):
    x = host_data(64)
    base = thread.to_device(x)
    a, b = base[4:36], base[20:52]
    assert type(a) is minilib.Array and a.offset == 16 and b.offset == 80 and a.thread is thread
    for result, want in (
        (kernels.elementwise_sum_of_views(thread, a, b), x[4:36] + x[20:52]),
        (a * np.float32(2), x[4:36] * 2),
        (3 - a, 3 - x[4:36]),
        (-b, -x[20:52]),
        (a.astype(np.float64), x[4:36].astype(np.float64)),
        (abs(-a), x[4:36]),
    ):
        assert type(result) is minilib.Array and result.thread is thread
        np.testing.assert_allclose(thread.from_device(result), want, rtol=1e-6)


def test_copies_of_strided_views(thread):
    x = host_data(90, np.float64, seed=1)
    base = thread.to_device(x)
    every_third = base[1::3]
    assert every_third.strides == (24,) and every_third.offset == 8
    copied = every_third.copy()
    assert type(copied) is minilib.Array and copied.strides == (8,)
    np.testing.assert_array_equal(thread.from_device(copied), x[1::3])
    np.testing.assert_array_equal(every_third.get(), x[1::3])


def test_record_and_zero_d_arguments(thread):
    x = host_data(1000, seed=2)
    scaler = kernels.Scaler(thread, np.float32)
    out = thread.array(x.shape, x.dtype)
    scaler.affine_into(out, thread.to_device(x), 1.5, -0.25)
    np.testing.assert_allclose(thread.from_device(out), x * np.float32(1.5) - np.float32(0.25), rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_prepared_call_with_numpy_scalars(thread, dtype):
    x = host_data(1001, dtype, seed=3)
    scaler = kernels.Scaler(thread, dtype)
    result = scaler.scaled_every(thread.to_device(x), 7, 0.5)
    np.testing.assert_allclose(thread.from_device(result), x[::7] * dtype(0.5), rtol=1e-6)


def test_computation_with_a_temporary_buffer(thread):
    x = host_data(5000, seed=4)
    normalized = kernels.Normalizer(thread, np.float32)(thread.to_device(x))
    assert type(normalized) is minilib.Array
    np.testing.assert_allclose(thread.from_device(normalized), x / x.astype(np.float64).sum(), rtol=1e-5)


def test_rebinding_memory_and_assigned_attributes(thread):
    first, second = host_data(32, seed=5), host_data(32, seed=6)
    a = thread.to_device(first)
    other = thread.to_device(second)
    a.rebind(other.base_data)
    np.testing.assert_array_equal(thread.from_device(a), second)
    a.nbytes = 4096
    assert a.nbytes == 4096 and a.size == 32
    a._grid, a._block = (3, 1), (32, 1, 1)
    assert kernels.launch_grid(a) == ((3, 1), (32, 1, 1))


def test_module_compiled_once_and_launched_later_on_another_stream(thread):
    x = host_data(300, seed=7)
    scaler = kernels.Scaler(thread, np.float32)
    device_x = thread.to_device(x)
    thread.synchronize()
    cuda.Context.pop()  # the library leaves its context between calls
    thread.context.push()
    second = cuda.Stream()
    out = thread.array(x.shape, x.dtype)
    n = np.array(x.size, np.int32)
    params = np.zeros((), scaler.params)
    params["scale"], params["shift"] = 2.0, 1.0
    scaler.affine(out, device_x, params[()], n, grid=scaler.grid(x.size), block=(kernels.BLOCK, 1, 1), stream=second)
    second.synchronize()
    np.testing.assert_allclose(out.get(), x * 2 + 1, rtol=1e-6)


def test_private_helpers_and_device_queries(thread):
    a = thread.array((4,), np.float32)
    assert kernels.common_dtype(a, thread.array((4,), np.int64)) == np.float64
    assert kernels.common_dtype(a, 2) == np.float32
    assert kernels.device_name(thread) == cuda.Device(0).name()
    assert kernels.total_memory(thread) == cuda.Device(0).total_memory()
    grid, block = kernels.launch_grid(a)
    assert grid == gpuarray.splay(4)[0] and block == gpuarray.splay(4)[1]
