"""gpukit.cl's objects are equal, as PyOpenCL's, when they wrap one OpenCL object, and hash as
its handle (int_ptr): caches keyed by context, queue or device (reikna's, grunnur's, pyvkfft's)
find an entry through any Python object of the same OpenCL object. Objects of other kinds
compare unequal (``__eq__`` answers False, as PyOpenCL's does).

They run on gpukit.cl, which is what ``import pyopencl`` gives under gpukit.pyopencl_compat;
with GPUKIT_PYOPENCL_ORIGINAL=1 they run on PyOpenCL itself, to confirm that both behave the
same (``GPUKIT_PYOPENCL_ORIGINAL=1 python -m pytest tests/python/test_cl_identity.py`` in an
environment with pyopencl).
"""

import numpy as np
import pytest

from cl_either import ORIGINAL, cl, cl_tools, ctx, needs_device, queue  # noqa: F401  (ctx, queue: fixtures)

pytestmark = [pytest.mark.opencl, needs_device]


SOURCE = """
__kernel void fill(__global int *out, int value) { out[get_global_id(0)] = value + (int)get_global_id(0); }
__kernel void twice(__global int *x) { x[get_global_id(0)] *= 2; }
"""


def _two_of_each_kind(ctx, queue):
    """Two distinct objects of every kind that has an OpenCL handle, by kind."""
    other_ctx = cl.Context(ctx.devices)
    prg = cl.Program(ctx, SOURCE).build()
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64)
    pool = cl_tools.MemoryPool(cl_tools.ImmediateAllocator(queue))
    host = np.arange(16, dtype=np.int32)
    return {
        "Context": (ctx, other_ctx),
        "CommandQueue": (queue, cl.CommandQueue(ctx)),
        "Buffer": (buf, cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64)),
        "PooledBuffer": (pool.allocate(64), pool.allocate(64)),
        "Program": (prg, cl.Program(ctx, SOURCE).build()),
        "Kernel": (cl.Kernel(prg, "fill"), cl.Kernel(prg, "fill")),  # two cl_kernels of one name
        "Event": (cl.enqueue_copy(queue, buf, host), cl.enqueue_copy(queue, buf, host)),
    }


def test_each_object_equals_itself_and_hashes_as_its_handle(ctx, queue):
    for kind, (a, b) in _two_of_each_kind(ctx, queue).items():
        assert a == a and not (a != a), kind
        assert a != b and not (a == b), kind
        assert hash(a) == a.int_ptr and hash(b) == b.int_ptr and a.int_ptr != b.int_ptr, kind
        cache = {a: "a", b: "b"}
        assert cache[a] == "a" and cache[b] == "b" and len({a, b, a}) == 2, kind
    queue.finish()


def test_objects_of_other_kinds_are_unequal(ctx, queue):
    objects = {kind: a for kind, (a, _) in _two_of_each_kind(ctx, queue).items()}
    objects["Device"] = ctx.devices[0]
    objects["Platform"] = ctx.devices[0].platform
    for kind, a in objects.items():
        for other_kind, b in objects.items():
            if other_kind != kind and {kind, other_kind} != {"Buffer", "PooledBuffer"}:
                assert a != b and not (a == b), (kind, other_kind)
        # Not even the handle itself, nor None: PyOpenCL's __eq__ answers False, not NotImplemented.
        for stranger in (a.int_ptr, None, "text", 1.5, object()):
            assert a.__eq__(stranger) is False, (kind, stranger)
            assert a != stranger and not (a == stranger), (kind, stranger)
        with pytest.raises(TypeError):
            a < a  # noqa: B015  (no order, as in PyOpenCL)
    queue.finish()


def test_devices_and_platforms_found_twice_are_one_key(ctx):
    # Each lookup makes new Python objects of the same OpenCL device and platform.
    device = ctx.devices[0]
    again = [d for d in device.platform.get_devices() if d.int_ptr == device.int_ptr]
    assert len(again) == 1
    assert again[0] == device and hash(again[0]) == hash(device)
    per_device = {device: "compiled for it"}
    assert per_device[again[0]] == "compiled for it"
    platform = [p for p in cl.get_platforms() if p.int_ptr == device.platform.int_ptr][0]
    assert platform == device.platform and {device.platform: 1}[platform] == 1
    assert cl.Context(ctx.devices).devices == ctx.devices  # list equality through Device.__eq__


def test_subclass_instances_compare_by_handle_too(ctx):
    class TaggedBuffer(cl.Buffer):
        pass

    a = TaggedBuffer(ctx, cl.mem_flags.READ_WRITE, 32)
    b = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 32)
    assert a == a and a != b and hash(a) == a.int_ptr
    assert {a: 1}[a] == 1


def test_a_subclass_may_define_its_own_equality(ctx):
    # Python's rule: a class that defines __eq__ alone is unhashable; defining both works.
    class ByteCount(cl.Buffer):
        def __eq__(self, other):
            return isinstance(other, ByteCount) and self.size == other.size

        __hash__ = cl.Buffer.__hash__

    a, b = ByteCount(ctx, cl.mem_flags.READ_WRITE, 48), ByteCount(ctx, cl.mem_flags.READ_WRITE, 48)
    assert a == b and hash(a) != hash(b)
    assert a != ByteCount(ctx, cl.mem_flags.READ_WRITE, 64)


def test_pooled_and_plain_buffers_compare_by_handle(ctx, queue):
    # PooledBuffer and Buffer are memory objects alike (PyOpenCL's MemoryObjectHolder): equal
    # exactly when they are the same cl_mem.
    pool = cl_tools.MemoryPool(cl_tools.ImmediateAllocator(queue))
    pooled = pool.allocate(256)
    plain = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 256)
    assert pooled != plain and plain != pooled
    assert pooled == pooled and hash(pooled) == pooled.int_ptr


# ---- two Python objects of one OpenCL object -----------------------------------------------------


def test_a_queues_context_is_equal_to_the_one_it_was_made_with(ctx, queue):
    again = queue.context
    assert again == ctx and hash(again) == hash(ctx) and again.int_ptr == ctx.int_ptr
    assert again.devices == ctx.devices
    per_context = {ctx: "kernels of ctx"}
    assert per_context[queue.context] == "kernels of ctx"
    assert cl.CommandQueue(cl.Context(ctx.devices)).context != ctx
    # The same OpenCL context: a buffer made through either runs with a program of the other.
    x = np.random.default_rng(7).integers(-1000, 1000, 64).astype(np.int32)
    buf = cl.Buffer(again, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)
    cl.Kernel(cl.Program(ctx, SOURCE).build(), "twice")(queue, x.shape, None, buf)
    out = np.empty_like(x)
    cl.enqueue_copy(queue, out, buf)
    np.testing.assert_array_equal(out, 2 * x)


def test_a_queues_context_outlives_the_context_object(ctx):
    class OwnContext(cl.Context):
        pass

    context = OwnContext(ctx.devices)
    queue = cl.CommandQueue(context)
    devices = context.devices
    del context
    again = queue.context
    assert type(again) is cl.Context  # gpukit makes base-class objects, as PyOpenCL
    assert again.devices == devices
    x = np.arange(-20, 20, dtype=np.int32)
    buf = cl.Buffer(again, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)
    out = np.empty_like(x)
    cl.enqueue_copy(queue, out, buf)
    np.testing.assert_array_equal(out, x)


def test_from_int_ptr_gives_an_equal_object_that_works(ctx, queue):
    rng = np.random.default_rng(3)
    x = rng.integers(-1000, 1000, 48).astype(np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)
    prg = cl.Program(ctx, SOURCE).build()
    knl = cl.Kernel(prg, "twice")
    event = cl.enqueue_copy(queue, buf, x, is_blocking=False)
    device = ctx.devices[0]
    originals = {
        cl.Platform: device.platform,
        cl.Device: device,
        cl.Context: ctx,
        cl.CommandQueue: queue,
        cl.Buffer: buf,
        cl.Program: prg,
        cl.Kernel: knl,
        cl.Event: event,
    }
    again = {}
    for cls, original in originals.items():
        other = cls.from_int_ptr(original.int_ptr)
        assert type(other) is cls, cls
        assert other == original and hash(other) == hash(original) and other.int_ptr == original.int_ptr, cls
        assert {original: cls}[other] is cls
        again[cls] = other
    again[cl.Event].wait()
    assert again[cl.Event].command_execution_status == 0  # CL_COMPLETE
    assert again[cl.CommandQueue].device == device and again[cl.Context].devices == ctx.devices
    assert again[cl.Buffer].size == buf.size and again[cl.Buffer].flags == buf.flags

    # Run the other kernel object on the other buffer through the other queue, a kernel of the
    # other program too, and read through the original objects: all are the same OpenCL objects.
    again[cl.Kernel](again[cl.CommandQueue], x.shape, None, again[cl.Buffer])
    cl.Kernel(again[cl.Program], "twice")(queue, x.shape, None, buf)
    out = np.empty_like(x)
    cl.enqueue_copy(queue, out, buf)
    np.testing.assert_array_equal(out, 4 * x)
    # A buffer made on the other context works with the original queue.
    y = cl.Buffer(again[cl.Context], cl.mem_flags.READ_WRITE, x.nbytes)
    cl.enqueue_copy(queue, y, buf)
    cl.enqueue_copy(queue, out, y)
    np.testing.assert_array_equal(out, 4 * x)


def test_objects_from_int_ptr_outlive_the_originals(ctx):
    queue = cl.CommandQueue(ctx)
    x = np.arange(-16, 16, dtype=np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)
    knl = cl.Kernel(cl.Program(ctx, SOURCE).build(), "twice")
    queue_again, buf_again, knl_again = (
        cl.CommandQueue.from_int_ptr(queue.int_ptr),
        cl.Buffer.from_int_ptr(buf.int_ptr),
        cl.Kernel.from_int_ptr(knl.int_ptr),
    )
    del queue, buf, knl  # each from_int_ptr object holds a reference of its own (retain=True)
    knl_again(queue_again, x.shape, None, buf_again)
    out = np.empty_like(x)
    cl.enqueue_copy(queue_again, out, buf_again)
    np.testing.assert_array_equal(out, 2 * x)


@pytest.mark.skipif(ORIGINAL, reason="PyOpenCL takes any int here, and may crash on it")
def test_from_int_ptr_refuses_what_cannot_be_a_handle(ctx):
    classes = (cl.Context, cl.CommandQueue, cl.Buffer, cl.Program, cl.Kernel, cl.Event)
    for cls in classes:
        with pytest.raises(cl.LogicError, match="the handle is null"):
            cls.from_int_ptr(0)
        with pytest.raises(cl.LogicError, match=rf"{cls.__name__}.from_int_ptr\(int_ptr_value\): expected an integer"):
            cls.from_int_ptr(-1)
        with pytest.raises(TypeError):
            cls.from_int_ptr("0x1234")
        with pytest.raises(TypeError):
            cls.from_int_ptr(ctx.int_ptr, retain="yes")
    # Platforms and devices are looked up among those installed.
    with pytest.raises(cl.LogicError, match=r"Platform.from_int_ptr: 12345 is not the handle of an installed platform"):
        cl.Platform.from_int_ptr(12345)
    with pytest.raises(cl.LogicError, match=r"Device.from_int_ptr: \d+ is not the handle of a device"):
        cl.Device.from_int_ptr(ctx.int_ptr)
