"""PyOpenCL's names beyond the basics, as PyOpenCL's own tests use them: version questions
(get_cl_header_version, _get_cl_version), the device's model identifier, pyopencl.tools' C
type registry and context_dependent_memoize, barriers and wait_for_events, Program.get_info,
and the LogicError of a bare Python kernel argument; on every OpenCL device. The results also
hold on PyOpenCL itself (GPUKIT_PYOPENCL_ORIGINAL=1)."""

import gc
import re
import warnings

import numpy as np
import pytest

from cl_either import DEVICE_NAMES, ORIGINAL, cl, ctx, needs_device  # noqa: F401  (ctx: a fixture)
from cl_either import cl_tools as tools

pytestmark = pytest.mark.opencl


def _version_of(text):
    major, minor = re.match(r"OpenCL (\d+)\.(\d+)", text).groups()
    return int(major), int(minor)


def test_header_version_is_a_pair_of_ints():
    major, minor = cl.get_cl_header_version()
    assert (major, minor) >= (1, 2) and isinstance(minor, int)
    assert cl._PYPY is False


@needs_device
def test_each_object_answers_its_opencl_version(ctx):
    device = ctx.devices[0]
    queue = cl.CommandQueue(ctx)
    assert device._get_cl_version() == _version_of(device.version)
    assert device.platform._get_cl_version() == _version_of(device.platform.version)
    assert ctx._get_cl_version() == device.platform._get_cl_version()
    assert queue._get_cl_version() == device._get_cl_version()


@needs_device
def test_the_model_identifier_names_vendor_model_and_version(ctx):
    device = ctx.devices[0]
    ident = device.hashable_model_and_version_identifier
    assert ident == ("v1", device.vendor, device.vendor_id, device.name, device.version)
    hash(ident)
    with pytest.warns(DeprecationWarning, match="persistent_unique_id"):
        assert device.persistent_unique_id == ident


def test_opencl_c_type_names():
    expected = {
        np.int8: "char",
        np.uint8: "uchar",
        np.int16: "short",
        np.uint16: "ushort",
        np.int32: "int",
        np.uint32: "uint",
        np.int64: "long",
        np.uint64: "ulong",
        np.float32: "float",
        np.float64: "double",
        np.complex64: "cfloat_t",
        np.complex128: "cdouble_t",
    }
    for dtype, name in expected.items():
        assert tools.dtype_to_ctype(np.dtype(dtype)) == name, dtype
        assert tools.get_or_register_dtype(name) == np.dtype(dtype)
    for name, dtype in [
        ("unsigned char", np.uint8),
        ("signed char", np.int8),
        ("unsigned long", np.uint64),
        ("long int", np.int64),
        ("unsigned", np.uint32),
        ("intptr_t", np.int64),
    ]:
        assert tools.get_or_register_dtype(name) == np.dtype(dtype), name
    with pytest.raises(ValueError):
        tools.dtype_to_ctype(np.dtype(np.bool_))  # OpenCL C kernels take no bool
    with pytest.raises(KeyError):
        tools.get_or_register_dtype("no_such_type_here")


def test_registering_a_struct_names_it():
    point = np.dtype([("x", np.float32), ("y", np.float32)])
    assert tools.get_or_register_dtype("gk_test_point", point) == point
    assert tools.get_or_register_dtype("gk_test_point") == point
    assert tools.dtype_to_ctype(point) == "gk_test_point"


@needs_device
def test_context_dependent_memoize_caches_per_context(ctx):
    calls = []

    @tools.context_dependent_memoize
    def build(context, n=1):
        calls.append((context, n))
        return object()

    first = build(ctx)
    assert build(ctx) is first and len(calls) == 1
    assert build(ctx, 2) is not first and len(calls) == 2
    other = cl.Context(ctx.devices)
    assert build(other) is not first and len(calls) == 3


@pytest.mark.skipif(ORIGINAL, reason="gpukit's checks")
@needs_device
def test_context_dependent_memoize_refuses_a_non_context_and_lets_contexts_go(ctx):
    @tools.context_dependent_memoize
    def build(context):
        return [context.devices[0].name]

    with pytest.raises(TypeError, match="needs a gpukit.cl.Context as the first argument, got int"):
        build(5)
    other = cl.Context(ctx.devices)
    build(other)
    del other
    gc.collect()
    assert len(tools._first_arg_caches[-1]) == 0  # held weakly: gone with the context
    build(ctx)
    tools.clear_first_arg_caches()
    assert len(tools._first_arg_caches[-1]) == 0


@needs_device
def test_barriers_markers_and_waiting_for_events(ctx):
    queue = cl.CommandQueue(ctx)
    host = np.arange(1000, dtype=np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, host.nbytes)
    written = cl.enqueue_copy(queue, buf, host, is_blocking=False)
    barrier = cl.enqueue_barrier(queue, wait_for=[written])
    marker = cl.enqueue_marker(queue, wait_for=[barrier])
    cl.enqueue_barrier(queue)
    out = np.empty_like(host)
    read = cl.enqueue_copy(queue, out, buf, is_blocking=False, wait_for=[marker])
    cl.wait_for_events([written, barrier, marker, read])
    np.testing.assert_array_equal(out, host)
    with pytest.raises(cl.LogicError):  # OpenCL's clWaitForEvents takes at least one
        cl.wait_for_events([])


@pytest.mark.skipif(ORIGINAL, reason="gpukit's messages")
@needs_device
def test_wait_for_events_takes_a_sequence_of_events(ctx):
    marker = cl.enqueue_marker(cl.CommandQueue(ctx))
    with pytest.raises(TypeError, match="item 1 is a int; expected gpukit.cl.Event"):
        cl.wait_for_events([marker, 5])
    with pytest.raises(TypeError, match="must be a sequence of gpukit.cl.Event, got .*Event"):
        cl.wait_for_events(marker)


TWO_KERNELS = """
__kernel void twice(__global int *x) { x[get_global_id(0)] *= 2; }
__kernel void thrice(__global int *x) { x[get_global_id(0)] *= 3; }
"""


@needs_device
def test_program_info_by_get_info_and_by_attribute(ctx):
    prg = cl.Program(ctx, TWO_KERNELS).build()
    info = cl.program_info
    assert sorted(prg.get_info(info.KERNEL_NAMES).split(";")) == ["thrice", "twice"]
    assert prg.kernel_names == prg.get_info(info.KERNEL_NAMES)
    assert prg.num_kernels == prg.get_info(info.NUM_KERNELS) == 2
    assert prg.num_devices == 1 and prg.devices == ctx.devices
    assert prg.get_info(info.CONTEXT) == prg.context == ctx
    assert prg.source == TWO_KERNELS and prg.reference_count >= 1
    sizes, binaries = prg.binary_sizes, prg.binaries
    assert len(binaries) == 1 and isinstance(binaries[0], bytes) and len(binaries[0]) == sizes[0] > 0
    assert prg.twice.function_name == "twice"  # kernels still come by attribute
    with pytest.raises(AttributeError):
        prg.no_such_kernel_or_info


@pytest.mark.skipif(ORIGINAL, reason="gpukit's messages")
@needs_device
def test_program_info_refusals(ctx):
    prg = cl.Program(ctx, TWO_KERNELS)
    assert prg.source == TWO_KERNELS  # before build, as OpenCL answers
    with pytest.raises(cl.LogicError, match=r"parameter 9999 is not supported; expected program_info.REFERENCE_COUNT"):
        prg.get_info(9999)
    with pytest.raises(AttributeError, match="kernels are attributes only after build"):
        prg.twice
    prg.build()
    with pytest.raises(AttributeError, match="no kernel or program_info attribute 'nope'; its kernels are: "):
        prg.nope


@needs_device
def test_a_bare_python_number_is_no_kernel_argument(ctx):
    prg = cl.Program(
        ctx, "__kernel void mult(__global float *a, float b, int c) { a[get_global_id(0)] *= (b + c); }"
    ).build()
    queue = cl.CommandQueue(ctx)
    host = np.arange(64, dtype=np.float32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
    for b in (2, 2.0):
        with pytest.raises(cl.LogicError):  # PyOpenCL's class for it
            prg.mult(queue, host.shape, None, buf, b, 3)
    prg.mult(queue, host.shape, None, buf, np.float32(2), np.int32(3))
    out = np.empty_like(host)
    cl.enqueue_copy(queue, out, buf)
    np.testing.assert_array_equal(out, host * 5)


@pytest.mark.skipif(ORIGINAL, reason="gpukit's class")
@needs_device
def test_the_kernel_argument_error_is_also_a_type_error(ctx):
    knl = cl.Program(ctx, "__kernel void f(float b) { }").build().f
    with pytest.raises(TypeError, match=r"argument 0 \('b', float\) of kernel 'f' is a int") as caught:
        knl(cl.CommandQueue(ctx), (1,), None, 2)
    assert isinstance(caught.value, cl.KernelArgumentError) and caught.value.routine == "clSetKernelArg"


@needs_device
def test_a_queue_used_after_its_with_block_warns_and_still_runs(ctx):
    host = np.arange(32, dtype=np.int32)
    with cl.CommandQueue(ctx) as queue:
        buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, host.nbytes)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no warning inside the block
            cl.enqueue_copy(queue, buf, host)
    with pytest.warns(cl.CommandQueueUsedAfterExit):
        queue.flush()
    out = np.empty_like(host)
    with pytest.warns(cl.CommandQueueUsedAfterExit):
        cl.enqueue_copy(queue, out, buf)
    np.testing.assert_array_equal(out, host)
    with pytest.warns(cl.CommandQueueUsedAfterExit):
        cl.enqueue_marker(queue)
    queue.finish()  # already finished when the block ended


@needs_device
def test_get_info_of_each_object_agrees_with_its_attributes(ctx):
    device = ctx.devices[0]
    platform = device.platform
    assert platform.get_info(cl.platform_info.NAME) == platform.name
    assert platform.get_info(cl.platform_info.VERSION) == platform.version
    assert device.get_info(cl.device_info.NAME) == device.name
    assert device.get_info(cl.device_info.MAX_COMPUTE_UNITS) == device.max_compute_units
    assert device.get_info(cl.device_info.GLOBAL_MEM_SIZE) == device.global_mem_size
    assert device.get_info(cl.device_info.PLATFORM) == platform
    assert device.get_info(cl.device_info.TYPE) == device.type
    sizes = device.get_info(cl.device_info.MAX_WORK_ITEM_SIZES)
    assert len(sizes) == device.max_work_item_dimensions and max(sizes) >= 1
    assert device.address_bits in (32, 64) and device.mem_base_addr_align >= 8
    assert device.queue_properties & cl.command_queue_properties.PROFILING_ENABLE
    assert device.parent_device is None
    assert ctx.get_info(cl.context_info.DEVICES) == ctx.devices and ctx.num_devices == 1
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    assert queue.get_info(cl.command_queue_info.DEVICE) == device
    assert queue.get_info(cl.command_queue_info.CONTEXT) == ctx
    assert queue.properties == cl.command_queue_properties.PROFILING_ENABLE
    prg = cl.Program(ctx, TWO_KERNELS).build()
    assert prg.get_build_info(device, cl.program_build_info.STATUS) == 0  # CL_BUILD_SUCCESS
    assert isinstance(prg.get_build_info(device, cl.program_build_info.LOG), str)
    kernels = prg.all_kernels()
    assert sorted(k.function_name for k in kernels) == ["thrice", "twice"]
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64)
    evt = kernels[0](queue, (16,), None, buf)
    evt.wait()
    assert evt.get_info(cl.event_info.COMMAND_QUEUE) == queue
    assert evt.get_info(cl.event_info.CONTEXT) == ctx
    assert evt.get_info(cl.event_info.COMMAND_EXECUTION_STATUS) == 0  # CL_COMPLETE
    assert evt.command_type == evt.get_info(cl.event_info.COMMAND_TYPE)
    start, end = (evt.get_profiling_info(getattr(cl.profiling_info, n)) for n in ("START", "END"))
    assert 0 < start <= end
    with pytest.raises(AttributeError):
        device.no_such_thing


def test_constants_are_classes_of_plain_ints():
    for info in (
        cl.platform_info,
        cl.device_info,
        cl.context_info,
        cl.command_queue_info,
        cl.event_info,
        cl.profiling_info,
        cl.program_info,
        cl.program_build_info,
        cl.mem_info,
        cl.kernel_info,
        cl.kernel_work_group_info,
    ):
        names = [n for n in dir(info) if not n.startswith("_") and n != "to_string"]
        assert names, info
        for name in names:
            value = getattr(info, name)
            assert type(value) is int, (info, name)
        assert info.to_string(getattr(info, names[0])) == names[0]
    assert cl.device_info.to_string(0x1002) == "MAX_COMPUTE_UNITS"
    assert cl.device_info.to_string(0x7FFFFF, "<unknown %d>") == f"<unknown {0x7FFFFF}>"
    with pytest.raises(ValueError, match="was not found in device_info"):
        cl.device_info.to_string(0x7FFFFF)


@needs_device
def test_a_user_event_holds_back_the_commands_that_wait_for_it(ctx):
    import threading

    queue = cl.CommandQueue(ctx)
    host = np.arange(256, dtype=np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
    prg = cl.Program(ctx, TWO_KERNELS).build()
    gate = cl.UserEvent(ctx)
    assert isinstance(gate, cl.Event)
    assert gate.command_execution_status == cl.command_execution_status.SUBMITTED
    called = []
    done = threading.Event()

    def on_complete(status):
        called.append(status)
        done.set()

    evt = prg.twice(queue, host.shape, None, buf, wait_for=[gate])
    evt.set_callback(cl.command_execution_status.COMPLETE, on_complete)
    waited = threading.Thread(target=evt.wait)
    waited.start()
    waited.join(0.2)
    assert waited.is_alive() and not called  # held back by the gate
    gate.set_status(cl.command_execution_status.COMPLETE)
    waited.join(30)
    assert not waited.is_alive()
    assert done.wait(30) and called == [cl.command_execution_status.COMPLETE]
    out = np.empty_like(host)
    cl.enqueue_copy(queue, out, buf)
    np.testing.assert_array_equal(out, host * 2)
    assert gate.command_execution_status == cl.command_execution_status.COMPLETE


@pytest.mark.skipif(ORIGINAL, reason="gpukit's behaviour: PyOpenCL's queue would wait forever")
@needs_device
def test_a_user_event_dropped_without_status_fails_its_waiters(ctx):
    queue = cl.CommandQueue(ctx)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 1024)
    prg = cl.Program(ctx, TWO_KERNELS).build()
    gate = cl.UserEvent(ctx)
    evt = prg.twice(queue, (256,), None, buf, wait_for=[gate])
    del gate
    gc.collect()
    with pytest.raises(cl.Error):
        evt.wait()  # failed, not hung
    assert evt.command_execution_status < 0


@pytest.mark.skipif(ORIGINAL, reason="gpukit's messages")
@needs_device
def test_user_event_and_callback_refusals(ctx):
    gate = cl.UserEvent(ctx)
    with pytest.raises(cl.LogicError, match="status 3 is not one a program may set"):
        gate.set_status(cl.command_execution_status.QUEUED)
    with pytest.raises(cl.LogicError, match="type 3 is not a status OpenCL reports"):
        gate.set_callback(3, print)
    with pytest.raises(TypeError):
        gate.set_callback(cl.command_execution_status.COMPLETE, "not callable")
    gate.set_status(cl.command_execution_status.COMPLETE)
    with pytest.raises(cl.LogicError, match="the status is set already"):
        gate.set_status(cl.command_execution_status.COMPLETE)


@needs_device
def test_sub_buffers_are_slices_of_the_buffer(ctx):
    queue = cl.CommandQueue(ctx)
    align = ctx.devices[0].mem_base_addr_align // 8  # bits, as OpenCL gives it
    host = (np.arange(40 * align) % 251).astype(np.uint8)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
    start, stop = 3 * align, 23 * align
    for sub in (buf[start:stop], buf.get_sub_region(start, stop - start)):
        assert sub.size == stop - start
        out = np.empty(stop - start, np.uint8)
        cl.enqueue_copy(queue, out, sub)
        np.testing.assert_array_equal(out, host[start:stop])
    # writing through a sub-buffer writes the parent's bytes
    cl.enqueue_copy(queue, buf[align : 2 * align], np.full(align, 7, np.uint8))
    whole = np.empty_like(host)
    cl.enqueue_copy(queue, whole, buf)
    expected = host.copy()
    expected[align : 2 * align] = 7
    np.testing.assert_array_equal(whole, expected)
    assert buf[start:].size == host.size - start


@pytest.mark.skipif(ORIGINAL, reason="gpukit's messages")
@needs_device
def test_sub_buffer_refusals(ctx):
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4096)
    with pytest.raises(ValueError, match="step 1"):
        buf[0:1024:2]
    with pytest.raises(TypeError, match="slice of bytes, got int"):
        buf[5]
    with pytest.raises(cl.LogicError, match="is empty"):
        buf[100:100]
    with pytest.raises(cl.LogicError, match="outside the parent buffer"):
        buf.get_sub_region(4000, 200)
    # The standard refuses an origin off every device's mem_base_addr_align; NVIDIA's OpenCL
    # takes it. Either it is refused with a message that says why, or it reads right.
    try:
        misaligned = buf.get_sub_region(1, 16)
    except cl.LogicError as error:
        assert "multiple of the devices' mem_base_addr_align" in str(error)
    else:
        queue = cl.CommandQueue(ctx)
        cl.enqueue_copy(queue, buf, np.arange(32, dtype=np.uint8))
        out = np.zeros(16, np.uint8)
        cl.enqueue_copy(queue, out, misaligned)
        np.testing.assert_array_equal(out, np.arange(1, 17, dtype=np.uint8))


def test_unload_platform_compiler():
    platforms = cl.get_platforms() if DEVICE_NAMES else []
    for platform in platforms:
        cl.unload_platform_compiler(platform)  # and a later build still works
    if platforms:
        ctx = cl.Context([platforms[0].get_devices()[0]])
        assert cl.Program(ctx, TWO_KERNELS).build().num_kernels == 2


@needs_device
def test_a_program_made_from_its_binaries_runs(ctx):
    device = ctx.devices[0]
    built = cl.Program(ctx, TWO_KERNELS).build()
    again = cl.Program(ctx, [device], built.binaries).build()
    queue = cl.CommandQueue(ctx)
    host = np.arange(64, dtype=np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
    again.thrice(queue, host.shape, None, buf)
    out = np.empty_like(host)
    cl.enqueue_copy(queue, out, buf)
    np.testing.assert_array_equal(out, host * 3)


@pytest.mark.skipif(ORIGINAL, reason="gpukit's messages")
@needs_device
def test_program_from_binaries_refusals(ctx):
    device = ctx.devices[0]
    with pytest.raises(cl.LogicError, match="1 device\\(s\\) and 2 binaries"):
        cl.Program(ctx, [device], [b"x", b"y"])
    with pytest.raises(cl.LogicError, match="binary 0 is empty"):
        cl.Program(ctx, [device], [b""])
    # PoCL refuses a bad binary at once; NVIDIA's OpenCL takes it and fails the build.
    with pytest.raises((cl.LogicError, cl.RuntimeError), match="OpenCL refused binary 0|clBuildProgram"):
        cl.Program(ctx, [device], [b"not a binary at all"]).build()
    with pytest.raises(TypeError, match="binaries must be a sequence of bytes"):
        cl.Program(ctx, [device], b"abc")
    with pytest.raises(TypeError, match="source must be a str of OpenCL C, got int"):
        cl.Program(ctx, 5)


@needs_device
def test_compile_and_link_as_separate_steps(ctx):
    queue = cl.CommandQueue(ctx)
    scale = cl.Program(ctx, "int scale_of(int x) { return 3 * x + OFFSET; }").compile(options=["-D", "OFFSET=2"])
    header = cl.Program(ctx, "int scale_of(int x);\n")
    main = cl.Program(
        ctx,
        '#include "scale.h"\n'
        "__kernel void apply(__global int *x) { x[get_global_id(0)] = scale_of(x[get_global_id(0)]); }",
    ).compile(headers=[("scale.h", header)])
    linked = cl.link_program(ctx, [scale, main], devices=ctx.devices)
    host = np.arange(100, dtype=np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
    linked.apply(queue, host.shape, None, buf)
    out = np.empty_like(host)
    cl.enqueue_copy(queue, out, buf)
    np.testing.assert_array_equal(out, 3 * host + 2)


@pytest.mark.skipif(ORIGINAL, reason="gpukit's messages")
@needs_device
def test_compile_and_link_failures_carry_their_logs(ctx):
    with pytest.raises(cl.RuntimeError, match="did not compile") as caught:
        cl.Program(ctx, "int broken( { }").compile()
    assert caught.value.build_log
    lonely = cl.Program(ctx, "int missing(int);\n__kernel void k(__global int *x) { x[0] = missing(1); }").compile()
    with pytest.raises(cl.RuntimeError, match="did not link"):
        cl.link_program(ctx, [lonely])
    with pytest.raises(TypeError, match=r"item 0 must be a \(name, Program\) pair"):
        cl.Program(ctx, "int f(void) { return 1; }").compile(headers=[("a.h", "int g(void);")])
    with pytest.raises(TypeError, match="item 0 is a str; expected a Program"):
        cl.link_program(ctx, ["not a program"])
    with pytest.raises(cl.LogicError, match="no programs"):
        cl.link_program(ctx, [])


@needs_device
def test_fills_write_the_pattern_over_the_range(ctx):
    queue = cl.CommandQueue(ctx)
    host = np.arange(96, dtype=np.float32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
    cl.enqueue_fill_buffer(queue, buf, np.float32(2.5), 8 * 4, 40 * 4)
    pair = np.array([1.0, -1.0], np.float32)
    cl.enqueue_fill(queue, buf, pair, 8 * 4, offset=80 * 4)
    out = np.empty_like(host)
    cl.enqueue_copy(queue, out, buf)
    expected = host.copy()
    expected[8:48] = 2.5
    expected[80:88] = np.tile(pair, 4)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.skipif(ORIGINAL, reason="gpukit's messages")
@needs_device
def test_fill_refusals(ctx):
    queue = cl.CommandQueue(ctx)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 256)
    with pytest.raises(cl.LogicError, match="pattern has 3 bytes; expected 1, 2, 4"):
        cl.enqueue_fill_buffer(queue, buf, np.zeros(3, np.uint8), 0, 12)
    with pytest.raises(cl.LogicError, match="must be multiples of the pattern's 4 bytes"):
        cl.enqueue_fill_buffer(queue, buf, np.float32(0), 2, 8)
    with pytest.raises(cl.LogicError, match="outside the destination buffer"):
        cl.enqueue_fill_buffer(queue, buf, np.float32(0), 0, 512)
    with pytest.raises(TypeError, match="must be a Buffer or SVM, got ndarray"):
        cl.enqueue_fill(queue, np.zeros(4), np.float32(0), 16)


@pytest.mark.skipif(ORIGINAL, reason="PyOpenCL 2026.1.4 fills the whole allocation whatever byte_count says")
@needs_device
def test_svm_fill(ctx):
    if not ctx.devices[0].svm_capabilities:
        pytest.skip("the device has no SVM")
    queue = cl.CommandQueue(ctx)
    svm = cl.SVMAllocation(ctx, 256, 0, cl.svm_mem_flags.READ_WRITE, queue)
    cl.enqueue_svm_memfill(queue, svm, np.uint32(0xDEADBEEF))
    cl.enqueue_fill(queue, svm, np.uint32(7), 64)
    out = np.empty(64, np.uint32)
    cl.enqueue_copy(queue, out, svm)
    expected = np.full(64, 0xDEADBEEF, np.uint32)
    expected[:16] = 7
    np.testing.assert_array_equal(out, expected)


def test_status_codes_are_opencls_numbers_with_names():
    assert cl.status_code.SUCCESS == 0
    assert cl.status_code.IMAGE_FORMAT_NOT_SUPPORTED == -10
    assert cl.status_code.INVALID_OPERATION == -59
    assert cl.status_code.to_string(-59) == "INVALID_OPERATION"
    assert cl.status_code.PLATFORM_NOT_FOUND_KHR == -1001
