"""Bad numbers given to gpukit.cl: each gets an error naming the argument and saying what was
expected (TypeError for a non-integer, cl.LogicError for an integer out of range), never
nanobind's "incompatible function arguments", which names neither."""

import numpy as np
import pytest

import gpukit.cl as cl
import gpukit.cl.tools as tools
from cl_devices import ctx  # noqa: F401  (a fixture: one context per OpenCL device)

pytestmark = [pytest.mark.opencl]


def has_svm(ctx):
    return ctx.devices[0].svm_capabilities != 0


# (the argument's name in messages, a call giving `value` to it)
CALLS = [
    ("Buffer(size)", lambda c, q, v: cl.Buffer(c, cl.mem_flags.READ_WRITE, v)),
    ("Buffer(flags)", lambda c, q, v: cl.Buffer(c, v, 16)),
    ("LocalMemory(size)", lambda c, q, v: cl.LocalMemory(v)),
    ("CommandQueue(properties)", lambda c, q, v: cl.CommandQueue(c, properties=v)),
    ("Platform.get_devices(device_type)", lambda c, q, v: c.devices[0].platform.get_devices(v)),
    ("Device.get_info(param)", lambda c, q, v: c.devices[0].get_info(v)),
    ("enqueue_copy(dst_offset)", lambda c, q, v: cl.enqueue_copy(q, cl.Buffer(c, 1, 64), np.zeros(4), dst_offset=v)),
    ("enqueue_copy(src_offset)", lambda c, q, v: cl.enqueue_copy(q, np.zeros(4), cl.Buffer(c, 1, 64), src_offset=v)),
    ("enqueue_copy(byte_count)", lambda c, q, v: cl.enqueue_copy(q, np.zeros(4), cl.Buffer(c, 1, 64), byte_count=v)),
    ("AllocatorBase.__call__(size)", lambda c, q, v: tools.ImmediateAllocator(q)(v)),
    ("AllocatorBase.__call__(size)", lambda c, q, v: tools.DeferredAllocator(c)(v)),
    ("DeferredAllocator(mem_flags)", lambda c, q, v: tools.DeferredAllocator(c, v)),
    ("ImmediateAllocator(mem_flags)", lambda c, q, v: tools.ImmediateAllocator(q, v)),
    ("MemoryPool.allocate(size)", lambda c, q, v: tools.MemoryPool(tools.ImmediateAllocator(q)).allocate(v)),
    (
        "MemoryPool(leading_bits_in_bin_id)",
        lambda c, q, v: tools.MemoryPool(tools.ImmediateAllocator(q), leading_bits_in_bin_id=v),
    ),
    ("bin_number(size)", lambda c, q, v: tools.MemoryPool(tools.ImmediateAllocator(q)).bin_number(v)),
    ("alloc_size(bin)", lambda c, q, v: tools.MemoryPool(tools.ImmediateAllocator(q)).alloc_size(v)),
]
SVM_CALLS = [
    ("SVMAllocator(alignment)", lambda c, q, v: tools.SVMAllocator(c, alignment=v)),
    ("SVMAllocator(flags)", lambda c, q, v: tools.SVMAllocator(c, flags=v)),
    ("SVMAllocator.__call__(size)", lambda c, q, v: tools.SVMAllocator(c)(v)),
    ("SVMPool(leading_bits_in_bin_id)", lambda c, q, v: tools.SVMPool(tools.SVMAllocator(c), leading_bits_in_bin_id=v)),
    ("SVMPool.allocate(size)", lambda c, q, v: tools.SVMPool(tools.SVMAllocator(c)).allocate(v)),
]
NOT_INTEGERS = [1.5, None, "8", True, np.float32(2)]
OUT_OF_RANGE = [-1, 2**64, -(2**70)]


def check_refused(ctx, name, call, value):
    if value is None and name == "enqueue_copy(byte_count)":
        return  # None is its default: the whole array
    queue = cl.CommandQueue(ctx)
    expected = cl.LogicError if isinstance(value, int) and not isinstance(value, bool) else TypeError
    with pytest.raises(expected) as raised:
        call(ctx, queue, value)
    message = str(raised.value)
    assert "incompatible function arguments" not in message
    assert message.startswith(name), message
    if expected is cl.LogicError:
        assert "expected an integer from 0 to " in message and message.endswith(f"got {value}")


@pytest.mark.parametrize("value", NOT_INTEGERS + OUT_OF_RANGE, ids=repr)
@pytest.mark.parametrize("name, call", CALLS, ids=[name for name, _ in CALLS])
def test_bad_numbers_name_the_argument(ctx, name, call, value):
    check_refused(ctx, name, call, value)


@pytest.mark.parametrize("value", NOT_INTEGERS + OUT_OF_RANGE, ids=repr)
@pytest.mark.parametrize("name, call", SVM_CALLS, ids=[name for name, _ in SVM_CALLS])
def test_bad_numbers_name_the_svm_argument(ctx, name, call, value):
    if not has_svm(ctx):
        pytest.skip(f"device {ctx.devices[0].name!r} reports no SVM capabilities")
    check_refused(ctx, name, call, value)


def test_limits_below_64_bits_are_named(ctx):
    queue = cl.CommandQueue(ctx)
    with pytest.raises(
        cl.LogicError,
        match=r"MemoryPool\(leading_bits_in_bin_id\): expected an integer from 0 to "
        r"4294967295, got 4294967296",
    ):
        tools.MemoryPool(tools.ImmediateAllocator(queue), leading_bits_in_bin_id=2**32)
    with pytest.raises(cl.LogicError, match=r"Device.get_info\(param\): expected an integer .*, got 4294967296"):
        ctx.devices[0].get_info(2**32)
    with pytest.raises(
        cl.LogicError,
        match=r"error_name\(code\): expected an integer from -2147483648 to "
        r"2147483647, got 2147483648",
    ):
        cl.error_name(2**31)
    assert cl.error_name(-5) == "CL_OUT_OF_RESOURCES"


def test_other_bad_inputs_are_named(ctx):
    queue = cl.CommandQueue(ctx)
    with pytest.raises(TypeError, match=r"enqueue_copy\(is_blocking\): expected True or False, got str"):
        cl.enqueue_copy(queue, np.zeros(4), cl.Buffer(ctx, 1, 64), is_blocking="yes")
    with pytest.raises(TypeError, match=r"Context\(devices\): item 1 is a NoneType; expected gpukit.cl.Device"):
        cl.Context([ctx.devices[0], None])
    # A pool's bad bins are cl.LogicError, as the docs promise.
    with pytest.raises(cl.LogicError, match="leading_bits"):
        tools.MemoryPool(tools.ImmediateAllocator(queue), leading_bits_in_bin_id=65)
    with pytest.raises(cl.LogicError, match="not a bin number"):
        tools.MemoryPool(tools.ImmediateAllocator(queue)).alloc_size(10**6)
