"""gpukit.cl's classes stay open Python classes, as PyOpenCL's are: subclassable with the same
constructors, instances that take attributes where PyOpenCL's do, and a subclass's overrides
used where PyOpenCL uses them. The tests use the classes the way libraries built on PyOpenCL
do (an array type over Buffer, a Program that adds build options, kernels that count their
launches, pools that track what they hand out) and check every result against numpy.

They run on gpukit.cl, which is what ``import pyopencl`` gives under gpukit.pyopencl_compat;
with GPUKIT_PYOPENCL_ORIGINAL=1 they run on PyOpenCL itself, to confirm that both behave the
same (``GPUKIT_PYOPENCL_ORIGINAL=1 python -m pytest tests/python/test_cl_subclasses.py`` in an
environment with pyopencl).
"""

import weakref

import numpy as np
import pytest

from cl_either import ORIGINAL, cl, cl_tools, ctx, needs_device, queue  # noqa: F401  (ctx, queue: fixtures)

pytestmark = [pytest.mark.opencl, needs_device]


@pytest.fixture
def rng():
    return np.random.default_rng(28)


def _needs_svm(ctx):
    if not ctx.devices[0].svm_capabilities:
        pytest.skip(f"device {ctx.devices[0].name!r} reports no SVM capabilities")


AXPY = """
__kernel void axpy(__global float *y, __global const float *x, float a) {
    const size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}
"""

# Sums of work groups through __local memory, so a wrong local argument or group size shows.
GROUP_SUMS = """
__kernel void group_sums(__global const int *x, __global int *sums, __local int *scratch) {
    const size_t lid = get_local_id(0), n = get_local_size(0);
    scratch[lid] = x[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        int total = 0;
        for (size_t i = 0; i < n; ++i)
            total += scratch[i];
        sums[get_group_id(0)] = total;
    }
}
"""

# SCALE comes from the build options a Program subclass adds.
SCALED = """
__kernel void scaled(__global int *out, __global const int *in) {
    const size_t i = get_global_id(0);
    out[i] = SCALE * in[i] + (int)i;
}
"""


# ---- instances take attributes -------------------------------------------------------------


def _objects_taking_attributes(ctx, queue):
    """One of each kind of object whose instances PyOpenCL lets take attributes (its
    dynamic_attr classes; of events, the one a copy from host memory returns)."""
    prg = cl.Program(ctx, AXPY).build()
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64)
    pool = cl_tools.MemoryPool(cl_tools.ImmediateAllocator(queue))
    objects = {
        "Platform": ctx.devices[0].platform,
        "Device": ctx.devices[0],
        "Context": ctx,
        "CommandQueue": queue,
        "Program": prg,
        "Kernel": cl.Kernel(prg, "axpy"),
        "Buffer": buf,
        "LocalMemory": cl.LocalMemory(16),
        "PooledBuffer": pool.allocate(100),
        "Event from a host copy": cl.enqueue_copy(queue, buf, np.arange(16, dtype=np.float32)),
    }
    if ctx.devices[0].svm_capabilities:
        objects["SVMAllocation"] = cl_tools.SVMAllocator(ctx)(64)
        objects["PooledSVM"] = cl_tools.SVMPool(cl_tools.SVMAllocator(ctx))(64)
    return objects


def test_instances_take_attributes(ctx, queue):
    # As PyOpenCL's own get_info caches and libraries (silx, grunnur) keep state on these objects.
    for kind, obj in _objects_taking_attributes(ctx, queue).items():
        obj.note = (kind, 42)
        assert obj.note == (kind, 42), kind
        assert vars(obj)["note"] == (kind, 42), kind
        setattr(obj, "_cache_of_" + kind.split()[0], [1, 2])
        assert getattr(obj, "_cache_of_" + kind.split()[0]) == [1, 2], kind
        del obj.note
        assert not hasattr(obj, "note"), kind
    queue.finish()


def test_read_only_properties_stay_read_only(ctx, queue):
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64)
    with pytest.raises(AttributeError):
        buf.size = 8
    assert buf.size == 64
    knl = cl.Kernel(cl.Program(ctx, AXPY).build(), "axpy")
    with pytest.raises(AttributeError):
        knl.num_args = 1
    assert knl.num_args == 3


def test_attributes_live_on_one_instance(ctx):
    a = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 16)
    b = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 16)
    a.owner = "a"
    assert not hasattr(b, "owner")
    with pytest.raises(AttributeError):
        b.owner  # noqa: B018


def test_context_is_weakly_referenceable(ctx):
    # Caches keyed by context (pyopencl.tools' memoization, loopy's) may hold it weakly.
    cache = weakref.WeakKeyDictionary()
    cache[ctx] = "compiled kernels"
    assert cache[ctx] == "compiled kernels"
    ref = weakref.ref(ctx)
    assert ref() is ctx


def test_a_library_adds_a_method_to_a_class(ctx, queue, rng):
    # What PyOpenCL does to its own classes at import, and libraries after it.
    def host_copy(self, queue, dtype):
        out = np.empty(self.size // np.dtype(dtype).itemsize, dtype)
        cl.enqueue_copy(queue, out, self)
        return out

    cl.Buffer.host_copy = host_copy
    try:
        x = rng.standard_normal(32).astype(np.float32)
        buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)
        np.testing.assert_array_equal(buf.host_copy(queue, np.float32), x)
    finally:
        del cl.Buffer.host_copy
    assert not hasattr(buf, "host_copy")


# ---- Buffer: an array type over it -------------------------------------------------------------


class DeviceArray(cl.Buffer):
    """A Buffer that knows its shape and dtype, as array libraries build them."""

    def __init__(self, context, shape, dtype, hostbuf=None):
        self.shape = tuple(shape)  # before the base is made, as some libraries do
        self.dtype = np.dtype(dtype)
        nbytes = int(np.prod(self.shape)) * self.dtype.itemsize
        flags = cl.mem_flags.READ_WRITE | (cl.mem_flags.COPY_HOST_PTR if hostbuf is not None else 0)
        super().__init__(context, flags, nbytes, hostbuf=hostbuf)

    @classmethod
    def to_device(cls, context, array):
        array = np.ascontiguousarray(array)
        return cls(context, array.shape, array.dtype, hostbuf=array)

    def get(self, queue):
        out = np.empty(self.shape, self.dtype)
        cl.enqueue_copy(queue, out, self)
        return out


def test_buffer_subclass_as_kernel_argument_and_copy_endpoint(ctx, queue, rng):
    x = rng.standard_normal(256).astype(np.float32)
    y = rng.standard_normal(256).astype(np.float32)
    x_dev, y_dev = DeviceArray.to_device(ctx, x), DeviceArray.to_device(ctx, y)
    assert isinstance(x_dev, cl.Buffer) and type(x_dev) is DeviceArray
    assert x_dev.size == x.nbytes and x_dev.shape == (256,) and vars(x_dev)["dtype"] == np.float32

    knl = cl.Kernel(cl.Program(ctx, AXPY).build(), "axpy")
    knl(queue, x.shape, None, y_dev, x_dev, np.float32(2.5))
    np.testing.assert_allclose(y_dev.get(queue), 2.5 * x + y, rtol=1e-6, atol=1e-6)

    # Between two subclass instances, with offsets that a wrong byte count would misplace.
    z_dev = DeviceArray(ctx, (256,), np.float32, hostbuf=np.zeros(256, np.float32))
    cl.enqueue_copy(queue, z_dev, x_dev, src_offset=4 * 10, dst_offset=4 * 100, byte_count=4 * 50)
    expected = np.zeros(256, np.float32)
    expected[100:150] = x[10:60]
    np.testing.assert_array_equal(z_dev.get(queue), expected)

    # Host into the middle of a subclass instance.
    cl.enqueue_copy(queue, z_dev, np.full(3, 7, np.float32), dst_offset=4 * 5)
    expected[5:8] = 7
    np.testing.assert_array_equal(z_dev.get(queue), expected)


def test_subclass_instances_are_weakly_referenceable(ctx):
    buf = DeviceArray(ctx, (4,), np.int32)
    ref = weakref.ref(buf)
    assert ref() is buf
    del buf
    assert ref() is None


# ---- Context and CommandQueue --------------------------------------------------------------


class TrackedContext(cl.Context):
    def __init__(self, devices):
        super().__init__(devices)
        self.allocated = 0

    def buffer(self, nbytes):
        self.allocated += nbytes
        return cl.Buffer(self, cl.mem_flags.READ_WRITE, nbytes)


class CountingQueue(cl.CommandQueue):
    def __init__(self, context, device=None, properties=0):
        super().__init__(context, device, properties)
        self.finishes = 0

    def finish(self):
        self.finishes += 1
        return super().finish()


def test_context_and_queue_subclasses(ctx, rng):
    context = TrackedContext(ctx.devices)
    assert isinstance(context, cl.Context) and context.devices == ctx.devices
    queue = CountingQueue(context, device=context.devices[0])
    x = rng.integers(-1000, 1000, 64).astype(np.int32)
    buf = context.buffer(x.nbytes)
    assert context.allocated == x.nbytes
    cl.enqueue_copy(queue, buf, x)
    # A program and an allocator of the subclassed context.
    doubled = cl_tools.DeferredAllocator(context)(x.nbytes)
    prg = cl.Program(context, SCALED).build(options=["-DSCALE=2"])
    prg.scaled(queue, x.shape, None, doubled, buf)
    out = np.empty_like(x)
    cl.enqueue_copy(queue, out, doubled, is_blocking=False)
    queue.finish()
    assert queue.finishes == 1
    np.testing.assert_array_equal(out, 2 * x + np.arange(64, dtype=np.int32))


def test_queue_as_context_manager_finishes_through_the_subclass(ctx, rng):
    x = rng.integers(0, 100, 1024).astype(np.int32)
    out = np.zeros_like(x)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)
    with CountingQueue(ctx) as queue:
        assert type(queue) is CountingQueue  # __enter__ gives the queue itself
        cl.enqueue_copy(queue, out, buf, is_blocking=False)
    assert queue.finishes == 1  # __exit__ called the subclass's finish
    np.testing.assert_array_equal(out, x)


def test_queue_context_manager_lets_exceptions_through(ctx):
    with pytest.raises(ValueError, match="from the block"):
        with CountingQueue(ctx) as queue:
            raise ValueError("from the block")
    assert queue.finishes == 1


# ---- Program and Kernel --------------------------------------------------------------------


class ScaledProgram(cl.Program):
    """Adds its own build options, as code generators wrap Program."""

    def __init__(self, context, source, scale):
        super().__init__(context, source)
        self.scale = scale
        self.builds = []

    def build(self, options=None, devices=None):
        options = [*(options or []), f"-DSCALE={self.scale}"]
        self.builds.append(options)
        return super().build(options=options)


class CachingProgram(cl.Program):
    """Keeps each kernel it finds as an attribute, as silx's and grunnur's wrappers do."""

    def __getattr__(self, name):
        knl = super().__getattr__(name)
        setattr(self, name, knl)
        return knl


class CountingKernel(cl.Kernel):
    def __init__(self, program, name):
        super().__init__(program, name)
        self.launches = []

    def __call__(self, queue, global_size, local_size, *args, **kwargs):
        self.launches.append(global_size)
        return super().__call__(queue, global_size, local_size, *args, **kwargs)


def test_program_subclass_build_returns_the_subclass_and_finds_kernels(ctx, queue, rng):
    prg = ScaledProgram(ctx, SCALED, scale=3).build(options=["-cl-mad-enable"])
    assert type(prg) is ScaledProgram and prg.builds == [["-cl-mad-enable", "-DSCALE=3"]]
    assert prg.scale == 3
    knl = prg.scaled  # found through attribute access, as on a Program
    assert isinstance(knl, cl.Kernel) and knl.function_name == "scaled"

    x = rng.integers(-500, 500, 128).astype(np.int32)
    x_dev = DeviceArray.to_device(ctx, x)
    out_dev = DeviceArray(ctx, x.shape, np.int32)
    knl(queue, x.shape, None, out_dev, x_dev)
    np.testing.assert_array_equal(out_dev.get(queue), 3 * x + np.arange(128, dtype=np.int32))

    with pytest.raises(AttributeError):
        prg.no_such_kernel  # noqa: B018
    assert not hasattr(prg, "no_such_kernel")


def test_program_subclass_passes_on_the_default_options(ctx, queue, rng):
    # An override with PyOpenCL's defaults hands options=None on to the base.
    class LoggedProgram(cl.Program):
        def build(self, options=None, devices=None, cache_dir=None):
            self.options_seen = options
            return super().build(options)

    prg = LoggedProgram(ctx, AXPY).build()
    assert prg.options_seen is None
    x = rng.standard_normal(32).astype(np.float32)
    y_dev = DeviceArray.to_device(ctx, np.full(32, 2, np.float32))
    prg.axpy(queue, x.shape, None, y_dev, DeviceArray.to_device(ctx, x), np.float32(4.0))
    np.testing.assert_allclose(y_dev.get(queue), 4.0 * x + 2, rtol=1e-6, atol=1e-6)


def test_program_subclass_caching_kernels_in_its_dict(ctx, queue, rng):
    prg = CachingProgram(ctx, AXPY).build()
    first = prg.axpy
    assert prg.axpy is first and vars(prg)["axpy"] is first
    x = rng.standard_normal(64).astype(np.float32)
    y_dev = DeviceArray.to_device(ctx, np.ones(64, np.float32))
    first(queue, x.shape, None, y_dev, DeviceArray.to_device(ctx, x), np.float32(-1.0))
    np.testing.assert_allclose(y_dev.get(queue), 1.0 - x, rtol=1e-6, atol=1e-6)


def test_kernel_subclass_called_through_call(ctx, queue, rng):
    prg = ScaledProgram(ctx, SCALED, scale=-2).build()
    knl = CountingKernel(prg, "scaled")  # a Kernel of a Program subclass
    knl.tag = "mine"
    x = rng.integers(-500, 500, 96).astype(np.int32)
    x_dev = DeviceArray.to_device(ctx, x)
    out_dev = DeviceArray(ctx, x.shape, np.int32)
    evt = knl(queue, (96,), None, out_dev, x_dev)
    evt.wait()
    assert knl.launches == [(96,)] and knl.tag == "mine"
    np.testing.assert_array_equal(out_dev.get(queue), -2 * x + np.arange(96, dtype=np.int32))


class Scratch(cl.LocalMemory):
    def __init__(self, dtype, count):
        super().__init__(np.dtype(dtype).itemsize * count)
        self.count = count


def test_local_memory_subclass_as_kernel_argument(ctx, queue, rng):
    group = 16
    x = rng.integers(-1000, 1000, 8 * group).astype(np.int32)
    x_dev = DeviceArray.to_device(ctx, x)
    sums_dev = DeviceArray(ctx, (8,), np.int32)
    scratch = Scratch(np.int32, group)
    assert scratch.size == 4 * group and scratch.count == group
    knl = CountingKernel(cl.Program(ctx, GROUP_SUMS).build(), "group_sums")
    knl(queue, x.shape, (group,), x_dev, sums_dev, scratch)
    np.testing.assert_array_equal(sums_dev.get(queue), x.reshape(8, group).sum(axis=1))


# ---- Events ----------------------------------------------------------------------------------


def test_event_subclass_and_events_that_carry_state(ctx, queue, rng):
    class TimedEvent(cl.Event):
        pass

    assert issubclass(TimedEvent, cl.Event)
    with pytest.raises(TypeError):
        TimedEvent()  # neither library makes an Event from nothing
    x = rng.integers(0, 1 << 20, 512).astype(np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, x.nbytes)
    upload = cl.enqueue_copy(queue, buf, x, is_blocking=False)
    upload.label = "upload"  # a host copy's event takes attributes in both libraries
    out = np.empty_like(x)
    download = cl.enqueue_copy(queue, out, buf, is_blocking=False, wait_for=[upload])
    assert isinstance(download, cl.Event) and upload.label == "upload"
    download.wait()
    np.testing.assert_array_equal(out, x)


# ---- allocators and pools --------------------------------------------------------------------


def empty(shape, dtype, allocator):
    """What pyopencl.array.empty does with allocator=: the allocator is called with the byte
    count and its result is the array's memory."""
    return allocator(int(np.prod(shape)) * np.dtype(dtype).itemsize)


class CountingAllocator(cl_tools.ImmediateAllocator):
    def __init__(self, queue):
        super().__init__(queue)
        self.requests = []

    def __call__(self, size):
        self.requests.append(size)
        return super().__call__(size)


class TrackingPool(cl_tools.MemoryPool):
    def __init__(self, allocator, leading_bits_in_bin_id=4):
        super().__init__(allocator, leading_bits_in_bin_id)
        self.handed_out = 0

    def __call__(self, size):
        self.handed_out += size
        return super().__call__(size)


def _axpy_with_allocator(ctx, queue, allocator, rng, n):
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    x_dev, y_dev = empty((n,), np.float32, allocator), empty((n,), np.float32, allocator)
    cl.enqueue_copy(queue, x_dev, x)
    cl.enqueue_copy(queue, y_dev, y)
    cl.Kernel(cl.Program(ctx, AXPY).build(), "axpy")(queue, (n,), None, y_dev, x_dev, np.float32(0.5))
    out = np.empty(n, np.float32)
    cl.enqueue_copy(queue, out, y_dev)
    np.testing.assert_allclose(out, 0.5 * x + y, rtol=1e-6, atol=1e-6)


def test_allocator_subclass_as_allocator_argument(ctx, queue, rng):
    allocator = CountingAllocator(queue)
    allocator.purpose = "scratch"  # a subclass instance takes attributes
    _axpy_with_allocator(ctx, queue, allocator, rng, 200)
    assert allocator.requests == [800, 800] and allocator.purpose == "scratch"
    assert allocator(0) is None  # zero bytes: no buffer, through the subclass too
    assert allocator.requests[-1] == 0


def test_pool_subclass_over_an_allocator_subclass(ctx, queue, rng):
    pool = TrackingPool(CountingAllocator(queue))
    _axpy_with_allocator(ctx, queue, pool, rng, 300)
    assert pool.handed_out == 2 * 300 * 4
    assert pool.active_blocks == 0 and pool.held_blocks == 2  # both came back to the pool
    block = pool(1200)
    assert block.size >= 1200 and pool.handed_out == 3600 and pool.held_blocks == 1
    block.owner = pool  # a PooledBuffer takes attributes
    block.release()


# ---- SVM ------------------------------------------------------------------------------------


class TaggedSVM(cl.SVMAllocation):
    def __init__(self, context, size, tag):
        super().__init__(context, size, 0, cl.svm_mem_flags.READ_WRITE)
        self.tag = tag


class CountingSVMPool(cl_tools.SVMPool):
    def __init__(self, allocator):
        super().__init__(allocator)
        self.calls = 0

    def __call__(self, size):
        self.calls += 1
        return super().__call__(size)


def test_svm_subclasses(ctx, queue, rng):
    _needs_svm(ctx)
    n = 128
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    x_svm = TaggedSVM(ctx, x.nbytes, tag="x")
    assert isinstance(x_svm, cl.SVMPointer) and x_svm.tag == "x" and x_svm.size == x.nbytes
    cl.enqueue_copy(queue, x_svm, x)
    pool = CountingSVMPool(cl_tools.SVMAllocator(ctx, queue=queue))
    y_svm = pool(y.nbytes)
    y_svm.note = "from the pool"
    cl.enqueue_copy(queue, y_svm, y)
    cl.Kernel(cl.Program(ctx, AXPY).build(), "axpy")(queue, (n,), None, y_svm, x_svm, np.float32(-3.0))
    out = np.empty(n, np.float32)
    cl.enqueue_copy(queue, out, y_svm)
    np.testing.assert_allclose(out, -3.0 * x + y, rtol=1e-6, atol=1e-6)
    assert pool.calls == 1 and y_svm.note == "from the pool"
    y_svm.release()
    x_svm.release()


def test_array_subclass_views_and_results_keep_the_subclass(ctx, queue, rng):
    # As arraycontext's TaggableCLArray: a subclass whose constructor takes an extra keyword
    # and forwards every argument of PyOpenCL's Array, the private fast-path ones included.
    if ORIGINAL:
        import pyopencl.array as cla
    else:
        import gpukit.cl.array as cla

    class TaggedArray(cla.Array):
        def __init__(self, cq, shape, dtype, order="C", allocator=None, data=None, offset=0, strides=None,
                     events=None, _flags=None, _fast=False, _size=None, _context=None, _queue=None,
                     tags=frozenset()):  # fmt: skip
            super().__init__(cq, shape, dtype, order=order, allocator=allocator, data=data, offset=offset,
                             strides=strides, events=events, _flags=_flags, _fast=_fast, _size=_size,
                             _context=_context, _queue=_queue)  # fmt: skip
            self.tags = tags

    host = rng.standard_normal((6, 5)).astype(np.float32)
    a = TaggedArray(queue, host.shape, host.dtype, tags=frozenset({"x"}))
    a.set(host)
    for result, expected in [
        (a[1:], host[1:]),
        (a.reshape(5, 6), host.reshape(5, 6)),
        (a + 1, host + 1),
        (2 * a, 2 * host),
        (a.with_queue(queue), host),
        (a._new_like_me().fill(3), np.full_like(host, 3)),
    ]:
        assert type(result) is TaggedArray
        np.testing.assert_allclose(result.get(), expected, rtol=1e-6)
