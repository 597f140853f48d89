"""Device memory, copies and memsets. Everything that touches a device is marked gpu and
uses random data; the argument checks that run before any driver call are tested anywhere."""

import os
import subprocess
import sys

import numpy as np
import pytest

import gpukit.driver as drv

rng = np.random.default_rng(12345)


def random_bytes(n):
    return rng.integers(0, 256, n, dtype=np.uint8)


class FakeDeviceArray:
    """Something with __cuda_array_interface__, as numba or cupy arrays have."""

    def __init__(self, address, shape, typestr="<f4", strides=None):
        self.__cuda_array_interface__ = {
            "data": (int(address), False),
            "shape": shape,
            "typestr": typestr,
            "strides": strides,
            "version": 3,
        }


class Holder(drv.PointerHolderBase):
    def __init__(self, allocation):
        super().__init__()
        self.allocation = allocation

    def get_pointer(self):
        return int(self.allocation)


# ---- checks made before any driver call


def test_zero_byte_allocation_is_refused():
    with pytest.raises(drv.LogicError, match="at least 1 byte"):
        drv.mem_alloc(0)


def test_pitch_access_size_is_checked():
    for bad in (0, 1, 2, 12, 32):
        with pytest.raises(drv.LogicError, match="4, 8 or 16"):
            drv.mem_alloc_pitch(64, 4, bad)


def test_device_pointer_conversion_errors():
    with pytest.raises(TypeError, match="expected a device pointer.*got ndarray"):
        drv.memcpy_htod(np.zeros(3), np.zeros(3))
    with pytest.raises(TypeError, match="got str"):
        drv.memset_d8("0x1000", 1, 1)
    with pytest.raises(drv.LogicError, match="negative"):
        drv.memset_d8(-4096, 1, 1)
    with pytest.raises(NotImplementedError, match="get_pointer"):
        drv.memset_d8(drv.PointerHolderBase(), 1, 1)


def test_capacity_from_cuda_array_interface_is_checked():
    dev = FakeDeviceArray(0x10000, (4,))  # 16 bytes
    with pytest.raises(drv.LogicError, match="20 bytes do not fit in the 16 bytes"):
        drv.memcpy_htod(dev, np.zeros(5, np.float32))
    with pytest.raises(drv.LogicError, match="do not fit"):
        drv.memset_d32(dev, 7, 5)


def test_host_buffer_errors():
    with pytest.raises(drv.LogicError, match="not contiguous"):
        drv.memcpy_htod(0x10000, np.zeros((4, 4))[:, ::2])
    readonly = np.zeros(4)
    readonly.setflags(write=False)
    with pytest.raises(drv.LogicError, match="read-only"):
        drv.memcpy_dtoh(readonly, 0x10000)
    with pytest.raises(drv.LogicError, match="read-only"):
        drv.memcpy_dtoh(b"abcd", 0x10000)
    with pytest.raises(TypeError, match="host buffer"):
        drv.memcpy_htod(0x10000, [1, 2, 3])


def test_memset_argument_checks():
    with pytest.raises(drv.LogicError, match="0 to 255"):
        drv.memset_d8(0x10000, 256, 1)
    with pytest.raises(drv.LogicError, match="0 to 65535"):
        drv.memset_d16(0x10000, -1, 1)
    with pytest.raises(drv.LogicError, match="not aligned to the 4-byte"):
        drv.memset_d32(0x10002, 1, 1)
    with pytest.raises(drv.LogicError, match="at least 16"):
        drv.memset_d2d32(0x10000, 12, 1, 4, 2)
    with pytest.raises(TypeError, match="Stream"):
        drv.memset_d8_async(0x10000, 1, 1, stream=5)


def test_empty_operations_do_nothing():
    drv.memcpy_htod(0x10000, b"")
    drv.memcpy_dtoh(bytearray(), 0x10000)
    drv.memset_d32(0x10000, 1, 0)


# ---- on a GPU


@pytest.mark.gpu
def test_alloc_free_and_use_after_free(ctx):
    free, total = drv.mem_get_info()
    assert 0 < free <= total
    a = drv.mem_alloc(1001)
    assert len(a) == a.size == 1001
    assert int(a) == a.__index__() != 0
    a.free()
    a.free()
    with pytest.raises(drv.LogicError, match="freed"):
        int(a)
    with pytest.raises(drv.LogicError, match="freed"):
        drv.memcpy_htod(a, b"x")
    with pytest.raises(drv.LogicError, match="freed"):
        drv.memset_d8(a, 1, 1)


@pytest.mark.gpu
def test_huge_allocation_is_memory_error(ctx):
    with pytest.raises(drv.MemoryError):
        drv.mem_alloc(2**60)


@pytest.mark.gpu
def test_allocation_keeps_its_context_alive():
    from conftest import drain_context_stack

    drain_context_stack()
    context = drv.Device(0).make_context()
    a = drv.mem_alloc(64)
    context.detach()  # the allocation still holds the context
    other = drv.Device(0).make_context()
    try:
        data = random_bytes(64)
        drv.memcpy_htod(a, data)  # unified addressing: usable from another context
        assert np.array_equal(drv.from_device(a, 64, np.uint8), data)
        a.free()  # frees in its own context
    finally:
        drain_context_stack()
        other.detach()


@pytest.mark.gpu
def test_no_current_context_is_a_clear_error():
    from conftest import drain_context_stack

    drain_context_stack()
    with pytest.raises(drv.LogicError, match="current CUDA context"):
        drv.mem_alloc(16)
    with pytest.raises(drv.LogicError, match="current CUDA context"):
        drv.mem_get_info()


@pytest.mark.gpu
@pytest.mark.parametrize("size", [1, 3, 1001, 65537])
@pytest.mark.parametrize("offset", [0, 1, 7])
def test_round_trip_at_odd_sizes_and_offsets(ctx, size, offset):
    data = random_bytes(size)
    a = drv.mem_alloc(size + offset)
    b = drv.mem_alloc(size + offset)
    drv.memcpy_htod(int(a) + offset, data)
    drv.memcpy_dtod(int(b) + offset, int(a) + offset, size)
    back = np.empty_like(data)
    drv.memcpy_dtoh(back, int(b) + offset)
    assert np.array_equal(back, data)


@pytest.mark.gpu
def test_to_device_from_device(ctx):
    data = rng.random((13, 7)).astype(np.float32)
    a = drv.to_device(data)
    assert isinstance(a, drv.DeviceAllocation) and a.size == data.nbytes
    assert np.array_equal(drv.from_device(a, data.shape, data.dtype), data)
    f = np.asfortranarray(data)
    b = drv.to_device(f)
    back = drv.from_device_like(b, f)
    assert back.flags.f_contiguous and np.array_equal(back, f)
    # Fortran-order bytes of a (13, 7) array are the C-order bytes of its transpose.
    assert np.array_equal(drv.from_device(b, (7, 13), np.float32), data.T)


@pytest.mark.gpu
def test_every_device_pointer_form(ctx):
    data = random_bytes(256)
    a = drv.to_device(data)
    forms = [a, int(a), np.uint64(int(a)), FakeDeviceArray(int(a), (256,), "|u1"), Holder(a)]
    for form in forms:
        assert np.array_equal(drv.from_device(form, 256, np.uint8), data), type(form)


@pytest.mark.gpu
def test_copies_larger_than_the_allocation_are_refused(ctx):
    a = drv.mem_alloc(16)
    with pytest.raises(drv.LogicError, match="17 bytes do not fit in the 16 bytes"):
        drv.memcpy_htod(a, np.zeros(17, np.uint8))
    with pytest.raises(drv.LogicError, match="do not fit"):
        drv.memcpy_dtoh(np.zeros(17, np.uint8), a)
    with pytest.raises(drv.LogicError, match="do not fit"):
        drv.memcpy_dtod(a, drv.mem_alloc(32), 32)
    with pytest.raises(drv.LogicError, match="do not fit"):
        drv.memset_d32(a, 1, 5)


@pytest.mark.gpu
def test_async_copies_and_peer_copies(ctx):
    data = random_bytes(4099)
    a = drv.to_device(data)
    b = drv.mem_alloc(4099)
    stream = drv.Stream()
    drv.memcpy_dtod_async(b, a, 4099, stream=stream)
    stream.synchronize()
    assert np.array_equal(drv.from_device(b, 4099, np.uint8), data)
    c = drv.mem_alloc(4099)
    drv.memcpy_peer(c, a, 4099)
    assert np.array_equal(drv.from_device(c, 4099, np.uint8), data)
    d = drv.mem_alloc(4099)
    drv.memcpy_peer_async(d, a, 4099, dest_context=ctx, src_context=ctx, stream=stream)
    stream.synchronize()
    assert np.array_equal(drv.from_device(d, 4099, np.uint8), data)


@pytest.mark.gpu
def test_memsets(ctx):
    n = 1001
    a = drv.to_device(random_bytes(4 * n + 4))
    drv.memset_d32(int(a) + 4, 0xDEADBEEF, n)
    assert (drv.from_device(int(a) + 4, n, np.uint32) == 0xDEADBEEF).all()
    drv.memset_d16(a, 0x1234, n)
    assert (drv.from_device(a, n, np.uint16) == 0x1234).all()
    stream = drv.Stream()
    drv.memset_d8_async(int(a) + 1, 0x5A, 3, stream)
    drv.memset_d16_async(a, 0x7777, 0, stream)
    drv.memset_d32_async(int(a) + 8, 0x01020304, 2, stream=stream)
    stream.synchronize()
    expected = [0x34, 0x5A, 0x5A, 0x5A, 0x34, 0x12, 0x34, 0x12, 4, 3, 2, 1, 4, 3, 2, 1]
    assert drv.from_device(a, 16, np.uint8).tolist() == expected


@pytest.mark.gpu
def test_pitch_allocation_and_2d_memsets(ctx):
    a, pitch = drv.mem_alloc_pitch(100, 5, 4)
    assert pitch >= 100 and a.size == pitch * 5
    fill = random_bytes(pitch * 5)
    drv.memcpy_htod(a, fill)
    drv.memset_d2d32(a, pitch, 0xCAFEF00D, 10, 5)
    drv.memset_d2d8_async(int(a) + 40, pitch, 0x11, 3, 5)
    drv.memset_d2d16_async(int(a) + 44, pitch, 0xABCD, 2, 5, drv.Stream())
    drv.Context.synchronize()
    rows = drv.from_device(a, (5, pitch), np.uint8)
    assert (rows[:, :40].copy().view(np.uint32) == 0xCAFEF00D).all()
    assert (rows[:, 40:43] == 0x11).all()
    assert (rows[:, 44:48].copy().view(np.uint16) == 0xABCD).all()
    expected = fill.reshape(5, pitch)
    assert np.array_equal(rows[:, 43], expected[:, 43])
    assert np.array_equal(rows[:, 48:], expected[:, 48:])


@pytest.mark.gpu
def test_as_buffer(ctx):
    a = drv.mem_alloc(64)
    with pytest.raises(drv.LogicError, match="not addressable from the host"):
        a.as_buffer(16)
    with pytest.raises(drv.LogicError, match="exceed the 64 bytes"):
        a.as_buffer(60, offset=8)
    mapped = drv.pagelocked_zeros(64, np.uint8, mem_flags=drv.host_alloc_flags.DEVICEMAP)
    holder = Holder(mapped.base.get_device_pointer())
    data = random_bytes(16)
    mapped[8:24] = data
    view = holder.as_buffer(16, 8)
    assert bytes(view) == data.tobytes()


_IPC_CHILD = """
import sys
import numpy as np
import gpukit.driver as drv
drv.init()
context = drv.Device(0).make_context()
handle = drv.IPCMemoryHandle(bytes.fromhex(sys.argv[1]))
data = drv.from_device(handle, int(sys.argv[2]), np.uint8)
drv.memcpy_htod(handle, data[::-1].copy())
handle.close()
handle.close()
try:
    int(handle)
except drv.LogicError:
    print("closed")
context.pop()
context.detach()
"""


@pytest.mark.gpu
def test_ipc_across_processes(ctx):
    data = random_bytes(5000)
    a = drv.to_device(data)
    handle = drv.mem_get_ipc_handle(a)
    assert isinstance(handle, bytes) and len(handle) == 64
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    child = subprocess.run(
        [sys.executable, "-c", _IPC_CHILD, handle.hex(), "5000"], env=env, capture_output=True, text=True, timeout=120
    )
    assert child.returncode == 0, child.stderr
    assert child.stdout.strip() == "closed"
    assert np.array_equal(drv.from_device(a, 5000, np.uint8), data[::-1])


def test_ipc_handle_bad_input():
    with pytest.raises(drv.LogicError, match="64-byte handle"):
        drv.IPCMemoryHandle(b"short")
