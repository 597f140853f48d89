"""gpukit.cuda, numba.cuda's memory API: CPU checks of views and argument errors on arrays
wrapped from a fake exporter (no memory is touched), GPU checks of every copy against
numpy on random data, contiguous and strided, odd sizes, plain and structured dtypes."""

import numpy as np
import pytest

import gpukit.cuda as cuda
import gpukit.driver as drv
import gpukit.gpuarray as gpuarray

RECORD = np.dtype([("id", np.int32), ("mass", np.float64), ("tag", "S3")])


class FakeExport:
    """Exports an address nothing reads: enough for everything that only builds views."""

    def __init__(self, shape, dtype, strides=None, address=0x7F0000000000):
        dtype = np.dtype(dtype)
        self.__cuda_array_interface__ = {
            "shape": shape,
            "typestr": dtype.str,
            "data": (address, False),
            "version": 3,
            "strides": strides,
        }
        if dtype.names is not None:
            self.__cuda_array_interface__["descr"] = dtype.descr


def fake(shape, dtype=np.float32, strides=None):
    return cuda.as_cuda_array(FakeExport(shape, dtype, strides))


def random_array(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype == RECORD:
        out = np.empty(shape, RECORD)
        out["id"] = rng.integers(-1000, 1000, shape)
        out["mass"] = rng.standard_normal(shape)
        out["tag"] = rng.choice([b"abc", b"xy", b"q"], shape)
        return out
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


# ---- CPU


def test_wrapped_array_describes_the_export():
    d = fake((5, 7), np.float32)
    assert isinstance(d, cuda.DeviceNDArray)
    assert (d.shape, d.strides, d.dtype, d.size, d.nbytes, d.ndim, len(d)) == (
        (5, 7),
        (28, 4),
        np.float32,
        35,
        140,
        2,
        5,
    )
    assert d.is_c_contiguous() and not d.is_f_contiguous()
    assert d.__cuda_array_interface__["data"][0] == 0x7F0000000000
    assert cuda.is_cuda_array(d) and not cuda.is_cuda_array(np.ones(3))


def test_views_keep_the_class_and_follow_numpy():
    host = np.empty((6, 10), np.float64)
    d = fake(host.shape, host.dtype)
    for index in [(slice(1, 5), slice(None, None, 3)), (2,), (slice(None), 4), (Ellipsis, slice(7, 2, -2))]:
        view = d[index]
        assert isinstance(view, cuda.DeviceNDArray)
        assert view.shape == host[index].shape and view.strides == host[index].strides
        assert view.ptr - d.ptr == host[index].__array_interface__["data"][0] - host.__array_interface__["data"][0]
    assert d.reshape(3, 20).shape == (3, 20)
    assert d.T.reshape((20, 3), order="F").strides == host.T.reshape((20, 3), order="F").strides
    assert d.ravel().shape == (60,)
    assert d.T.is_f_contiguous()


def test_reshape_that_needs_a_copy_is_refused():
    d = fake((6, 10), np.float32)[:, :5]
    with pytest.raises(ValueError, match="only reshaped as a view"):
        d.reshape(30)


def test_split_gives_equal_sections_and_a_shorter_last():
    d = fake((10,), np.int16)
    parts = d.split(4)
    assert [p.shape for p in parts] == [(4,), (4,), (2,)]
    assert [p.ptr - d.ptr for p in parts] == [0, 8, 16]
    with pytest.raises(ValueError, match="only 1-d"):
        fake((2, 2)).split(1)


def test_records_travel_with_their_fields():
    d = fake((4,), RECORD)
    assert d.dtype == RECORD
    assert gpuarray.asarray(d).dtype == RECORD
    record = d[2]
    assert isinstance(record, cuda.DeviceRecord) and record.shape == () and record.dtype == RECORD


def test_copy_errors_name_the_problem():
    d = fake((4, 5), np.float32)
    with pytest.raises(ValueError, match=r"shape \(5, 4\) differs from the device array's \(4, 5\)"):
        d.copy_to_device(np.ones((5, 4), np.float32))
    with pytest.raises(TypeError, match="dtype float64 differs"):
        d.copy_to_device(np.ones((4, 5)))
    with pytest.raises(ValueError, match="must be contiguous"):
        d.copy_to_host(np.empty((4, 10), np.float32)[:, ::2])
    with pytest.raises(ValueError, match="shape"):
        d.copy_to_host(np.empty((4, 4), np.float32))
    with pytest.raises(TypeError, match="stream must be 0, a gpukit.driver.Stream"):
        d.copy_to_host(stream=1)


def test_host_memory_context_managers_refuse_non_arrays():
    with pytest.raises(TypeError, match="expected numpy arrays"):
        with cuda.pinned([1, 2, 3]):
            pass


def test_device_array_layouts_follow_numpys_keep_order():
    # device_array_like's layout: numpy's empty_like(order="K") for every permutation of the
    # axes, strided, reversed and broadcast (what the GPU tests below allocate).
    import itertools

    base = np.empty((4, 5, 6), np.float32)
    for axes in itertools.permutations(range(3)):
        for view in (
            base.transpose(axes),
            base.transpose(axes)[::2, ::-1],
            base.transpose(axes)[:, :1],
            np.broadcast_to(base.transpose(axes)[:, :1], base.transpose(axes).shape),
        ):
            layout = cuda.Layout(view.shape, view.strides, 4, 0).contiguous_like(4)
            assert tuple(layout.strides) == np.empty_like(view, order="K").strides, (view.shape, view.strides)


def test_device_array_takes_numbas_writeback_and_gpu_data():
    address = 0x7F0000000000
    host = np.zeros((4, 5), np.float32)
    d = cuda.DeviceNDArray((4, 5), None, np.float32, 0, host, address)  # numba's argument order
    assert d.ptr == address and d.gpu_data == address
    view = d[1:, ::2]
    assert isinstance(view, cuda.DeviceNDArray)
    assert int(view.gpu_data) == view.ptr == address + 20
    assert int(d[::-1].gpu_data) == d[::-1].ptr == address + 60  # element 0 of the reversed view
    # An array made over a view's gpu_data starts where the view does.
    again = cuda.DeviceNDArray((3,), None, np.float32, gpu_data=view.gpu_data)
    assert again.ptr == view.ptr
    record = cuda.DeviceRecord(RECORD, gpu_data=address)
    assert record.ptr == address and record.gpu_data == address
    with pytest.raises(TypeError, match="writeback must be a numpy.ndarray"):
        cuda.DeviceNDArray((2,), None, np.float32, writeback=[1.0, 2.0], gpu_data=address)
    with pytest.warns(DeprecationWarning, match="to_host"), pytest.raises(ValueError, match="no associated writeback"):
        view.to_host()


# ---- GPU

gpu = pytest.mark.gpu


@gpu
@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int64, np.float32, np.float64, np.bool_, RECORD])
@pytest.mark.parametrize("shape", [(1,), (1001,), (17, 33), (3, 5, 7)])
def test_round_trip(pool_ctx, dtype, shape):
    host = random_array(np.random.default_rng(1), shape, dtype)
    d = cuda.to_device(host)
    assert isinstance(d, cuda.DeviceNDArray) and d.shape == host.shape and d.dtype == host.dtype
    np.testing.assert_array_equal(d.copy_to_host(), host)
    out = np.empty_like(host)
    assert d.copy_to_host(out) is out
    np.testing.assert_array_equal(out, host)


@gpu
def test_fortran_order_is_kept(pool_ctx):
    host = np.asfortranarray(random_array(np.random.default_rng(2), (9, 13), np.float32))
    d = cuda.to_device(host)
    assert d.is_f_contiguous() and not d.is_c_contiguous()
    np.testing.assert_array_equal(d.copy_to_host(), host)
    like = cuda.device_array_like(host)
    assert like.strides == host.strides


@gpu
def test_strided_views_copy_both_ways(pool_ctx):
    rng = np.random.default_rng(3)
    host = random_array(rng, (21, 34), np.float64)
    d = cuda.to_device(host)
    index = (slice(1, 20, 3), slice(33, 0, -2))
    np.testing.assert_array_equal(d[index].copy_to_host(), host[index])
    patch = random_array(rng, host[index].shape, np.float64)
    d[index].copy_to_device(patch)
    host[index] = patch
    np.testing.assert_array_equal(d.copy_to_host(), host)


@gpu
def test_device_to_device_copies(pool_ctx):
    rng = np.random.default_rng(4)
    a, b = random_array(rng, (301,), np.int32), random_array(rng, (301,), np.int32)
    da, db = cuda.to_device(a), cuda.to_device(b)
    da.copy_to_device(db)
    np.testing.assert_array_equal(da.copy_to_host(), b)
    target = cuda.device_array((2, 301), np.int32)
    target[0].copy_to_device(da)
    target[1] = cuda.to_device(a)
    np.testing.assert_array_equal(target.copy_to_host(), np.stack([b, a]))


@gpu
def test_setitem_and_getitem(pool_ctx):
    rng = np.random.default_rng(5)
    host = random_array(rng, (40,), np.float32)
    d = cuda.to_device(host)
    d[3:9] = host[10:16]
    d[20] = 7.5
    host[3:9] = host[10:16]
    host[20] = 7.5
    np.testing.assert_array_equal(d.copy_to_host(), host)
    assert d[20] == np.float32(7.5) and isinstance(d[21], np.float32)


@gpu
def test_explicit_strides_allocate_the_whole_extent(pool_ctx):
    d = cuda.device_array((4, 3), np.float32, strides=(48, 8))
    assert d.strides == (48, 8)
    host = random_array(np.random.default_rng(6), (4, 3), np.float32)
    d.copy_to_device(host)
    np.testing.assert_array_equal(d.copy_to_host(), host)


@gpu
def test_records(pool_ctx):
    host = random_array(np.random.default_rng(7), (5,), RECORD)
    record = cuda.to_device(host[3])
    assert isinstance(record, cuda.DeviceRecord)
    value = record.copy_to_host()
    assert value["id"] == host[3]["id"] and value["mass"] == host[3]["mass"] and value["tag"] == host[3]["tag"]
    d = cuda.to_device(host)
    assert d[1].copy_to_host()["mass"] == host[1]["mass"]


@gpu
def test_copies_on_a_stream(pool_ctx):
    stream = drv.Stream()
    host = cuda.pinned_array((513, 3), np.float32)
    host[...] = random_array(np.random.default_rng(8), host.shape, np.float32)
    d = cuda.to_device(host, stream=stream)
    out = cuda.pinned_array(host.shape, np.float32)
    d.copy_to_host(out, stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(out, host)


@gpu
def test_to_device_into_an_existing_array_and_without_copy(pool_ctx):
    host = random_array(np.random.default_rng(9), (33,), np.uint8)
    target = cuda.device_array(33, np.uint8)
    assert cuda.to_device(host, to=target) is target
    np.testing.assert_array_equal(target.copy_to_host(), host)
    assert cuda.to_device(target) is target
    empty = cuda.to_device(host, copy=False)
    assert empty.shape == host.shape and empty.ptr != target.ptr


@gpu
def test_pinned_array_is_page_locked(pool_ctx):
    host = cuda.pinned_array((7, 11), np.int16, order="F")
    assert host.flags.f_contiguous
    assert isinstance(host.base, drv.PagelockedHostAllocation)


@gpu
def test_mapped_array_is_written_by_a_kernel(pool_ctx):
    host = cuda.mapped_array((1000,), np.float32)
    host[...] = random_array(np.random.default_rng(10), host.shape, np.float32)
    expected = 3 * host
    triple = gpuarray.ElementwiseKernel("float *x", "x[i] = 3 * x[i]", "triple")
    triple(host)
    pool_ctx.synchronize()
    np.testing.assert_array_equal(np.asarray(host), expected)
    view = host[100:200]
    assert view.__cuda_array_interface__["data"][0] == host.__cuda_array_interface__["data"][0] + 400
    np.testing.assert_array_equal(view.copy_to_host(), expected[100:200])
    with pytest.raises(ValueError, match="not mapped"):
        (host + 1).__cuda_array_interface__


@gpu
def test_mapped_context_maps_host_memory(pool_ctx):
    host = drv.aligned_empty(4096 // 4, np.float32)
    host[...] = random_array(np.random.default_rng(11), host.shape, np.float32)
    expected = host + 1
    with cuda.mapped(host) as d:
        assert isinstance(d, cuda.DeviceNDArray)
        gpuarray.ElementwiseKernel("float *x", "x[i] = x[i] + 1", "inc")(d)
        pool_ctx.synchronize()
    np.testing.assert_array_equal(host, expected)


@gpu
def test_pinned_context_registers_and_releases(pool_ctx):
    host = drv.aligned_empty(2 * 4096, np.uint8)
    host[...] = random_array(np.random.default_rng(12), host.shape, np.uint8)
    with cuda.pinned(host):
        d = cuda.to_device(host, stream=drv.Stream())
    np.testing.assert_array_equal(d.copy_to_host(), host)
    with cuda.pinned(host):  # registering again works: the first block released it
        pass


@gpu
def test_device_array_like_keeps_the_stride_order(pool_ctx):
    base = random_array(np.random.default_rng(13), (6, 7, 8), np.int16)
    for host in (base, np.asfortranarray(base), base.transpose(1, 2, 0), base[::2, 1:, ::-3], base[:, 3]):
        d = cuda.device_array_like(host)
        assert d.shape == host.shape and d.dtype == host.dtype
        assert d.strides == np.empty_like(host, order="K").strides, host.strides
        assert cuda.device_array_like(d).strides == d.strides
        copied = cuda.to_device(host)  # device_array_like, then the copy
        assert copied.strides == d.strides
        np.testing.assert_array_equal(copied.copy_to_host(), host)
    device = cuda.to_device(base).transpose(2, 0, 1)[::-1]
    like = cuda.device_array_like(device)
    assert like.strides == np.empty_like(base.transpose(2, 0, 1)[::-1], order="K").strides


@gpu
def test_to_host_copies_into_the_writeback_array(pool_ctx):
    host = random_array(np.random.default_rng(14), (33, 5), np.float64)
    expected = 2 * host
    d = cuda.to_device(host)
    d *= 2
    with pytest.warns(DeprecationWarning, match="to_host"):
        d.to_host()
    np.testing.assert_array_equal(host, expected)
    target = np.zeros(7, np.int32)
    e = cuda.DeviceNDArray((7,), None, np.int32, writeback=target)
    e.copy_to_device(np.arange(7, dtype=np.int32))
    stream = drv.Stream()
    with pytest.warns(DeprecationWarning):
        e.to_host(stream)
    stream.synchronize()
    np.testing.assert_array_equal(target, np.arange(7))
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="no associated writeback"):
        cuda.device_array(3).to_host()


@gpu
def test_gpu_data_addresses_the_arrays_data(pool_ctx):
    host = random_array(np.random.default_rng(15), (100,), np.float32)
    d = cuda.to_device(host)
    assert d.gpu_data is d.gpudata
    tail = cuda.DeviceNDArray((97,), None, np.float32, gpu_data=d[3:].gpu_data)
    np.testing.assert_array_equal(tail.copy_to_host(), host[3:])
    assert int(d[::-1].gpu_data) == d[::-1].ptr


@gpu
def test_pinned_takes_any_array(pool_ctx):
    rng = np.random.default_rng(16)
    shared = random_array(rng, (1001,), np.float64)  # not page-aligned; its slices share its pages
    strided = random_array(rng, (40, 30), np.int32)[::3, ::-2]
    small = random_array(rng, (3,), np.uint8)
    locked = cuda.pinned_array((5,), np.float32)  # page-locked already: left alone
    stream = drv.Stream()
    with cuda.pinned(shared, shared[10:20], strided, small, locked, np.empty(0)):
        copies = [cuda.to_device(a, stream=stream) for a in (shared, shared[10:20], strided, small)]
        stream.synchronize()
    for d, host in zip(copies, (shared, shared[10:20], strided, small)):
        np.testing.assert_array_equal(d.copy_to_host(), host)
    with cuda.pinned(shared, small):  # registered again: the first block released them
        pass


@gpu
def test_mapped_takes_any_array(pool_ctx):
    rng = np.random.default_rng(17)
    host = random_array(rng, (1001,), np.float32)
    other = random_array(rng, (12, 9), np.float64)
    expected_host, expected_other = host.copy(), other.copy()
    expected_host[::-1] *= 3
    expected_other[1::2, ::-3] += 1
    with cuda.mapped(host[::-1], other[1::2, ::-3], np.empty(0)) as (reversed_view, strided_view, empty):
        assert reversed_view.shape == (1001,) and reversed_view.strides == (-4,)
        assert strided_view.shape == other[1::2, ::-3].shape and empty.size == 0
        reversed_view *= 3
        strided_view += 1
        pool_ctx.synchronize()
    np.testing.assert_array_equal(host, expected_host)
    np.testing.assert_array_equal(other, expected_other)
    with cuda.mapped(host[5:9]) as d:  # one array: the DeviceNDArray itself
        np.testing.assert_array_equal(d.copy_to_host(), host[5:9])
