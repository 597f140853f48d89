"""gpukit.cl.tools and gpukit.cl.characterize on whatever OpenCL platform is installed (PoCL in CI)."""

import gc
import itertools
import os
import subprocess
import sys
import types
import warnings
from pathlib import Path

import numpy as np
import pytest

import gpukit.cl as cl
from cl_devices import ctx, why_no_opencl  # noqa: F401  (ctx: a fixture, one context per OpenCL device)
import gpukit.cl.characterize as characterize
import gpukit.cl.tools as tools


pytestmark = [pytest.mark.opencl, pytest.mark.skipif(why_no_opencl() is not None, reason=str(why_no_opencl()))]

SCALE_SOURCE = """
__kernel void scale(__global float *out, __global const float *in, float factor) {
    const size_t i = get_global_id(0);
    out[i] = in[i] * factor;
}
"""


@pytest.fixture
def queue(ctx):
    return cl.CommandQueue(ctx)


@pytest.fixture
def rng():
    return np.random.default_rng(99)


def _svm_device(ctx):
    device = ctx.devices[0]
    if device.svm_capabilities == 0:
        pytest.skip(f"device {device.name!r} reports no SVM capabilities")
    return device


def test_allocators_make_buffers(ctx, queue):
    for allocator in (tools.DeferredAllocator(ctx), tools.ImmediateAllocator(queue, cl.mem_flags.READ_ONLY)):
        assert isinstance(allocator, tools.AllocatorBase)
        buffer = allocator(100)
        assert isinstance(buffer, cl.Buffer) and buffer.size == 100
        assert allocator(0) is None  # the seed: "returning None" for zero-size allocations
    assert tools.ImmediateAllocator(queue, cl.mem_flags.READ_ONLY)(8).flags == cl.mem_flags.READ_ONLY


def test_pool_counters_bins_and_reuse(queue):
    pool = tools.MemoryPool(tools.ImmediateAllocator(queue))
    block = pool.allocate(1000)
    assert isinstance(block, tools.PooledBuffer) and isinstance(block, cl.Buffer)
    assert block.size == 1023  # the cl_mem's size, the bin's block size, as PyOpenCL reports
    assert block.get_info(cl.mem_info.SIZE) == 1023
    first = block.int_ptr
    assert (pool.active_blocks, pool.held_blocks, pool.active_bytes) == (1, 0, 1000)
    del block
    gc.collect()
    assert (pool.active_blocks, pool.held_blocks) == (0, 1)
    assert pool.managed_bytes == pool.alloc_size(pool.bin_number(1000)) == 1023
    again = pool(1023)
    assert again.int_ptr == first  # the same cl_mem, straight from the bin
    again.release()
    assert again.int_ptr == 0 and pool.held_blocks == 1
    pool.free_held()
    assert pool.held_blocks == 0 and pool.managed_bytes == 0
    pool.stop_holding()
    pool.allocate(64).release()
    assert pool.held_blocks == 0
    assert tools.MemoryPool(tools.ImmediateAllocator(queue), leading_bits_in_bin_id=2).leading_bits_in_bin_id == 2


# PyOpenCL's documented scheme: a request is rounded up to the largest size sharing its leading
# 1 + leading_bits_in_bin_id bits. (size, bin_number, alloc_size) as PyOpenCL 2026.1 gives them.
BIN_VALUES = [
    (0, 0, 1),
    (1, 0, 1),
    (2, 16, 2),
    (3, 24, 3),
    (15, 62, 15),
    (16, 64, 16),
    (17, 65, 17),
    (31, 79, 31),
    (32, 80, 33),
    (33, 80, 33),
    (1000, 159, 1023),
    (1023, 159, 1023),
    (1024, 160, 1087),
    (4096, 192, 4351),
    (4351, 192, 4351),
    (4352, 193, 4607),
    (1 << 20, 320, 1114111),
]


def test_pool_bins_are_pyopencl_s(ctx, queue):
    pools = [tools.MemoryPool(tools.ImmediateAllocator(queue))]
    if ctx.devices[0].svm_capabilities:
        pools.append(tools.SVMPool(tools.SVMAllocator(ctx, queue=queue)))
    for pool in pools:
        assert [
            (size, pool.bin_number(size), pool.alloc_size(pool.bin_number(size))) for size, _, _ in BIN_VALUES
        ] == BIN_VALUES
        block = pool(4096)
        assert (pool.active_bytes, pool.managed_bytes) == (4096, 4351)
        block.release()
    # 1000 with 0, 2 and 8 leading bits, as PyOpenCL gives them.
    for bits, bin_nr, alloc in ((0, 9, 1023), (2, 39, 1023), (8, 2548, 1001)):
        pool = tools.MemoryPool(tools.ImmediateAllocator(queue), leading_bits_in_bin_id=bits)
        assert (pool.bin_number(1000), pool.alloc_size(bin_nr)) == (bin_nr, alloc)


def test_leading_bits_in_bin_id_by_position_or_keyword(ctx, queue):
    # PyOpenCL's MemoryPool and SVMPool take it either way.
    for make_pool, allocator in [(tools.MemoryPool, tools.ImmediateAllocator(queue))] + (
        [(tools.SVMPool, tools.SVMAllocator(ctx, queue=queue))] if ctx.devices[0].svm_capabilities else []
    ):
        for pool in (make_pool(allocator, 2), make_pool(allocator, leading_bits_in_bin_id=2)):
            assert pool.leading_bits_in_bin_id == 2
            assert (pool.bin_number(1000), pool.alloc_size(39)) == (39, 1023)
        with pytest.raises(cl.LogicError, match="at most 8, got 9"):
            make_pool(allocator, 9)


ZERO_SOURCE = """
__kernel void touch(__global int *out, int n) { if (n) out[0] = 7; }
"""


def test_zero_byte_requests_give_objects_that_release_and_pass_to_kernels(ctx, queue):
    # PyOpenCL: MemoryPool(0) is a PooledBuffer of bin 0's 1-byte block; ImmediateAllocator and
    # DeferredAllocator give None, which kernels take as a NULL pointer.
    touch = cl.Program(ctx, ZERO_SOURCE).build().touch
    pool = tools.MemoryPool(tools.ImmediateAllocator(queue))
    for n in (0, 1, 5):
        buf = pool(4 * n)
        assert isinstance(buf, tools.PooledBuffer)
        touch(queue, (1,), None, buf, np.int32(n))
        if n:
            result = np.zeros(1, np.int32)
            cl.enqueue_copy(queue, result, buf)
            assert result[0] == 7
        buf.release()
    zero = pool.allocate(0)
    assert (zero.size, pool.active_blocks, pool.active_bytes) == (1, 1, 0)
    assert pool.managed_bytes == 1 + 4 + 20  # 0 takes bin 0's 1-byte block; below 32, sizes are exact
    zero.release()
    assert (pool.active_blocks, pool.held_blocks) == (0, 3)
    for allocator in (tools.ImmediateAllocator(queue), tools.DeferredAllocator(ctx)):
        assert allocator(0) is None
        touch(queue, (1,), None, allocator(0), np.int32(0))
    queue.finish()
    if not ctx.devices[0].svm_capabilities:
        return
    svm_allocator = tools.SVMAllocator(ctx, queue=queue)
    null_svm = svm_allocator(0)  # PyOpenCL: an SVMAllocation of size 0 at address 0
    assert isinstance(null_svm, tools.SVMAllocation) and (null_svm.size, null_svm.svm_ptr) == (0, 0)
    touch(queue, (1,), None, null_svm, np.int32(0))
    null_svm.release()
    svm_pool = tools.SVMPool(svm_allocator)
    pooled = svm_pool(0)  # PyOpenCL: a PooledSVM of size 0 on bin 0's 1-byte block
    assert isinstance(pooled, tools.PooledSVM) and pooled.size == 0 and pooled.svm_ptr != 0
    assert (svm_pool.active_blocks, svm_pool.active_bytes, svm_pool.managed_bytes) == (1, 0, 1)
    touch(queue, (1,), None, pooled, np.int32(0))
    pooled.release()
    assert svm_pool.held_blocks == 1
    queue.finish()


def test_a_second_release_raises_logic_error(ctx, queue):
    pool = tools.MemoryPool(tools.ImmediateAllocator(queue))
    for size in (0, 1000):
        buf = pool(size)
        buf.release()
        with pytest.raises(cl.LogicError, match="PooledBuffer.release: the memory was already released"):
            buf.release()
        assert pool.held_blocks == 1 + (size > 0)
    if not ctx.devices[0].svm_capabilities:
        return
    allocator = tools.SVMAllocator(ctx, queue=queue)
    svm_pool = tools.SVMPool(allocator)
    for size in (0, 256):
        pooled = svm_pool(size)
        pooled.release()
        with pytest.raises(cl.LogicError, match="PooledSVM.release: the memory was already released"):
            pooled.release()
        with pytest.raises(cl.LogicError, match="PooledSVM.enqueue_release: the memory was already released"):
            pooled.enqueue_release()
        allocation = allocator(size)
        allocation.release()
        with pytest.raises(cl.LogicError, match="SVMAllocation.release: the memory was already released"):
            allocation.release()
        with pytest.raises(cl.LogicError, match="already released"):
            allocation.enqueue_release(queue)


def test_released_pooled_buffers_are_refused_as_kernel_arguments(ctx, queue):
    # Before issue 13 a released PooledBuffer became a NULL cl_mem and PoCL crashed; the message
    # says "released" as for a released PooledSVM.
    touch = cl.Program(ctx, ZERO_SOURCE).build().touch
    buf = tools.MemoryPool(tools.ImmediateAllocator(queue))(64)
    buf.release()
    with pytest.raises(cl.LogicError, match=r"argument 0 \('out'.*the buffer was released"):
        touch(queue, (1,), None, buf, np.int32(1))
    if ctx.devices[0].svm_capabilities:
        svm = tools.SVMPool(tools.SVMAllocator(ctx, queue=queue))(64)
        svm.release()
        with pytest.raises(cl.LogicError, match=r"argument 0 \('out'.*the SVM memory was released"):
            touch(queue, (1,), None, svm, np.int32(1))


def test_pooled_buffer_get_info(ctx, queue):
    pool = tools.MemoryPool(tools.ImmediateAllocator(queue, cl.mem_flags.READ_ONLY))
    buf = pool(4096)
    assert buf.size == buf.get_info(cl.mem_info.SIZE) == 4351
    assert buf.get_info(cl.mem_info.FLAGS) == cl.mem_flags.READ_ONLY
    assert buf.get_info(cl.mem_info.TYPE) == 0x10F0  # CL_MEM_OBJECT_BUFFER
    assert buf.get_info(cl.mem_info.OFFSET) == 0 and buf.get_info(cl.mem_info.MAP_COUNT) == 0
    assert buf.get_info(cl.mem_info.HOST_PTR) == 0
    assert buf.get_info(cl.mem_info.REFERENCE_COUNT) >= 1
    assert cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 100).get_info(cl.mem_info.SIZE) == 100
    with pytest.raises(cl.LogicError, match="not supported; expected mem_info.TYPE"):
        buf.get_info(0x110A)  # CL_MEM_PROPERTIES
    buf.release()
    with pytest.raises(cl.LogicError, match="the buffer was released"):
        buf.get_info(cl.mem_info.SIZE)


def test_svm_allocation_enqueue_release(ctx, queue):
    _svm_device(ctx)
    for allocator in (tools.SVMAllocator(ctx), tools.SVMAllocator(ctx, queue=queue)):
        for size in (0, 100):
            allocation = allocator(size)
            event = allocation.enqueue_release(queue)
            assert isinstance(event, cl.Event)
            event.wait()
            assert allocation.svm_ptr == 0
    on_its_queue = tools.SVMAllocator(ctx, queue=queue)(64)
    on_its_queue.enqueue_release().wait()  # the allocator's queue
    with pytest.raises(cl.LogicError, match="no queue given and none is bound"):
        tools.SVMAllocator(ctx)(64).enqueue_release()
    with pytest.raises(cl.LogicError, match="another context"):
        tools.SVMAllocator(ctx)(64).enqueue_release(cl.CommandQueue(cl.Context(ctx.devices)))


def test_kernels_on_pooled_buffers(ctx, queue, rng):
    pool = tools.MemoryPool(tools.ImmediateAllocator(queue))
    kernel = cl.Program(ctx, SCALE_SOURCE).build().scale
    for n in (1, 100, 4097):
        host = rng.standard_normal(n).astype(np.float32)
        src, dst = pool.allocate(host.nbytes), pool.allocate(host.nbytes)
        cl.enqueue_copy(queue, src, host)
        kernel(queue, (n,), None, dst, src, np.float32(2.5))
        result = np.empty_like(host)
        cl.enqueue_copy(queue, result, dst)
        np.testing.assert_allclose(result, host * np.float32(2.5), rtol=1e-6)
        copy = pool.allocate(host.nbytes)
        cl.enqueue_copy(queue, copy, dst)
        cl.enqueue_copy(queue, result, copy)
        np.testing.assert_allclose(result, host * np.float32(2.5), rtol=1e-6)


def test_deferred_allocator_warns(ctx):
    with pytest.warns(UserWarning, match="ImmediateAllocator"):
        pool = tools.MemoryPool(tools.DeferredAllocator(ctx))
    assert pool.allocate(16).size == 16


def test_immediate_allocator_does_not_warn(queue):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tools.MemoryPool(tools.ImmediateAllocator(queue))


def test_bad_input(ctx, queue):
    with pytest.raises(cl.LogicError, match="at most one of READ_WRITE"):
        tools.ImmediateAllocator(queue, cl.mem_flags.READ_ONLY | cl.mem_flags.WRITE_ONLY)
    with pytest.raises(cl.LogicError, match="need host memory"):
        tools.DeferredAllocator(ctx, cl.mem_flags.COPY_HOST_PTR)
    pool = tools.MemoryPool(tools.ImmediateAllocator(queue))
    with pytest.raises(cl.LogicError, match=r"MemoryPool.allocate\(size\): expected an integer .*, got -1"):
        pool.allocate(-1)
    with pytest.raises(cl.LogicError, match="got -5"):
        tools.DeferredAllocator(ctx)(-5)
    with pytest.raises(cl.LogicError, match="not a bin number"):
        pool.alloc_size(10**6)
    with pytest.raises(cl.LogicError, match="leading_bits"):
        tools.MemoryPool(tools.ImmediateAllocator(queue), leading_bits_in_bin_id=99)
    with pytest.raises(cl.LogicError, match="got -1"):
        tools.MemoryPool(tools.ImmediateAllocator(queue), -1)
    with pytest.raises(TypeError, match="leading_bits_in_bin_id"):
        tools.MemoryPool(tools.ImmediateAllocator(queue), leading_bits_in_bin_id=2.5)
    too_big = ctx.devices[0].max_mem_alloc_size * 4
    with pytest.raises(cl.Error):
        tools.ImmediateAllocator(queue)(too_big)


def test_svm_pool(ctx, queue, rng):
    _svm_device(ctx)
    allocator = tools.SVMAllocator(ctx, queue=queue)
    allocation = allocator(256)
    assert isinstance(allocation, tools.SVMAllocation) and allocation.size == 256
    allocation.release()
    pool = tools.SVMPool(allocator)
    kernel = cl.Program(ctx, SCALE_SOURCE).build().scale
    n = 1000
    host = rng.standard_normal(n).astype(np.float32)
    src, dst = pool(host.nbytes), pool.allocate(host.nbytes)
    assert isinstance(src, tools.PooledSVM)
    assert src == src and src != dst and hash(src) == hash(src)
    src.bind_to_queue(queue)
    cl.enqueue_copy(queue, src, host)
    kernel(queue, (n,), None, dst, src, np.float32(-3.0))
    result = np.empty_like(host)
    cl.enqueue_copy(queue, result, dst)
    np.testing.assert_allclose(result, host * np.float32(-3.0), rtol=1e-6)
    first = src.svm_ptr
    src.release()
    assert pool.held_blocks == 1 and pool.active_blocks == 1
    again = pool(host.nbytes)
    assert again.svm_ptr == first
    again.unbind_from_queue()
    again.enqueue_release(queue)
    dst.enqueue_release()
    assert pool.held_blocks == 2 and pool.active_blocks == 0


def test_a_released_pooled_svm_binds_to_no_queue(ctx, queue):
    # PyOpenCL lets it bind; with nothing left to wait for, gpukit says so.
    _svm_device(ctx)
    svm = tools.SVMPool(tools.SVMAllocator(ctx, queue=queue))(64)
    svm.bind_to_queue(queue)
    svm.release()
    with pytest.raises(cl.LogicError, match="PooledSVM.bind_to_queue: the SVM memory was released"):
        svm.bind_to_queue(queue)
    svm.unbind_from_queue()  # harmless, as in PyOpenCL
    live = tools.SVMPool(tools.SVMAllocator(ctx, queue=queue))(64)
    other = cl.Context(ctx.devices)
    with pytest.raises(cl.LogicError, match="belongs to another context"):
        live.bind_to_queue(cl.CommandQueue(other))


def test_svm_bad_input(ctx):
    _svm_device(ctx)
    with pytest.raises(cl.LogicError, match="power of two"):
        tools.SVMAllocator(ctx, alignment=3)
    with pytest.raises(cl.LogicError, match="got -1"):
        tools.SVMAllocator(ctx, alignment=-1)
    with pytest.raises(cl.LogicError, match="unknown flag bits"):
        tools.SVMAllocator(ctx, flags=1 << 30)
    with pytest.raises(cl.LogicError, match="got -1"):
        tools.SVMPool(tools.SVMAllocator(ctx)).allocate(-1)


@pytest.mark.parametrize("alignment", [2**32, 2**33, 2**40, 2**63])
def test_svm_alignments_beyond_a_cl_uint_are_refused(ctx, alignment):
    # Before, they were cut to 32 bits: 2**32 became 0, and unaligned memory came back.
    _svm_device(ctx)
    with pytest.raises(cl.LogicError, match=f"alignment {alignment} is larger than OpenCL can ask for"):
        tools.SVMAllocator(ctx, alignment=alignment)


@pytest.mark.parametrize("alignment", [2**8, 2**16, 2**31])
def test_svm_alignments_the_implementation_cannot_give_are_named(ctx, alignment):
    # Before, PoCL's NULL for an alignment it cannot give (above 128 bytes) read as "no memory".
    _svm_device(ctx)
    allocator = tools.SVMAllocator(ctx, alignment=alignment)
    try:
        block = allocator(100)
    except cl.LogicError as e:
        assert f"cannot align SVM to {alignment} bytes" in str(e)
    else:
        assert block.svm_ptr % alignment == 0


def test_svm_free_queue_of_another_context_is_refused(ctx):
    # Before, it was accepted, and PoCL aborted at the first clEnqueueSVMFree.
    _svm_device(ctx)
    elsewhere = cl.CommandQueue(cl.Context(ctx.devices))
    with pytest.raises(cl.LogicError, match="free queue belongs to another context"):
        tools.SVMAllocator(ctx, queue=elsewhere)


def test_svm_copies_take_the_host_side_whole(ctx, queue):
    # Before, a host array larger than the SVM was cut to the SVM's size without a word.
    _svm_device(ctx)
    svm = tools.SVMAllocator(ctx)(64)
    with pytest.raises(cl.LogicError, match="larger than the source .* or the destination"):
        cl.enqueue_copy(queue, svm, np.arange(100, dtype=np.int32))
    with pytest.raises(cl.LogicError, match="larger than the source .* or the destination"):
        cl.enqueue_copy(queue, np.empty(100, np.int32), svm)
    cl.enqueue_copy(queue, svm, np.arange(10, dtype=np.int32))
    result = np.zeros(10, np.int32)
    cl.enqueue_copy(queue, result, svm)
    np.testing.assert_array_equal(result, np.arange(10, dtype=np.int32))


def _fake_metafunc(fixturenames):
    calls = []
    return types.SimpleNamespace(
        fixturenames=fixturenames, parametrize=lambda names, values, ids: calls.append((names, values, ids))
    ), calls


def test_parametrization_covers_every_device(monkeypatch):
    monkeypatch.delenv("GPUKIT_CL_TEST", raising=False)
    monkeypatch.delenv("PYOPENCL_TEST", raising=False)
    devices = [d for p in cl.get_platforms() for d in p.get_devices()]
    metafunc, calls = _fake_metafunc(["ctx_factory", "device", "other"])
    tools.pytest_generate_tests_for_pyopencl(metafunc)
    [(names, values, ids)] = calls
    assert names == ["device", "ctx_factory"]
    assert [device for device, _ in values] == devices
    assert all(device.name in test_id for device, test_id in zip(devices, ids))
    context = values[0][1]()
    assert isinstance(context, cl.Context) and context.devices == [devices[0]]

    metafunc, calls = _fake_metafunc(["platform"])
    tools.pytest_generate_tests_for_opencl(metafunc)
    # Once per device, as in PyOpenCL (two devices of one platform give it twice).
    assert calls[0][0] == ["platform"] and calls[0][1] == [(d.platform,) for d in devices]

    metafunc, calls = _fake_metafunc(["queue"])
    tools.pytest_generate_tests_for_opencl(metafunc)
    assert calls == []

    metafunc, calls = _fake_metafunc(["ctx_getter"])
    with pytest.warns(DeprecationWarning, match="ctx_getter"):
        tools.pytest_generate_tests_for_opencl(metafunc)
    assert isinstance(calls[0][1][0][0](), cl.Context)


@pytest.mark.parametrize("variable", ["GPUKIT_CL_TEST", "PYOPENCL_TEST"])
def test_parametrization_honours_the_environment(monkeypatch, variable):
    monkeypatch.delenv("GPUKIT_CL_TEST", raising=False)
    monkeypatch.delenv("PYOPENCL_TEST", raising=False)
    monkeypatch.setenv(variable, "0:0")
    metafunc, calls = _fake_metafunc(["device"])
    tools.pytest_generate_tests_for_opencl(metafunc)
    assert calls[0][1] == [(cl.get_platforms()[0].get_devices()[0],)]
    monkeypatch.setenv(variable, "no-such-platform-name")
    with pytest.raises(cl.LogicError, match="no platform name or vendor contains 'no-such-platform-name'"):
        tools.pytest_generate_tests_for_opencl(_fake_metafunc(["device"])[0])
    # As in PyOpenCL, a name matches the vendor too: "pocl" finds PoCL ("The pocl project"),
    # and a device's vendor names the device.
    platform = cl.get_platforms()[0]
    device = platform.get_devices()[0]
    for selection in (platform.vendor.upper(), f"{platform.vendor}:{device.vendor}"):
        monkeypatch.setenv(variable, selection)
        metafunc, calls = _fake_metafunc(["device"])
        tools.pytest_generate_tests_for_opencl(metafunc)
        assert calls[0][1][0] == (device,)


# Every combination of the three fixture names, in a real pytest run: each test receives each
# argument by its own name (before, a test taking one of them received a 1-tuple).
FIXTURE_COMBINATIONS = [
    combination for n in (1, 2, 3) for combination in itertools.combinations(("ctx_factory", "device", "platform"), n)
]


@pytest.mark.parametrize("selection", ["0:0", "pocl"])
def test_parametrization_in_a_real_pytest_run(tmp_path, selection):
    if selection == "pocl" and not any("pocl" in (p.name + " " + p.vendor).lower() for p in cl.get_platforms()):
        pytest.skip("no PoCL platform")
    checks = {
        "ctx_factory": "isinstance(ctx_factory(), cl.Context)",
        "device": "isinstance(device, cl.Device)",
        "platform": "isinstance(platform, cl.Platform)",
    }
    lines = [
        "import gpukit.cl as cl",
        "from gpukit.cl.tools import pytest_generate_tests_for_pyopencl as pytest_generate_tests",
    ]
    for combination in FIXTURE_COMBINATIONS:
        lines.append(f"def test_{'_'.join(combination)}({', '.join(combination)}):")
        lines.extend(f"    assert {checks[name]}" for name in combination)
        if "device" in combination and "ctx_factory" in combination:
            lines.append("    assert ctx_factory().devices == [device]")
        if "device" in combination and "platform" in combination:
            lines.append("    assert device.platform == platform")
    test_file = tmp_path / "test_generated.py"
    test_file.write_text("\n".join(lines) + "\n")
    env = dict(os.environ, PYTHONPATH=str(Path(cl.__file__).resolve().parents[2]))
    env.pop("GPUKIT_CL_TEST", None)
    env["PYOPENCL_TEST"] = selection
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test_file)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    devices = cl.select_devices(selection)
    # Every combination runs once per device, as in PyOpenCL (`platform` alone too).
    expected = len(devices) * len(FIXTURE_COMBINATIONS)
    assert f"{expected} passed" in run.stdout, run.stdout


def test_argument_types():
    assert tools.VectorArg(np.float32, "x").declarator() == "__global float *x"
    # PyOpenCL's with_offset: the pointer is x__base, the byte offset x__offset.
    assert tools.VectorArg("int64", "y", with_offset=True).declarator() == "__global long *y__base, long y__offset"
    assert tools.ScalarArg(np.uint8, "n").declarator() == "uchar n"
    assert tools.ScalarArg(np.complex64, "z").declarator() == "cfloat_t z"
    assert tools.VectorArg(np.complex128, "w").declarator() == "__global cdouble_t *w"
    assert tools.ScalarArg(np.float64, "a") == tools.ScalarArg("float64", "a")
    assert tools.ScalarArg(np.float64, "a") != tools.VectorArg(np.float64, "a")
    assert tools.VectorArg(np.float64, "a") != tools.VectorArg(np.float64, "a", with_offset=True)
    assert isinstance(tools.VectorArg(np.int32, "v"), tools.DtypedArgument)
    # Immutable and hashable, as PyOpenCL's frozen dataclasses.
    arg = tools.VectorArg(np.float32, "x", with_offset=True)
    assert hash(arg) == hash(tools.VectorArg("float32", "x", with_offset=True))
    assert len({arg, tools.VectorArg(np.float32, "x", with_offset=True), tools.ScalarArg(np.float32, "x")}) == 2
    with pytest.raises(AttributeError):
        arg.name = "y"
    assert repr(arg) == "VectorArg(dtype=dtype('float32'), name='x', with_offset=True)"
    # As in PyOpenCL, a dtype without an OpenCL C type is refused when declared, not before.
    opaque = tools.ScalarArg(np.dtype(object), "o")
    with pytest.raises(ValueError, match="no OpenCL C type for dtype object"):
        opaque.declarator()
    with pytest.raises(ValueError, match="not a C identifier"):
        tools.ScalarArg(np.int32, "1x")


def test_argument_names_are_checked_against_opencl_c():
    # A keyword or type name of OpenCL C would only fail when the kernel text is built.
    for name, why in [
        ("kernel", "keyword of OpenCL C"),
        ("global", "keyword of OpenCL C"),
        ("if", "keyword of C"),
        ("float4", "type name of OpenCL C"),
        ("uint", "type name of OpenCL C"),
    ]:
        with pytest.raises(ValueError, match=f"argument name '{name}' is a {why}"):
            tools.VectorArg(np.float32, name)
        with pytest.raises(ValueError, match=why):
            tools.ScalarArg(np.float32, name)
    for name in ("class", "new", "threadIdx", "x_1"):  # C++ and CUDA words are names in OpenCL C
        assert tools.ScalarArg(np.float32, name).name == name
    with pytest.raises(TypeError, match="argument name must be a str, got NoneType"):
        tools.VectorArg(np.float32, None)
    with pytest.raises(TypeError, match="dtype: expected a numpy dtype, got None"):
        tools.VectorArg(None, "x")


@pytest.mark.parametrize(
    "function",
    [
        characterize.has_double_support,
        characterize.has_amd_double_support,
        characterize.nv_compute_capability,
        characterize.usable_local_mem_size,
        characterize.simultaneous_work_items_on_local_access,
        characterize.local_memory_access_granularity,
        characterize.local_memory_bank_count,
        characterize.get_fast_inaccurate_build_options,
        characterize.reasonable_work_group_size_multiple,
        characterize.has_struct_arg_count_bug,
        characterize.has_coarse_grain_buffer_svm,
        characterize.has_fine_grain_buffer_svm,
        characterize.has_fine_grain_system_svm,
        characterize.has_fine_grain_buffer_svm_atomics,
        characterize.has_fine_grain_system_svm_atomics,
        characterize.has_src_build_cache,
    ],
)
@pytest.mark.parametrize("dev", [None, "pocl", 0])
def test_characterize_names_a_wrong_device(function, dev):
    # Was: AttributeError: 'NoneType' object has no attribute 'extensions'.
    with pytest.raises(TypeError, match=rf"{function.__name__}\(dev\): expected a gpukit.cl.Device, got"):
        function(dev)


def test_characterize_names_its_other_wrong_arguments(ctx):
    dev = ctx.devices[0]
    with pytest.raises(TypeError, match=r"get_simd_group_size\(dev\)"):
        characterize.get_simd_group_size(None, 4)
    with pytest.raises(TypeError, match=r"why_not_local_access_conflict_free\(dev\)"):
        characterize.why_not_local_access_conflict_free(None, 4, (16,))
    with pytest.raises(TypeError, match=r"get_pocl_version\(platform\): expected a gpukit.cl.Platform"):
        characterize.get_pocl_version(None)
    with pytest.raises(TypeError, match=r"reasonable_work_group_size_multiple\(ctx\): expected a gpukit.cl.Context"):
        characterize.reasonable_work_group_size_multiple(dev, ctx="context")
    with pytest.raises(TypeError, match=r"why_not_local_access_conflict_free\(array_shape\): expected a shape"):
        characterize.why_not_local_access_conflict_free(dev, 4, None)
    with pytest.raises(TypeError, match=r"\(array_stored_shape\): expected an integer"):
        characterize.why_not_local_access_conflict_free(dev, 4, (4,), ("x",))
    with pytest.raises(ValueError, match=r"\(itemsize\): expected at least 1, got 0"):
        characterize.why_not_local_access_conflict_free(dev, 0, (4,))
    with pytest.raises(TypeError, match=r"\(itemsize\): expected an integer"):
        characterize.why_not_local_access_conflict_free(dev, "4", (4,))


def test_offset_arguments_run_as_pyopencl_kernel_text_expects(ctx, queue, rng):
    # Kernel text written for PyOpenCL refers to x__base and a byte offset x__offset.
    args = [
        tools.VectorArg(np.float32, "out", with_offset=True),
        tools.VectorArg(np.complex64, "z"),
        tools.ScalarArg(np.float32, "f"),
    ]
    source = f"""
    typedef float2 cfloat_t;
    __kernel void k({", ".join(a.declarator() for a in args)}) {{
        __global float *out = (__global float *) ((__global char *) out__base + out__offset);
        const size_t i = get_global_id(0);
        out[i] = z[i].x * f + z[i].y;
    }}"""
    kernel = cl.Program(ctx, source).build().k
    n, skip = 37, 5
    z = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
    z_buf = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=z)
    out_buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4 * (n + skip))
    kernel(queue, (n,), None, out_buf, np.int64(4 * skip), z_buf, np.float32(3.0))
    result = np.empty(n + skip, np.float32)
    cl.enqueue_copy(queue, result, out_buf)
    np.testing.assert_allclose(result[skip:], z.real * 3 + z.imag, rtol=1e-6)


def test_characterize(ctx, queue, rng):
    device = ctx.devices[0]
    options = characterize.get_fast_inaccurate_build_options(device)
    strict = ["-cl-strict-aliasing"] if device.vendor.startswith(("Advanced Micro", "NVIDIA")) else []
    assert options == ["-cl-mad-enable", "-cl-fast-relaxed-math", "-cl-no-signed-zeros"] + strict
    kernel = cl.Program(ctx, SCALE_SOURCE).build(options).scale  # the options are accepted
    host = rng.standard_normal(64).astype(np.float32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
    kernel(queue, (64,), None, buf, buf, np.float32(2.0))
    result = np.empty_like(host)
    cl.enqueue_copy(queue, result, buf)
    np.testing.assert_allclose(result, host * 2, rtol=1e-5)
    if "nvidia" not in device.vendor.lower():
        assert characterize.nv_compute_capability(device) is None
    assert characterize.has_struct_arg_count_bug(device) in (False, "apple", "pocl")
    assert characterize.has_struct_arg_count_bug(device, ctx) == characterize.has_struct_arg_count_bug(device)
    extensions = device.extensions.split()
    assert characterize.has_double_support(device) == ("cl_khr_fp64" in extensions)
    assert characterize.has_amd_double_support(device) == ("cl_amd_fp64" in extensions)
    assert characterize.local_memory_access_granularity(device) == 4
    assert characterize.reasonable_work_group_size_multiple(device) >= 1
    assert characterize.reasonable_work_group_size_multiple(device, ctx) >= 1


def test_characterize_gives_pyopencl_s_answers_on_cpus(ctx):
    # PyOpenCL 2026.1 on PoCL's CPU device: SIMD group size 1 for every type size (CPUs
    # vectorize explicitly), 1 work item on local memory, no banks in cache-based local memory,
    # an unchanged local memory size, a build cache, and SVM as the capabilities say.
    device = ctx.devices[0]
    if not device.type & cl.device_type.CPU or device.type & cl.device_type.GPU:
        pytest.skip(f"device {device.name!r} is not a CPU")
    vendors = (device.platform.vendor + device.vendor).lower()
    if "nvidia" not in vendors and "advanced micro" not in vendors and "ati" not in vendors:
        assert [characterize.get_simd_group_size(device, size) for size in (1, 2, 3, 4, 8, 16)] == [1] * 6
    assert characterize.simultaneous_work_items_on_local_access(device) == 1
    assert (
        characterize.usable_local_mem_size(device)
        == characterize.usable_local_mem_size(device, 10)
        == device.local_mem_size
    )
    if device.platform.name != "Portable Computing Language":
        return
    assert characterize.has_src_build_cache(device) is True
    major, minor = characterize.get_pocl_version(device.platform)
    assert device.platform.version.lower().startswith(
        f"opencl {device.platform.version.split()[1]} pocl {major}.{minor}"
    )
    capabilities = device.svm_capabilities
    assert characterize.has_coarse_grain_buffer_svm(device) == bool(capabilities & 1)
    assert characterize.has_fine_grain_buffer_svm(device) == bool(capabilities & 2)
    assert characterize.has_fine_grain_system_svm(device) == bool(capabilities & 4)
    assert characterize.has_fine_grain_buffer_svm_atomics(device) == (capabilities & 10 == 10)
    assert characterize.has_fine_grain_system_svm_atomics(device) == (capabilities & 12 == 12)
    with pytest.raises(RuntimeError, match="meaningless for cache-based local memory"):
        characterize.local_memory_bank_count(device)
    with pytest.raises(RuntimeError, match="meaningless for cache-based local memory"):
        characterize.why_not_local_access_conflict_free(device, 4, (16, 16))


class _FakeNvidiaDevice:
    """What characterize reads from an NVIDIA GPU of compute capability `capability`."""

    def __init__(self, capability):
        self.capability = capability
        self.name = self.vendor = "NVIDIA Corporation"
        self.extensions = "cl_khr_fp64 cl_nv_device_attribute_query"
        self.type = cl.device_type.GPU
        self.local_mem_size = 49152
        self.platform = types.SimpleNamespace(
            name="NVIDIA CUDA", vendor="NVIDIA Corporation", version="OpenCL 3.0 CUDA 12.4"
        )

    def get_info(self, param):
        values = {0x4000: self.capability[0], 0x4001: self.capability[1], 0x4003: 32}
        return values[param]  # decoded, as Device.get_info answers (device_info.*_NV)


@pytest.mark.parametrize(
    ("capability", "usable", "usable_10_args", "together", "banks", "conflicts"),
    [
        # Values of PyOpenCL 2026.1 for the same device; conflicts for the shapes below in order.
        ((1, 3), 48896, 49112, 16, 16, [16, 1, 1, 16, 1, 16, 1, 1]),
        ((2, 0), 49152, 49152, 32, 32, [8, 1, 1, 32, 1, 16, 1, 1]),
    ],
)
def test_characterize_nvidia_rules(capability, usable, usable_10_args, together, banks, conflicts):
    device = _FakeNvidiaDevice(capability)
    assert characterize.nv_compute_capability(device) == capability
    assert characterize.get_simd_group_size(device, 4) == 32
    assert characterize.reasonable_work_group_size_multiple(device) == 32
    assert characterize.has_src_build_cache(device) is True
    assert characterize.usable_local_mem_size(device) == usable
    assert characterize.usable_local_mem_size(device, 10) == usable_10_args
    assert characterize.simultaneous_work_items_on_local_access(device) == together
    assert characterize.local_memory_bank_count(device) == banks
    shapes = [
        (4, (16, 16)),
        (4, (16, 17)),
        (4, (32,)),
        (4, (32, 32)),
        (4, (32, 32), (32, 33)),
        (8, (16, 16)),
        (4, (3, 5, 7)),
        (4, (64,)),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", characterize.CLCharacterizationWarning)
        found = [characterize.why_not_local_access_conflict_free(device, *shape) for shape in shapes]
    assert [multiplicity for multiplicity, _ in found] == conflicts
    assert found[1] == (1, None)
    if capability == (2, 0):
        assert found[0][1] == (
            "8x conflict on axis 1 (from right, 0-based): "
            + ", ".join(f"w.item {i} -> [{i}, 0]" for i in range(1, 16, 2))
            + " access bank 16"
        )
    with pytest.warns(characterize.CLCharacterizationWarning, match="itemsize != 4"):
        characterize.why_not_local_access_conflict_free(device, 8, (16, 16))
    with pytest.raises(ValueError, match="another rank"):
        characterize.why_not_local_access_conflict_free(device, 4, (16, 16), (16,))
