"""PyOpenCL's ReductionKernel and subset reductions (gpukit.cl.reduction and gpukit.cl.array;
pyopencl's with GPUKIT_PYOPENCL_ORIGINAL=1) against numpy: maps that gather through an index
array, index ranges and slices, scalars before the arrays, offsets into the arrays, out= and
return_event=. These run on PoCL in CI."""

import numpy as np
import pytest

from cl_either import ORIGINAL, cl, ctx, needs_device, queue  # noqa: F401  (ctx, queue: fixtures)

if ORIGINAL:
    import pyopencl.array as cla
    from pyopencl.reduction import ReductionKernel
else:
    import gpukit.cl.array as cla
    from gpukit.cl.reduction import ReductionKernel

pytestmark = [pytest.mark.opencl, needs_device]


def test_a_dot_product_after_a_scalar_and_over_sizes(queue):
    knl = ReductionKernel(
        queue.context,
        np.float32,
        neutral="0",
        reduce_expr="a+b",
        map_expr="z*x[i]*y[i]",
        arguments="float z, __global const float *x, __global const float *y",
    )
    for n in [1, 7, 1000, 100003]:
        a = (np.arange(n) % 17).astype(np.float32)
        b = (np.arange(n) % 5).astype(np.float32)
        got = knl(np.float32(0.5), cla.to_device(queue, a), cla.to_device(queue, b)).get()
        assert got == np.float32(0.5 * np.dot(a.astype(np.float64), b)), n


def test_a_map_of_the_index_alone_over_a_range(queue):
    knl = ReductionKernel(queue.context, np.int64, neutral="0", reduce_expr="a+b", map_expr="i", arguments=[])
    assert knl(range=slice(2000), queue=queue).get() == 2000 * 1999 // 2
    assert knl(range=slice(10, 2000, 3), queue=queue).get() == sum(range(10, 2000, 3))


def test_a_gather_with_a_slice_and_an_offset_view(queue):
    host = np.random.default_rng(0).integers(-1000, 1000, 5000).astype(np.int32)
    lookup = np.random.default_rng(1).integers(0, 4000, 3000).astype(np.int32)
    knl = ReductionKernel(
        queue.context,
        np.int32,
        neutral="-2147483647-1",
        reduce_expr="max(a, b)",
        map_expr="x[idx[i]]",
        arguments="__global const int *idx, __global const int *x",
    )
    x = cla.to_device(queue, host)
    idx = cla.to_device(queue, lookup)
    assert knl(idx, x).get() == host[lookup].max()
    assert knl(idx, x, slice=slice(100, 2000)).get() == host[lookup[100:2000]].max()
    if not ORIGINAL:  # PyOpenCL passes an Array declared without offset from its Buffer's start
        assert knl(idx, x[1000:]).get() == host[1000:][lookup].max()


def test_out_and_return_event(queue):
    knl = ReductionKernel(
        queue.context,
        np.float64,
        neutral="0",
        reduce_expr="a+b",
        map_expr="x[i]*x[i]",
        arguments="__global const double *x",
    )
    if "cl_khr_fp64" not in queue.device.extensions:
        pytest.skip("the device has no double precision")
    host = np.linspace(-1, 1, 999)
    out = cla.empty(queue, (), np.float64)
    result, event = knl(cla.to_device(queue, host), out=out, return_event=True)
    event.wait()
    assert result is out
    np.testing.assert_allclose(out.get(), (host * host).sum(), rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_subset_min_max_and_dot(queue, dtype):
    rng = np.random.default_rng(2)
    host = (rng.standard_normal(20000) * 100).astype(dtype)
    other = (rng.standard_normal(20000) * 10).astype(dtype)
    subset = rng.integers(0, 20000, 4001).astype(np.int32)
    a, b, s = cla.to_device(queue, host), cla.to_device(queue, other), cla.to_device(queue, subset)
    assert cla.subset_min(s, a).get() == host[subset].min()
    assert cla.subset_max(s, a).get() == host[subset].max()
    assert cla.subset_max(s, a, slice=slice(5, 300)).get() == host[subset[5:300]].max()
    expected = np.dot(host[subset].astype(np.float64), other[subset])
    np.testing.assert_allclose(cla.subset_dot(s, a, b).get(), expected, rtol=1e-4)


def test_bad_calls_are_refused(queue):
    knl = ReductionKernel(queue.context, np.float32, "0", "a+b", "x[i]", "__global const float *x")
    with pytest.raises((TypeError, ValueError)):  # PyOpenCL's zip(strict=True) raises ValueError
        knl()
    with pytest.raises(TypeError):
        knl(cla.zeros(queue, 10, np.float32), no_such_keyword=1)
