"""Kernel arguments as PyCUDA-based libraries (reikna, grunnur) pass them: numpy scalars and
0-d arrays by value, numpy arrays and records as their bytes, ArgumentHandler subclasses
through get_device_alloc(), objects with gpudata or __cuda_array_interface__ as pointers,
in calls, prepared calls and ElementwiseKernel/ReductionKernel calls; subclasses of the
driver's classes; and the context pattern of grunnur and reikna (several contexts on one
device, pushed and popped around compiling, making streams and launching). The packing
itself runs here (_gpukit._kernel_argument_bytes and _prepared_argument_bytes give the
bytes a call passes, _scalar_bytes a kernel's scalar); the launches are marked gpu."""

import gc
import struct

import numpy as np
import pytest

import gpukit.driver as drv
from gpukit import _gpukit
from gpukit.tools import ScalarArg
from conftest import drain_context_stack

ADDRESS = 0x7F00_1234_5670  # a device address given as an integer: nothing is allocated


def pointer(address):
    return struct.pack("<Q", address)


def packed(*args, param_sizes=None):
    return _gpukit._kernel_argument_bytes(*args, param_sizes=param_sizes)


# ---- by value: numpy scalars, 0-d arrays, arrays, records ---------------------------------

SCALARS = [
    np.int8(-5),
    np.uint8(250),
    np.int16(-300),
    np.uint16(60000),
    np.int32(-123456),
    np.uint32(4000000000),
    np.int64(-(1 << 40)),
    np.uint64((1 << 64) - 3),
    np.float16(1.5),
    np.float32(-2.25),
    np.float64(3.125),
    np.complex64(1 - 2j),
    np.complex128(3 + 4j),
    np.bool_(True),
    np.intp(ADDRESS),
    np.uintp(ADDRESS),
]


@pytest.mark.parametrize("value", SCALARS, ids=lambda v: type(v).__name__)
def test_numpy_scalars_pass_their_bytes(value):
    assert packed(value) == [value.tobytes()]


@pytest.mark.parametrize("value", SCALARS, ids=lambda v: type(v).__name__)
def test_a_zero_dimensional_array_is_its_element(value):
    array = np.array(value)
    assert array.ndim == 0
    assert packed(array) == [value.tobytes()]


def test_zero_dimensional_int32_is_an_int_argument():
    # PyCUDA: numpy.array(1, numpy.int32) is an int; the kernel's 4-byte parameter takes it.
    assert packed(np.array(1, np.int32), param_sizes=[4]) == [(1).to_bytes(4, "little")]


def test_arrays_pass_their_bytes_in_c_order():
    vector = np.array([1.5, -2.0, 3.25], np.float32)  # a float3 by value
    matrix = np.arange(12, dtype=np.int16).reshape(3, 4)
    assert packed(vector, matrix, param_sizes=[12, 24]) == [vector.tobytes(), matrix.tobytes(order="C")]
    assert packed(vector)[0] == struct.pack("<3f", 1.5, -2.0, 3.25)


def test_the_bytes_are_copied_when_packed():
    values = np.array([7, 8], np.int32)
    result = packed(values)
    values[:] = 0
    del values
    gc.collect()
    assert result == [struct.pack("<2i", 7, 8)]


RECORD = np.dtype([("x", np.float32), ("n", np.int32), ("w", np.float64)], align=True)


def test_records_pass_their_bytes():
    record = np.zeros((), RECORD)
    record["x"], record["n"], record["w"] = 1.5, -4, 2.75
    expected = struct.pack("<fid", 1.5, -4, 2.75)
    assert RECORD.itemsize == len(expected) == 16
    element = record[()]
    assert isinstance(element, np.void)
    rec_scalar = np.rec.array([(1.5, -4, 2.75)], dtype=RECORD)[0]
    assert packed(element, record, rec_scalar) == [expected, expected, expected]


@pytest.mark.parametrize(
    "array",
    [
        np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)),
        np.arange(8, dtype=np.int32)[::2],
        np.arange(12, dtype=np.float64).reshape(3, 4)[:, 1:3],
    ],
    ids=["fortran", "strided", "sub-block"],
)
def test_arrays_not_c_contiguous_are_refused_as_pycuda_refuses_them(array):
    # PyCUDA's packer asks for the array's bytes without strides; numpy gives them only for
    # C-contiguous arrays and raises ValueError otherwise.
    with pytest.raises(ValueError, match=r"argument 1: the numpy array .* is not C-contiguous") as info:
        packed(np.int32(0), array)
    assert "ascontiguousarray" in str(info.value)


@pytest.mark.parametrize(
    "value",
    [
        np.array([1, "two", None], dtype=object),
        np.array(3, dtype=object),
        np.zeros((), [("a", object), ("b", np.int32)]),
        np.zeros((), [("a", object), ("b", np.int32)])[()],
        np.array(["text"], dtype=np.dtypes.StringDType()),
    ],
    ids=["object array", "0-d object", "record with object", "record scalar with object", "StringDType"],
)
def test_data_holding_python_objects_is_a_type_error(value):
    with pytest.raises(TypeError, match=r"argument 2: a numpy .* holds Python objects, not plain data"):
        packed(np.int32(0), np.float32(0), value)


def test_a_by_value_array_of_the_wrong_size_names_both_sizes():
    array = np.zeros(16, np.float32)
    with pytest.raises(
        drv.LogicError,
        match=r"argument 1 is 64 bytes, but parameter 1 of the kernel is 8 bytes; "
        r"a numpy array is passed by value",
    ) as info:
        packed(np.int32(0), array, param_sizes=[4, 8])
    assert "In(), Out() or InOut()" in str(info.value)


def test_other_buffers_pass_their_bytes():
    raw = struct.pack("<if", 4, 5.5)
    assert packed(raw, bytearray(raw), memoryview(raw)) == [raw, raw, raw]
    with pytest.raises(BufferError, match="argument 0: "):
        packed(memoryview(b"abcdef")[::2])


# ---- pointers --------------------------------------------------------------------------


class WithGpudata:
    def __init__(self, gpudata):
        self.gpudata = gpudata


class WithInterface:
    def __init__(self, address):
        self.__cuda_array_interface__ = {"data": (address, False), "shape": (4,), "typestr": "<f4", "version": 3}


class AddressHolder(drv.PointerHolderBase):
    def __init__(self, address):
        super().__init__()
        self.address = address

    def get_pointer(self):
        return self.address


def test_gpudata_and_the_array_interface_are_pointers():
    assert packed(
        WithGpudata(ADDRESS),
        WithGpudata(np.uintp(ADDRESS + 8)),
        WithGpudata(AddressHolder(ADDRESS + 16)),
        WithInterface(ADDRESS + 24),
    ) == [pointer(ADDRESS + k) for k in (0, 8, 16, 24)]


def test_the_array_interface_comes_before_gpudata_as_in_pycuda():
    both = WithInterface(ADDRESS)
    both.gpudata = ADDRESS + 4096
    assert packed(both) == [pointer(ADDRESS)]


def test_python_integers_and_pointer_holders():
    assert packed(ADDRESS, AddressHolder(ADDRESS + 8), param_sizes=[8, 8]) == [pointer(ADDRESS), pointer(ADDRESS + 8)]


def test_anything_else_is_a_type_error_naming_the_argument():
    with pytest.raises(TypeError, match=r"argument 1: cannot pass a object to a kernel"):
        packed(np.int32(0), object())
    with pytest.raises(TypeError, match=r"argument 0: cannot pass a str"):
        packed("text")


# ---- ArgumentHandler: the protocol and subclasses ----------------------------------------


class FakeAllocation:
    """Stands for a DeviceAllocation: int() is its address."""

    def __init__(self, address):
        self.address = address

    def __int__(self):
        return self.address


class Buffer(drv.ArgumentHandler):
    """reikna.cluda.cuda.Buffer's shape: its own __init__ that never calls the base one, its
    own __int__, and get_device_alloc()."""

    def __init__(self, size, address):
        self._buffer = FakeAllocation(address)
        self.size = size

    def __int__(self):
        return int(self._buffer) + 4096  # PyCUDA does not use this: get_device_alloc() decides

    def get_device_alloc(self):
        return self._buffer


def test_argument_handler_subclass_passes_its_device_alloc():
    assert packed(Buffer(64, ADDRESS), np.int32(3)) == [pointer(ADDRESS), (3).to_bytes(4, "little")]


def test_argument_handler_classes_follow_pycuda():
    a = np.zeros(3)
    for cls in (drv.In, drv.Out, drv.InOut):
        h = cls(a)
        assert isinstance(h, drv.ArgumentHandler)
        assert h.array is a and h.dev_alloc is None
    assert issubclass(drv.InOut, drv.In) and issubclass(drv.InOut, drv.Out)
    # Only the handlers that copy back have post_call: PyCUDA's call looks for it.
    assert not hasattr(drv.In(a), "post_call") and not hasattr(drv.ArgumentHandler(a), "post_call")
    assert hasattr(drv.Out(a), "post_call") and hasattr(drv.InOut(a), "post_call")
    assert drv.ArgumentHandler(a).pre_call(None) is None
    with pytest.raises(TypeError, match="cannot size device memory for a list"):
        drv.In([1, 2, 3]).get_device_alloc()


def test_a_handler_with_its_device_memory_set_uses_it():
    handler = drv.InOut(np.zeros(4, np.float32))
    handler.dev_alloc = FakeAllocation(ADDRESS)
    assert packed(handler) == [pointer(ADDRESS)]


# ---- prepared calls --------------------------------------------------------------------


def prepared(arg_types, *args):
    return _gpukit._prepared_argument_bytes(arg_types, *args)


def test_prepared_calls_take_numpy_scalars_and_zero_dimensional_arrays():
    assert prepared("ifdF", np.array(-7, np.int64), np.array(2.5, np.float64), np.float32(0.25), np.array(1 + 2j)) == [
        struct.pack("<i", -7),
        struct.pack("<f", 2.5),
        struct.pack("<d", 0.25),
        struct.pack("<ff", 1, 2),
    ]


def test_prepared_pointers():
    assert prepared(
        "PPPPP",
        ADDRESS,
        np.array(ADDRESS + 8, np.uintp),
        WithGpudata(ADDRESS + 16),
        WithInterface(ADDRESS + 24),
        AddressHolder(ADDRESS + 32),
    ) == [pointer(ADDRESS + k) for k in (0, 8, 16, 24, 32)]
    with pytest.raises(TypeError, match="format 'P' expects a device pointer"):
        prepared("P", np.zeros(4, np.float32))
    with pytest.raises(TypeError, match="format 'P' expects a device pointer"):
        prepared("P", 1.5)


def test_prepared_records_and_byte_arguments():
    record = np.zeros((), RECORD)
    record["n"] = 9
    assert prepared([RECORD], record[()]) == [record.tobytes()]
    assert prepared([RECORD], record) == [record.tobytes()]
    assert prepared("12s", np.array([1, 2, 3], np.float32)) == [struct.pack("<3f", 1, 2, 3)]
    with pytest.raises(TypeError, match="expected 16 bytes"):
        prepared([RECORD], np.float64(1))
    with pytest.raises(ValueError, match="not C-contiguous"):
        prepared("16s", np.arange(8, dtype=np.float32)[::2])
    with pytest.raises(TypeError, match="holds Python objects"):
        prepared("8s", np.array([None], dtype=object))


def test_prepare_types_follow_pycuda():
    # numpy scalar types and dtypes give their letter, a record dtype its bytes, anything else
    # (None, a Python type, a class) a pointer-sized slot.
    assert prepared(
        [np.int16, np.dtype(np.float64), "b", None, float, drv.DeviceAllocation],
        5,
        2.0,
        -1,
        ADDRESS,
        ADDRESS + 8,
        ADDRESS + 16,
    ) == [struct.pack("<h", 5), struct.pack("<d", 2.0), struct.pack("<b", -1)] + [
        pointer(ADDRESS + k) for k in (0, 8, 16)
    ]
    with pytest.raises(TypeError, match="cannot be a by-value argument"):
        prepared([np.dtype([("a", object)])], None)


# ---- ElementwiseKernel / ReductionKernel scalars -----------------------------------------


@pytest.mark.parametrize(
    "dtype, value",
    [
        (np.float32, np.array(2.5)),
        (np.float64, np.array(-1.25, np.float32)),
        (np.int32, np.array(7)),
        (np.uint8, np.array(200, np.int64)),
        (np.complex64, np.array(1 - 3j)),
        (np.bool_, np.array(True)),
    ],
)
def test_kernel_scalars_take_zero_dimensional_arrays(dtype, value):
    from gpukit.elementwise import _scalar_bytes

    assert _scalar_bytes(value, ScalarArg(dtype, "s")) == np.array(value[()], dtype).tobytes()
    assert _scalar_bytes(value[()], ScalarArg(dtype, "s")) == np.array(value[()], dtype).tobytes()


def test_kernel_scalars_refuse_object_arrays():
    from gpukit.elementwise import _scalar_bytes

    with pytest.raises(TypeError, match="holds Python objects"):
        _scalar_bytes(np.array(1, dtype=object), ScalarArg(np.int32, "s"))


# ---- on a GPU ----------------------------------------------------------------------------

SOURCE = """
struct rec { float x; int n; double w; };

extern "C" __global__ void scalars(double *out, int i, float f, double d, unsigned char c, float3 v, rec r)
{
    out[0] = i; out[1] = f; out[2] = d; out[3] = c;
    out[4] = v.x; out[5] = v.y; out[6] = v.z;
    out[7] = r.x; out[8] = r.n; out[9] = r.w;
}

extern "C" __global__ void axpb(float *y, const float *x, float a, int b, int n)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n)
        y[k] = a * x[k] + b;
}
"""


@pytest.fixture
def mod(ctx):
    from gpukit.compiler import SourceModule

    return SourceModule(SOURCE, no_extern_c=True)


def expected_scalars(i, f, d, c, v, r):
    return np.array([i, np.float32(f), d, c, *np.asarray(v, np.float32), np.float32(r["x"]), r["n"], r["w"]])


@pytest.mark.gpu
def test_scalars_arrays_and_records_by_value(mod):
    f = mod.get_function("scalars")
    out = np.zeros(10)
    v = np.array([0.5, -1.5, 2.5], np.float32)
    r = np.zeros((), RECORD)
    r["x"], r["n"], r["w"] = 3.5, -9, 1e10
    f(
        drv.Out(out),
        np.array(-42, np.int32),
        np.float32(1.25),
        np.array(2.0**60),
        np.uint8(254),
        v,
        r[()],
        block=(1, 1, 1),
    )
    np.testing.assert_array_equal(out, expected_scalars(-42, 1.25, 2.0**60, 254, v, r))
    # The same through a prepared call, 0-d arrays included.
    f.prepare([np.intp, np.int32, np.float32, np.float64, np.uint8, "12s", RECORD])
    dest = drv.mem_alloc(out.nbytes)
    f.prepared_call(
        (1, 1),
        (1, 1, 1),
        dest,
        np.array(7, np.int32),
        np.array(0.5, np.float32),
        np.float64(-3),
        np.array(1, np.uint8),
        v[::-1].copy(),
        r,
    )
    drv.memcpy_dtoh(out, dest)
    np.testing.assert_array_equal(out, expected_scalars(7, 0.5, -3, 1, v[::-1], r))


@pytest.mark.gpu
def test_host_bytes_are_copied_before_an_asynchronous_call_returns(mod):
    f = mod.get_function("scalars")
    stream = drv.Stream()
    dest = drv.mem_alloc(10 * 8)
    v = np.array([1, 2, 3], np.float32)
    r = np.zeros((), RECORD)
    r["n"] = 5
    f(dest, np.int32(1), np.float32(2), np.float64(3), np.uint8(4), v, r, block=(1, 1, 1), stream=stream)
    v[:] = -1  # after the call returned, before the kernel is known to have run
    r["n"] = -1
    del v, r
    gc.collect()
    stream.synchronize()
    out = np.empty(10)
    drv.memcpy_dtoh(out, dest)
    np.testing.assert_array_equal(out, [1, 2, 3, 4, 1, 2, 3, 0, 5, 0])


@pytest.mark.gpu
def test_wrong_sized_by_value_array_is_refused_before_launch(mod):
    f = mod.get_function("axpb")
    if f.param_sizes is None:
        pytest.skip("the driver cannot describe kernel parameters (needs CUDA 12.4+)")
    x = np.ones(4, np.float32)
    with pytest.raises(drv.LogicError, match=r"argument 0 is 16 bytes, but parameter 0 of the kernel is 8 bytes"):
        f(x, drv.In(x), np.float32(1), np.int32(0), np.int32(4), block=(4, 1, 1))


@pytest.mark.gpu
@pytest.mark.parametrize(
    "record, given",
    [
        (np.void(b"\x01\x00\x00"), 3),
        (np.void(b"\x01" * 17), 17),
        (np.zeros((), [("x", np.float32), ("n", np.int32)])[()], 8),
        (np.zeros(3, np.int32), 12),
        (b"\x01\x00\x00", 3),
    ],
    ids=["void of 3 bytes", "void of 17 bytes", "short record", "array", "bytes"],
)
def test_by_value_records_of_another_size_are_refused_before_launch(mod, record, given):
    # Issue 29: the record parameter `rec r` has 16 bytes; a shorter value would be read past
    # its end, a longer one shift nothing but hide a mistake. Checked in calls, prepared calls
    # and graph kernel nodes alike, by the kernel's parameter sizes.
    f = mod.get_function("scalars")
    if f.param_sizes is None:
        pytest.skip("the driver cannot describe kernel parameters (needs CUDA 12.4+)")
    message = rf"argument 6 is {given} bytes, but parameter 6 of the kernel is 16 bytes"
    out = drv.mem_alloc(10 * 8)
    args = [out, np.int32(1), np.float32(2), np.float64(3), np.uint8(4), np.zeros(3, np.float32), record]
    with pytest.raises(drv.LogicError, match=message):
        f(*args, block=(1, 1, 1))
    f.prepare([np.intp, np.int32, np.float32, np.float64, np.uint8, "12s", f"{given}s"])
    with pytest.raises(drv.LogicError, match=message):
        f.prepared_call((1, 1), (1, 1, 1), *args)
    with pytest.raises(drv.LogicError, match=message):
        drv.Graph().add_kernel_node(*args, func=f, block=(1, 1, 1))


class RecordingBuffer(drv.ArgumentHandler):
    """reikna's Buffer (its own __init__, get_device_alloc()), with pre_call and post_call
    recording what they see."""

    def __init__(self, host, log):
        self._buffer = drv.mem_alloc(host.nbytes)
        self.host = host
        self.log = log

    def __int__(self):
        return int(self._buffer)

    def get_device_alloc(self):
        return self._buffer

    def pre_call(self, stream):
        self.log.append(("pre", stream))
        drv.memcpy_htod(self._buffer, self.host)

    def post_call(self, stream):
        self.log.append(("post", stream))
        drv.memcpy_dtoh(self.host, self._buffer)


@pytest.mark.gpu
def test_argument_handler_subclass_runs_pre_and_post_call(mod):
    f = mod.get_function("axpb")
    n = 300
    x = np.random.default_rng(1).standard_normal(n).astype(np.float32)
    y = np.zeros(n, np.float32)
    log = []
    f(
        RecordingBuffer(y, log),
        RecordingBuffer(x, log),
        np.float32(2.5),
        np.array(-3, np.int32),
        np.int32(n),
        block=(128, 1, 1),
        grid=(3, 1),
    )
    # pre_call before the launch, post_call after the context finished the kernel.
    assert log == [("pre", None), ("pre", None), ("post", None), ("post", None)]
    np.testing.assert_allclose(y, 2.5 * x - 3, rtol=1e-6, atol=1e-6)  # the kernel may fuse the multiply-add
    stream = drv.Stream()
    log.clear()
    f(
        RecordingBuffer(y, log),
        RecordingBuffer(x, log),
        np.float32(1),
        np.int32(1),
        np.int32(n),
        block=(128, 1, 1),
        grid=(3, 1),
        stream=stream,
    )
    assert [event for event, _ in log] == ["pre", "pre", "post", "post"] and all(s is stream for _, s in log)
    stream.synchronize()


@pytest.mark.gpu
def test_reikna_buffer_as_in_reikna(mod):
    class Buffer(drv.ArgumentHandler):
        def __init__(self, size):
            self._buffer = drv.mem_alloc(size)
            self.size = size

        def __int__(self):
            return int(self._buffer)

        def __del__(self):
            self._buffer.free()

        def get_device_alloc(self):
            return self._buffer

    n = 64
    x = np.arange(n, dtype=np.float32)
    bx, by = Buffer(x.nbytes), Buffer(x.nbytes)
    drv.memcpy_htod(bx.get_device_alloc(), x)
    mod.get_function("axpb")(by, bx, np.float32(0.5), np.int32(2), np.int32(n), block=(64, 1, 1))
    y = np.empty_like(x)
    drv.memcpy_dtoh(y, by.get_device_alloc())
    np.testing.assert_array_equal(y, 0.5 * x + 2)


@pytest.mark.gpu
def test_in_out_subclasses_are_honoured(mod):
    calls = []

    class LoggedIn(drv.In):
        def pre_call(self, stream):
            calls.append("in")
            super().pre_call(stream)

    class ScaledOut(drv.Out):
        def post_call(self, stream):
            super().post_call(stream)
            calls.append("out")
            self.array *= 10

    n = 50
    x = np.linspace(-1, 1, n).astype(np.float32)
    y = np.zeros(n, np.float32)
    mod.get_function("axpb")(ScaledOut(y), LoggedIn(x), np.float32(3), np.int32(1), np.int32(n), block=(64, 1, 1))
    assert calls == ["in", "out"]
    np.testing.assert_allclose(y, 10 * (3 * x + 1), rtol=1e-6, atol=1e-5)  # the kernel may fuse the multiply-add
    # Plain In/Out/InOut still copy both ways.
    z = np.zeros(n, np.float32)
    mod.get_function("axpb")(drv.InOut(z), drv.In(x), np.float32(-1), np.int32(0), np.int32(n), block=(64, 1, 1))
    np.testing.assert_array_equal(z, -x)


@pytest.mark.gpu
def test_allocation_subclasses_are_pointers(mod):
    class Tracked(drv.DeviceAllocation):
        def __init__(self, nbytes, tag):
            super().__init__(nbytes)
            self.tag = tag

    class Shifted(drv.DeviceAllocation):
        """int() of the allocation points 4 elements in, and PyCUDA passes int(arg)."""

        def __int__(self):
            return super().__int__() + 16

    import gpukit.tools as tools

    class Pooled(drv.PooledDeviceAllocation):
        pass

    n = 32
    x = np.arange(n, dtype=np.float32)
    src, dest = Tracked(x.nbytes, "x"), Shifted(x.nbytes + 16)
    assert src.tag == "x" and isinstance(src, drv.DeviceAllocation) and int(src) != 0
    drv.memcpy_htod(src, x)
    axpb = mod.get_function("axpb")
    axpb(dest, src, np.float32(2), np.int32(1), np.int32(n), block=(32, 1, 1))
    y = np.empty(n + 4, np.float32)
    drv.memcpy_dtoh(y, drv.DeviceAllocation.__int__(dest))
    np.testing.assert_array_equal(y[4:], 2 * x + 1)
    pool = tools.DeviceMemoryPool()
    pooled = Pooled(pool, x.nbytes)
    assert isinstance(pooled, drv.PooledDeviceAllocation) and int(pooled) != 0
    axpb(pooled, src, np.float32(-1), np.int32(0), np.int32(n), block=(32, 1, 1))
    out = np.empty(n, np.float32)
    drv.memcpy_dtoh(out, pooled)
    np.testing.assert_array_equal(out, -x)


@pytest.mark.gpu
def test_function_keeps_attributes_and_takes_a_subclass(mod):
    f = mod.get_function("axpb")
    f.arg_format = "PPfii"  # PyCUDA keeps its own data on kernels this way
    assert f.arg_format == "PPfii"

    class Counted(drv.Function):
        calls = 0

        def __call__(self, *args, **kwargs):
            type(self).calls += 1
            return super().__call__(*args, **kwargs)

    f.__class__ = Counted
    assert isinstance(f, Counted) and f.prepare("PPfii") is f
    x = np.arange(8, dtype=np.float32)
    y = np.zeros(8, np.float32)
    f(drv.Out(y), drv.In(x), np.float32(2), np.int32(-1), np.int32(8), block=(8, 1, 1))
    assert Counted.calls == 1
    np.testing.assert_array_equal(y, 2 * x - 1)


@pytest.mark.gpu
def test_source_module_subclass_with_its_own_get_function(ctx):
    from gpukit.compiler import SourceModule

    class CachingModule(SourceModule):
        def __init__(self, source, **kwargs):
            super().__init__(source, **kwargs)
            self.looked_up = []
            self._functions = {}

        def get_function(self, name):
            self.looked_up.append(name)
            if name not in self._functions:
                self._functions[name] = super().get_function(name)
            return self._functions[name]

    module = CachingModule(SOURCE, no_extern_c=True)
    assert module.get_function("axpb") is module.get_function("axpb")
    assert module.looked_up == ["axpb", "axpb"]
    assert isinstance(module, SourceModule)
    x = np.arange(16, dtype=np.float32)
    y = np.empty_like(x)
    module.get_function("axpb")(drv.Out(y), drv.In(x), np.float32(1), np.int32(5), np.int32(16), block=(16, 1, 1))
    np.testing.assert_array_equal(y, x + 5)


@pytest.mark.gpu
def test_elementwise_and_reduction_kernels_take_numpy_scalars_and_zero_dimensional_arrays(ctx):
    import gpukit.gpuarray as gpuarray
    from gpukit.elementwise import ElementwiseKernel
    from gpukit.reduction import ReductionKernel

    lin = ElementwiseKernel("float a, float *x, double b, int c, float *z", "z[i] = a*x[i] + b + c", "lin")
    x = np.random.default_rng(2).standard_normal(1000).astype(np.float32)
    x_gpu = gpuarray.to_gpu(x)
    z_gpu = gpuarray.empty_like(x_gpu)
    lin(np.array(2.0, np.float32), x_gpu, np.array(0.5), np.int32(3), z_gpu)
    np.testing.assert_allclose(z_gpu.get(), (2 * x.astype(np.float64) + 3.5).astype(np.float32), rtol=1e-6)
    dot = ReductionKernel(np.float64, "0", "a+b", "s*x[i]*x[i]", "double s, const float *x")
    assert dot(np.array(0.5), x_gpu).get() == pytest.approx(0.5 * np.sum(x.astype(np.float64) ** 2), rel=1e-9)


# ---- the context pattern of libraries that manage contexts themselves ---------------------

GRUNNUR_SOURCE = """
extern "C" __global__ void multiply(int *dest, int *a, int *b, int c)
{
    const int i = threadIdx.x + blockIdx.x * blockDim.x;
    dest[i] = a[i] * b[i] + c;
}
"""


class ContextStack:
    """grunnur's _ContextStack, as its CUDA adapter drives PyCUDA: contexts made with
    make_context() and popped at once, pushed and popped around every use."""

    def __init__(self, count):
        self.contexts = []
        for _ in range(count):  # CuContextAdapter.from_pycuda_devices
            context = drv.Device(0).make_context()
            drv.Context.pop()
            self.contexts.append(context)
        for context in self.contexts:  # _ContextStack.__init__ with take_ownership
            context.push()
            assert context.get_device() == drv.Device(0)
            context.pop()
        self.active = None
        self.activate(0)  # CuContextAdapter.__init__: eager activation

    def activate(self, index):
        if self.active != index:
            self.deactivate()
            self.contexts[index].push()
            self.active = index

    def deactivate(self):
        if self.active is not None:
            self.contexts[self.active].pop()
            self.active = None


@pytest.mark.gpu
def test_grunnur_pattern_compile_queue_and_launch_under_separate_pushes():
    drain_context_stack()
    from gpukit.compiler import SourceModule

    stack = ContextStack(2)
    try:
        devices = [1, 0]  # test_compile_multi_device's order
        programs, queues, buffers = {}, {}, {}
        n = 64
        a = np.arange(n, dtype=np.int32)
        b = a + 1
        for k in devices:  # compile_single_device: activate, then SourceModule
            stack.activate(k)
            programs[k] = SourceModule(GRUNNUR_SOURCE, no_extern_c=True)
        # One source, two contexts: each has a module of its own.
        assert programs[0].module is not programs[1].module
        for k in devices:  # make_queue_adapter: activate, then Stream()
            stack.activate(k)
            queues[k] = drv.Stream()
        for k in devices:  # CuBufferAdapter: activate, mem_alloc; set(): memcpy_htod_async on the queue
            stack.activate(k)
            buffers[k] = [drv.mem_alloc(a.nbytes) for _ in range(3)]
            drv.memcpy_htod_async(buffers[k][1], a, stream=queues[k])
            drv.memcpy_htod_async(buffers[k][2], b, stream=queues[k])
        # KernelHub: get_function for every device under whichever context is current.
        kernels = {k: programs[k].get_function("multiply") for k in devices}
        for k in devices:  # CuPreparedKernelAdapter.__call__: activate, then call with the queue's stream
            stack.activate(k)
            dest, pa, pb = (np.uintp(int(buffer)) for buffer in buffers[k])
            kernels[k](dest, pa, pb, np.int32(3 + k), grid=(2, 1, 1), block=(32, 1, 1), stream=queues[k], shared=0)
        for k in devices:
            stack.activate(k)
            queues[k].synchronize()
            result = np.empty(n, np.int32)
            drv.memcpy_dtoh(result, buffers[k][0])
            np.testing.assert_array_equal(result, a * b + 3 + k)
        # A kernel launched while another context is current: CUDA refuses it, and the error
        # says which context the module belongs to.
        # (Context 0's buffers: were the launch to run there, it would touch only its memory.)
        stack.activate(0)
        with pytest.raises(drv.LogicError, match="the kernel's module was loaded in context"):
            kernels[1](*(np.uintp(int(buffer)) for buffer in buffers[0]), np.int32(0), block=(32, 1, 1), grid=(2, 1, 1))
    finally:
        stack.deactivate()
        for context in stack.contexts:
            context.detach()
        drain_context_stack()


@pytest.mark.gpu
def test_reikna_pattern_module_compiled_once_launched_on_a_second_stream():
    # reikna's test ThreadManager: one context per device for the session, pushed for each
    # test and popped after it; a templated kernel compiled in the first test is cached and
    # launched in a later one, on a stream made then.
    drain_context_stack()
    from gpukit.compiler import SourceModule

    template = """
    extern "C" __global__ void scale({t} *y, const {t} *x, {t} factor, int n)
    {{
        const int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) y[i] = factor * x[i];
    }}
    """
    context = drv.Device(0).make_context()
    first_stream = drv.Stream()
    drv.Context.pop()
    try:
        context.push()  # the first test
        kernel = SourceModule(template.format(t="double"), no_extern_c=True).get_function("scale")
        n = 1000
        x = np.random.default_rng(3).standard_normal(n)
        x_dev, y_dev = drv.to_device(x), drv.mem_alloc(x.nbytes)
        kernel(y_dev, x_dev, np.float64(2), np.int32(n), block=(256, 1, 1), grid=(4, 1), stream=first_stream)
        first_stream.synchronize()
        drv.Context.pop()
        other = drv.Device(0).make_context()  # something else ran in between, in a context of its own
        drv.Context.pop()
        other.detach()
        context.push()  # a later test: a second stream, the cached kernel
        second_stream = drv.Stream()
        kernel(
            y_dev, x_dev, np.array(-0.5), np.array(n, np.int32), block=(256, 1, 1), grid=(4, 1), stream=second_stream
        )
        second_stream.synchronize()
        np.testing.assert_array_equal(drv.from_device(y_dev, (n,), np.float64), -0.5 * x)
        drv.Context.pop()
    finally:
        drain_context_stack()
        context.detach()
