"""PyOpenCL's gathers and scatters (take, multi_take, multi_put, multi_take_put, fancy indexing
of 1-d Arrays; pyopencl's with GPUKIT_PYOPENCL_ORIGINAL=1) against numpy: unsigned and signed
indices, offsets into the arrays, several arrays per call. These run on PoCL in CI."""

import numpy as np
import pytest

from cl_either import ORIGINAL, cl, ctx, needs_device, queue  # noqa: F401  (ctx, queue: fixtures)

if ORIGINAL:
    import pyopencl.array as cla
else:
    import gpukit.cl.array as cla

pytestmark = [pytest.mark.opencl, needs_device]


@pytest.mark.parametrize("dtype", [np.int8, np.float32, np.float64, np.complex64])
@pytest.mark.parametrize("index_dtype", [np.uint32, np.int64])
def test_take_and_fancy_indexing(queue, dtype, index_dtype):
    if np.dtype(dtype) in (np.dtype(np.float64),) and "cl_khr_fp64" not in queue.device.extensions:
        pytest.skip("the device has no double precision")
    rng = np.random.default_rng(0)
    host = (rng.standard_normal(3001) * 100).astype(dtype)
    indices = rng.integers(0, 3001, 1234).astype(index_dtype)
    a, idx = cla.to_device(queue, host), cla.to_device(queue, indices)
    np.testing.assert_array_equal(cla.take(a, idx).get(), host[indices])
    np.testing.assert_array_equal(a[idx].get(), host[indices])
    part = a[1000:]  # an offset into the Buffer
    small = cla.to_device(queue, (indices % 2001).astype(index_dtype))
    np.testing.assert_array_equal(cla.take(part, small).get(), host[1000:][indices % 2001])


def test_multi_take_put_and_multi_put(queue):
    rng = np.random.default_rng(1)
    sources = [rng.standard_normal(64).astype(np.float32) for _ in range(3)]
    dest = np.array([0, 1, 2, 3, 32, 33, 34, 35], dtype=np.uint32)
    read = np.array([7, 6, 5, 4, 3, 2, 1, 0], dtype=np.uint32)
    arrays = [cla.to_device(queue, s) for s in sources]
    out = cla.multi_take_put(
        arrays, cla.to_device(queue, dest), cla.to_device(queue, read), dest_shape=(40,), src_offsets=[0, 8, 16]
    )
    for k, o in enumerate(out):
        got = o.get()
        np.testing.assert_array_equal(got[dest], sources[k][read + 8 * k])
    put = cla.multi_put(
        [a[:8] for a in arrays], cla.to_device(queue, dest), out=[cla.zeros(queue, 40, np.float32) for _ in arrays]
    )
    for k, o in enumerate(put):
        expected = np.zeros(40, np.float32)
        expected[dest] = sources[k][:8]
        np.testing.assert_array_equal(o.get(), expected)


@pytest.mark.skipif(ORIGINAL, reason="PyOpenCL's multi_take cannot make its outputs (it passes a context to Array)")
def test_multi_take_and_scatter_assignment(queue):
    host = np.arange(100, dtype=np.int32)
    indices = np.array([5, 99, 0, 42], dtype=np.int32)
    a, idx = cla.to_device(queue, host), cla.to_device(queue, indices)
    taken = cla.multi_take([a, a + 1], idx)
    np.testing.assert_array_equal(taken[0].get(), host[indices])
    np.testing.assert_array_equal(taken[1].get(), host[indices] + 1)
    a[idx] = cla.to_device(queue, np.array([-1, -2, -3, -4], dtype=np.int32))
    expected = host.copy()
    expected[indices] = [-1, -2, -3, -4]
    np.testing.assert_array_equal(a.get(), expected)
    with pytest.raises(TypeError):
        a[cla.zeros(queue, 3, np.float32)]
