"""DLPack and __cuda_array_interface__ exchange: CPU checks of the capsule round trip in
C++ (fake addresses, nothing is read) and of errors, GPU checks against CuPy and PyTorch
in both directions (same memory, same layout, writes visible both ways)."""

import ctypes
import gc
import weakref

import numpy as np
import pytest

from gpukit import _gpukit
import gpukit.cuda as cuda
import gpukit.gpuarray as gpuarray


class Owner:
    pass


# ---- CPU


def capsule_name(capsule):
    """The name a capsule carries ('dltensor', 'dltensor_versioned', 'used_...')."""
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    return get_name(capsule).decode()


def exported(owner, address=0x7F0000001000, shape=(3, 4), strides=(1, 3)):
    """A nanobind tensor over a fake device address (nothing is read) holding `owner`."""
    return _gpukit._dlpack_export(address, list(shape), list(strides), 2, 32, 2, 0, owner)


@pytest.mark.parametrize(
    "max_version, name",
    [
        (None, "dltensor"),
        ((0, 8), "dltensor"),
        ((1, 0), "dltensor_versioned"),
        ((1, 3), "dltensor_versioned"),
        ((2, 0), "dltensor_versioned"),
    ],
)
def test_the_capsule_follows_max_version(max_version, name):
    capsule = exported(Owner()).__dlpack__(max_version=max_version)
    assert capsule_name(capsule) == name
    address, shape, strides, dtype, device, tensor = _gpukit._dlpack_import(capsule)
    assert (address, shape, strides, dtype, device) == (0x7F0000001000, [3, 4], [1, 3], (2, 32, 1), (2, 0))
    assert capsule_name(capsule) == "used_" + name


def test_capsule_round_trip_keeps_the_owner_alive_until_the_import_goes():
    owner = Owner()
    alive = weakref.ref(owner)
    tensor = exported(owner)
    capsule = tensor.__dlpack__(max_version=(1, 0))
    del owner, tensor
    gc.collect()
    assert alive() is not None  # the capsule holds it
    imported = _gpukit._dlpack_import(capsule)[-1]
    del capsule
    gc.collect()
    assert alive() is not None  # consumed: the import holds it now
    del imported
    gc.collect()
    assert alive() is None


def test_unconsumed_capsule_releases_its_owner():
    owner = Owner()
    alive = weakref.ref(owner)
    capsule = exported(owner).__dlpack__()
    del owner, capsule
    gc.collect()
    assert alive() is None


def test_a_capsule_is_consumed_once():
    capsule = exported(Owner()).__dlpack__(max_version=(1, 0))
    _gpukit._dlpack_import(capsule)
    with pytest.raises(TypeError, match="unconsumed DLPack capsule"):
        _gpukit._dlpack_import(capsule)
    with pytest.raises(TypeError, match="expected a DLPack capsule"):
        _gpukit._dlpack_import(b"not a capsule")


def test_zero_dimensional_and_empty_tensors_round_trip():
    for shape, strides in (((), ()), ((0, 5), (5, 1))):
        capsule = exported(Owner(), 0, shape, strides).__dlpack__(max_version=(1, 0))
        address, got_shape, got_strides, *_ = _gpukit._dlpack_import(capsule)
        assert (address, tuple(got_shape), tuple(got_strides)) == (0, shape, strides)


def test_read_only_tensors_are_refused_with_the_reason():
    read_only = np.arange(4.0)
    read_only.flags.writeable = False
    with pytest.raises(BufferError, match="read-only; gpukit arrays are always writable"):
        _gpukit._dlpack_import(read_only.__dlpack__(max_version=(1, 0)))


def test_cpu_tensors_are_refused_clearly():
    with pytest.raises(TypeError, match="ndarray is on the CPU; gpukit arrays need CUDA device memory"):
        gpuarray.asarray(np.ones(4))
    with pytest.raises(TypeError, match="on the CPU"):
        cuda.as_cuda_array(np.ones(4))
    with pytest.raises(TypeError, match="neither __cuda_array_interface__ nor __dlpack__"):
        gpuarray.asarray([1, 2])


# ---- GPU

gpu = pytest.mark.gpu


def _random(shape, dtype):
    return np.random.default_rng(42).standard_normal(shape).astype(dtype)


def _torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA")
    return torch


@gpu
@pytest.mark.parametrize("make", [gpuarray.to_gpu, cuda.to_device])
def test_export_to_cupy_shares_memory(primary_ctx, make):
    cp = pytest.importorskip("cupy")
    host = _random((37, 12), np.float32)
    ours = make(host)[3:30:2, 1:]
    theirs = cp.from_dlpack(ours)
    assert theirs.data.ptr == ours.ptr
    assert theirs.shape == ours.shape and theirs.strides == ours.strides
    theirs *= 2
    cp.cuda.Device().synchronize()
    np.testing.assert_array_equal(ours.get(), 2 * host[3:30:2, 1:])
    ours[...] = np.full(ours.shape, 5, np.float32)
    primary_ctx.synchronize()
    np.testing.assert_array_equal(cp.asnumpy(theirs), np.full(ours.shape, 5, np.float32))


@gpu
def test_import_from_cupy_shares_memory(primary_ctx):
    cp = pytest.importorskip("cupy")
    theirs = cp.asarray(_random((25, 8), np.float64))[::3]
    for ours in (gpuarray.asarray(theirs), cuda.as_cuda_array(theirs)):
        assert ours.ptr == theirs.data.ptr and ours.shape == theirs.shape and ours.strides == theirs.strides
        np.testing.assert_array_equal(ours.get(), cp.asnumpy(theirs))
    # Through DLPack alone (CuPy also exports the CUDA array interface).
    capsule_only = type(
        "DLPackOnly",
        (),
        {
            "__dlpack__": lambda self, **kw: theirs.__dlpack__(**kw),
            "__dlpack_device__": lambda self: theirs.__dlpack_device__(),
        },
    )()
    ours = gpuarray.asarray(capsule_only)
    assert ours.ptr == theirs.data.ptr and ours.strides == theirs.strides
    ours += 1
    primary_ctx.synchronize()
    np.testing.assert_array_equal(ours.get(), cp.asnumpy(theirs))


@gpu
def test_export_to_torch_shares_memory(primary_ctx):
    torch = _torch()
    host = _random((19, 6), np.float32)
    ours = gpuarray.to_gpu(host)[1:, 2:5]
    theirs = torch.from_dlpack(ours)
    assert theirs.data_ptr() == ours.ptr
    assert tuple(theirs.shape) == ours.shape
    assert tuple(s * 4 for s in theirs.stride()) == ours.strides
    theirs.add_(1)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(ours.get(), host[1:, 2:5] + 1)


@gpu
def test_import_from_torch_shares_memory(primary_ctx):
    torch = _torch()
    theirs = torch.arange(60, dtype=torch.float32, device="cuda").reshape(6, 10).t()
    dl_only = type(
        "DLPackOnly",
        (),
        {
            "__dlpack__": lambda self, **kw: theirs.__dlpack__(**kw),
            "__dlpack_device__": lambda self: theirs.__dlpack_device__(),
        },
    )()
    for source in (theirs, dl_only):
        ours = cuda.as_cuda_array(source)
        assert ours.ptr == theirs.data_ptr() and ours.shape == tuple(theirs.shape)
        assert ours.strides == tuple(s * 4 for s in theirs.stride())
    ours[2:4] = np.zeros((2, 6), np.float32)
    primary_ctx.synchronize()
    np.testing.assert_array_equal(theirs.cpu().numpy(), ours.copy_to_host())
    assert float(theirs[2:4].abs().sum()) == 0


@gpu
def test_cpu_torch_tensor_is_refused(primary_ctx):
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match="on the CPU"):
        gpuarray.asarray(torch.ones(3))


@gpu
def test_export_to_torch_through_the_array_interface(primary_ctx):
    torch = _torch()
    host = _random((9, 7), np.float32)
    ours = gpuarray.to_gpu(host)[::2]
    theirs = torch.as_tensor(ours, device="cuda")  # reads __cuda_array_interface__
    assert theirs.data_ptr() == ours.ptr
    assert tuple(s * 4 for s in theirs.stride()) == ours.strides
    np.testing.assert_array_equal(theirs.cpu().numpy(), host[::2])


# ---- the stream of __cuda_array_interface__


def test_interface_stream_values_are_checked():
    from gpukit import _interop

    for fine in (None, 1, 2):
        _interop._wait_for_producer(fine)  # nothing to wait for: no driver call
    for bad in (0, -5, "7", 1.5, True):
        with pytest.raises(ValueError, match="'stream' must be None or a positive integer"):
            _interop._wait_for_producer(bad)


SLOW_WRITE = r"""
extern "C" __global__ void slow_write(int *out, long long cycles) {
    long long start = clock64();
    while (clock64() - start < cycles) {}
    *out = 42;
}
"""


class Exporter:
    """A producer whose data is still being written on its own (non-blocking) stream."""

    def __init__(self, ptr, stream):
        self.__cuda_array_interface__ = {
            "shape": (1,),
            "typestr": "<i4",
            "data": (ptr, False),
            "version": 3,
            "strides": None,
            "stream": stream.handle,
        }


@gpu
def test_import_waits_for_the_producers_stream(pool_ctx):
    import gpukit.driver as drv
    from gpukit.compiler import SourceModule

    kernel = SourceModule(SLOW_WRITE, no_extern_c=True).get_function("slow_write")
    target = gpuarray.zeros(1, np.int32)
    stream = drv.Stream(drv.stream_flags.NON_BLOCKING)  # not ordered with the default stream
    kernel(target, np.int64(200_000_000), block=(1, 1, 1), stream=stream)  # ~0.1 s of spinning
    imported = gpuarray.asarray(Exporter(target.ptr, stream))
    assert stream.is_done()
    assert imported.get()[0] == 42


def _numba_cuda():
    # numba-cuda still calls np.row_stack, which numpy 2.5 removed; it is np.vstack.
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack
    try:
        from numba import cuda as numba_cuda
    except Exception as e:  # an ImportError, or numba failing inside its own import
        pytest.skip(f"numba-cuda cannot be imported here: {type(e).__name__}: {e}")
    if not numba_cuda.is_available():
        pytest.skip("numba-cuda finds no CUDA device")
    return numba_cuda


@gpu
def test_numba_reads_and_writes_our_arrays(primary_ctx):
    numba_cuda = _numba_cuda()
    host = _random((11, 4), np.float64)
    strided = gpuarray.to_gpu(host)[::2]
    theirs = numba_cuda.as_cuda_array(strided)
    assert theirs.__cuda_array_interface__["data"][0] == strided.ptr
    assert theirs.shape == strided.shape and theirs.strides == strided.strides
    np.testing.assert_array_equal(theirs.copy_to_host(), host[::2])
    ours = gpuarray.to_gpu(host)  # numba copies into contiguous arrays only
    numba_cuda.as_cuda_array(ours).copy_to_device(np.full(ours.shape, 3.0))
    np.testing.assert_array_equal(ours.get(), np.full(ours.shape, 3.0))


@gpu
def test_we_read_and_write_numbas_arrays_and_wait_for_their_stream(primary_ctx):
    numba_cuda = _numba_cuda()
    host = _random((300, 5), np.float32)
    their_stream = numba_cuda.stream()
    theirs = numba_cuda.to_device(host, stream=their_stream)
    assert theirs.__cuda_array_interface__["stream"] == int(their_stream.handle)
    for ours in (gpuarray.asarray(theirs), cuda.as_cuda_array(theirs)):
        assert ours.ptr == theirs.__cuda_array_interface__["data"][0]
        np.testing.assert_array_equal(ours.get() if isinstance(ours, gpuarray.GPUArray) else ours.copy_to_host(), host)
    ours = gpuarray.asarray(theirs)
    ours += 1
    primary_ctx.synchronize()
    np.testing.assert_array_equal(theirs.copy_to_host(), host + 1)


@gpu
def test_export_names_the_arrays_stream(primary_ctx):
    import gpukit.driver as drv

    stream = drv.Stream(drv.stream_flags.NON_BLOCKING)
    ours = gpuarray.to_gpu(_random(8, np.float32), stream=stream)
    assert ours.__cuda_array_interface__["stream"] == stream.handle
    # As PyCUDA's: the key is always there, None for an array of no stream of its own.
    assert gpuarray.to_gpu(_random(8, np.float32)).__cuda_array_interface__["stream"] is None
    cp = pytest.importorskip("cupy")
    theirs = cp.asarray(ours)  # CuPy synchronizes with the named stream, then reads
    np.testing.assert_array_equal(cp.asnumpy(theirs), ours.get())
