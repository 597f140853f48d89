"""Aligned host memory and the checks of register_host_memory and the host allocators run
without a GPU; page-locked, registered and managed memory themselves are marked gpu."""

import numpy as np
import pytest

import gpukit.driver as drv

PAGE = 4096


@pytest.mark.parametrize("alignment", [1, 8, 64, 4096, 65536])
@pytest.mark.parametrize("shape", [0, 7, (3, 5), (4, 1024)])
def test_aligned_empty_alignment_shape_and_base(alignment, shape):
    a = drv.aligned_empty(shape, np.float32, alignment=alignment)
    assert a.ctypes.data % alignment == 0
    assert a.shape == ((shape,) if isinstance(shape, int) else shape)
    assert isinstance(a.base, drv.AlignedHostAllocation)
    assert a.base.alignment == alignment
    data = np.random.default_rng(1).random(a.shape, dtype=np.float32)
    a[...] = data
    assert np.array_equal(a, data)


def test_aligned_zeros_and_like_keep_order():
    f = np.asfortranarray(np.random.default_rng(2).random((5, 3)))
    for make in (drv.aligned_zeros_like, drv.aligned_empty_like):
        a = make(f)
        assert a.shape == f.shape and a.dtype == f.dtype
        assert a.flags.f_contiguous and not a.flags.c_contiguous
    assert not drv.aligned_zeros((6, 7), np.int16, order="F").any()


def test_aligned_memory_outlives_the_allocation_reference():
    a = drv.aligned_empty(100, np.uint8)
    base = a.base
    del base  # the array keeps its allocation alive
    a[:] = np.arange(100, dtype=np.uint8)
    assert a.sum() == sum(range(100))


def test_aligned_bad_input():
    with pytest.raises(drv.LogicError, match="power of two"):
        drv.aligned_empty(10, np.uint8, alignment=24)
    with pytest.raises(drv.LogicError, match="power of two"):
        drv.aligned_empty(10, np.uint8, alignment=0)
    with pytest.raises(ValueError, match="negative"):
        drv.aligned_empty((2, -1), np.uint8)


def test_register_refuses_misaligned_memory_before_the_driver():
    aligned = drv.aligned_empty(3 * PAGE, np.uint8)
    cases = [np.zeros(10), aligned[8 : 8 + PAGE], aligned[: PAGE + 8]]
    for ary in cases:
        with pytest.raises(drv.LogicError, match="aligned_empty"):
            drv.register_host_memory(ary)
    with pytest.raises(drv.LogicError, match="unknown bits"):
        drv.register_host_memory(aligned, flags=64)


def test_register_bad_arrays():
    with pytest.raises(TypeError, match="numpy.ndarray"):
        drv.register_host_memory(bytearray(PAGE))
    strided = drv.aligned_empty((2, PAGE), np.uint8)[:, ::2]
    with pytest.raises(drv.LogicError, match="not contiguous"):
        drv.register_host_memory(strided)
    readonly = drv.aligned_empty(PAGE, np.uint8)
    readonly.setflags(write=False)
    with pytest.raises(drv.LogicError, match="read-only"):
        drv.register_host_memory(readonly)


def test_allocator_flags_are_checked_before_the_driver():
    with pytest.raises(drv.LogicError, match="unknown bits"):
        drv.pagelocked_empty(10, np.float32, mem_flags=8)
    with pytest.raises(drv.LogicError, match="GLOBAL"):
        drv.managed_empty(10, np.float32, mem_flags=drv.mem_attach_flags.SINGLE)


@pytest.mark.gpu
def test_pagelocked_arrays(ctx):
    rng = np.random.default_rng(3)
    a = drv.pagelocked_empty((7, 9), np.float64, order="F", mem_flags=drv.host_alloc_flags.DEVICEMAP)
    assert isinstance(a.base, drv.PagelockedHostAllocation) and drv.HostAllocation is drv.PagelockedHostAllocation
    assert a.flags.f_contiguous
    assert a.base.get_flags() & drv.host_alloc_flags.DEVICEMAP
    data = rng.random((7, 9))
    a[...] = data
    # Mapped memory is readable from the device through its device pointer.
    back = drv.from_device(a.base.get_device_pointer(), a.shape, a.dtype, order="F")
    assert np.array_equal(back, data)
    z = drv.pagelocked_zeros_like(a)
    assert not z.any() and z.flags.f_contiguous
    e = drv.pagelocked_empty_like(data)
    assert e.shape == data.shape and isinstance(e.base, drv.PagelockedHostAllocation)
    assert drv.pagelocked_zeros(0, np.int8).size == 0
    a.base.free()
    a.base.free()  # freeing twice is harmless
    with pytest.raises(drv.LogicError, match="freed"):
        a.base.get_flags()


@pytest.mark.gpu
def test_async_copies_through_pagelocked_memory(ctx):
    data = np.random.default_rng(4).integers(0, 2**31, 10007, dtype=np.int32)
    src = drv.pagelocked_empty_like(data)
    src[:] = data
    dst = drv.pagelocked_zeros_like(data)
    dev = drv.mem_alloc(data.nbytes)
    stream = drv.Stream()
    drv.memcpy_htod_async(dev, src, stream)
    drv.memcpy_dtoh_async(dst, dev, stream)
    stream.synchronize()
    assert np.array_equal(dst, data)


@pytest.mark.gpu
def test_register_host_memory(ctx):
    ary = drv.aligned_empty(2 * PAGE // 8, np.float64)
    data = np.random.default_rng(5).random(ary.shape)
    ary[:] = data
    registered = drv.register_host_memory(ary)
    assert isinstance(registered.base, drv.RegisteredHostMemory)
    assert registered.base.base is ary
    assert registered.ctypes.data == ary.ctypes.data
    dev = drv.to_device(registered)
    ary[:] = 0
    drv.memcpy_dtoh_async(registered, dev)
    drv.Context.synchronize()
    assert np.array_equal(ary, data)
    registered.base.unregister()
    registered.base.unregister()
    with pytest.raises(drv.LogicError, match="unregistered"):
        registered.base.get_device_pointer()


def _managed_supported():
    return drv.Device(0).get_attribute(drv.device_attribute.MANAGED_MEMORY)


@pytest.mark.gpu
def test_managed_arrays(ctx):
    if not _managed_supported():
        pytest.skip("device 0 does not support managed memory")
    a = drv.managed_empty((100, 3), np.float32)
    assert isinstance(a.base, drv.ManagedAllocation)
    assert a.base.get_device_pointer() == a.ctypes.data
    data = np.random.default_rng(6).random(a.shape, dtype=np.float32)
    a[...] = data
    # The managed allocation is itself a device pointer.
    assert np.array_equal(drv.from_device_like(a.base, data), data)
    view = np.frombuffer(memoryview(a.base)[4:16], dtype=np.float32)
    assert np.array_equal(view, data.ravel()[1:4])
    stream = drv.Stream()
    a.base.attach(drv.mem_attach_flags.SINGLE, stream)
    stream.synchronize()
    with pytest.raises(drv.LogicError, match="Stream"):
        a.base.attach(drv.mem_attach_flags.SINGLE)
    assert not drv.managed_zeros_like(a).any()
    assert drv.managed_empty_like(data).shape == data.shape
    assert not drv.managed_zeros(5, np.int64, mem_flags=drv.mem_attach_flags.HOST).any()


@pytest.mark.gpu
def test_managed_refuses_more_than_free_memory(ctx):
    if not _managed_supported():
        pytest.skip("device 0 does not support managed memory")
    free, _ = drv.mem_get_info()
    with pytest.raises(drv.MemoryError, match="free"):
        drv.managed_empty(free + 2**30, np.uint8)
