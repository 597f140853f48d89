"""Host memory of asynchronous OpenCL commands lives until they complete, whatever the program
drops (PyOpenCL's "nanny event"): non-blocking copies, USE_HOST_PTR buffers and SVM.

Each test first queues a kernel that keeps the (in-order) queue busy for a while, so the command
under test surely runs after the Python objects it uses were dropped: without the guarantee, the
copy reads or writes memory that numpy has already freed or handed to another array."""

import gc
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gpukit.cl as cl
import gpukit.cl.tools as tools
from cl_devices import ctx  # noqa: F401  (a fixture: one context per OpenCL device)

pytestmark = [pytest.mark.opencl]

N = 1 << 20  # 4 MiB of int32: numpy gives such arrays back to the system (or to the next array) when freed

SPIN_SOURCE = """
__kernel void spin(__global int *out, int rounds) {
    int x = get_global_id(0);
    for (int i = 0; i < rounds; ++i)
        x = x * 1103515245 + 12345;
    out[0] = x;
}
"""


@pytest.fixture
def queue(ctx):
    return cl.CommandQueue(ctx)


@pytest.fixture
def keep_busy(ctx, queue):
    """keep_busy(): queues about a tenth of a second of work, so commands queued next wait for it."""
    kernel = cl.Program(ctx, SPIN_SOURCE).build().spin
    scratch = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4)
    return lambda: kernel(queue, (1,), None, scratch, np.int32(20_000_000))


def _reuse_freed_memory():
    """Arrays of the size under test, filled with a marker: they take over memory numpy freed."""
    return [np.full(N, -7, np.int32) for _ in range(4)]


def test_a_dropped_temporary_is_copied_whole(ctx, queue, keep_busy):
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, N * 4)
    for trial in range(3):
        expected = np.arange(N, dtype=np.int64) * 3 + trial
        keep_busy()
        cl.enqueue_copy(queue, buf, expected.astype(np.int32), is_blocking=False)  # the temporary goes at once
        _reuse_freed_memory()
        queue.finish()
        result = np.empty(N, np.int32)
        cl.enqueue_copy(queue, result, buf)
        np.testing.assert_array_equal(result, expected.astype(np.int32))


def test_a_dropped_read_writes_only_its_own_array(ctx, queue, keep_busy):
    source = np.arange(N, dtype=np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=source)
    for _ in range(3):
        keep_busy()
        cl.enqueue_copy(queue, np.empty(N, np.int32), buf, is_blocking=False)  # array and event dropped
        others = _reuse_freed_memory()
        queue.finish()
        for other in others:
            assert (other == -7).all(), "a dropped non-blocking read wrote into another array"


def test_the_event_of_a_read_keeps_the_destination(ctx, queue, keep_busy):
    source = np.arange(N, dtype=np.int32)[::-1].copy()
    buf = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=source)
    keep_busy()
    out = np.zeros(N, np.int32)
    event = cl.enqueue_copy(queue, out, buf, is_blocking=False)
    event.wait()
    np.testing.assert_array_equal(out, source)


def test_wait_and_finish_let_go_of_a_bytearray(ctx, queue, keep_busy):
    data = bytearray(range(256)) * 4
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, len(data))
    keep_busy()
    event = cl.enqueue_copy(queue, buf, data, is_blocking=False)
    with pytest.raises(BufferError):
        data.extend(b"x")  # exported until the copy is done: a resize would move the memory under it
    event.wait()
    data.extend(b"x")  # waited for: free again
    back = bytearray(len(data) - 1)
    cl.enqueue_copy(queue, back, buf)
    assert back == data[:-1]
    back.extend(b"y")  # a blocking copy holds nothing after it returns


def test_use_host_ptr_holds_the_export_for_the_buffer_life(ctx, queue):
    host = bytearray(64)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.USE_HOST_PTR, hostbuf=host)
    with pytest.raises(BufferError):
        host.extend(bytes(1 << 20))
    values = np.arange(16, dtype=np.int32)
    cl.enqueue_copy(queue, buf, values)
    back = np.empty_like(values)
    cl.enqueue_copy(queue, back, buf)
    np.testing.assert_array_equal(back, values)
    del buf
    gc.collect()
    queue.finish()  # any gpukit.cl call releases what OpenCL has let go of
    host.extend(b"z")
    assert len(host) == 65


def test_use_host_ptr_memory_outlives_the_buffer_object(ctx, queue, keep_busy):
    host = np.zeros(N, np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.USE_HOST_PTR, hostbuf=host)
    keep_busy()
    values = np.arange(N, dtype=np.int32)
    cl.enqueue_copy(queue, buf, values, is_blocking=False)
    del buf, host  # the queued write still goes into the host memory
    others = _reuse_freed_memory()
    queue.finish()
    for other in others:
        assert (other == -7).all(), "a write into a dropped USE_HOST_PTR buffer landed in another array"


def test_svm_of_a_non_blocking_copy_stays_out_of_the_pool(ctx, queue, keep_busy):
    if ctx.devices[0].svm_capabilities == 0:
        pytest.skip(f"device {ctx.devices[0].name!r} reports no SVM capabilities")
    pool = tools.SVMPool(tools.SVMAllocator(ctx))
    expected = np.arange(N, dtype=np.int32) * 7
    source = pool(N * 4)
    cl.enqueue_copy(queue, source, expected)
    out = np.zeros(N, np.int32)
    keep_busy()
    cl.enqueue_copy(queue, out, source, is_blocking=False)
    del source  # a PooledSVM goes back to its pool when dropped, but the copy still reads it
    reused = pool(N * 4)
    other_queue = cl.CommandQueue(ctx)  # not behind the busy one
    cl.enqueue_copy(other_queue, reused, np.full(N, -7, np.int32))
    queue.finish()
    np.testing.assert_array_equal(out, expected)


def test_pending_copies_at_exit_are_clean():
    # Arrays and the events of non-blocking reads into them as globals, which Python drops at exit
    # in the order of their names while the reads still run.
    script = textwrap.dedent("""
        import numpy as np
        import gpukit.cl as cl
        ctx = cl.create_some_context()
        queue = cl.CommandQueue(ctx)
        buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 1 << 24)
        for i in range(16):
            globals()[f"a{i}"] = np.empty(1 << 22, np.int32)
            globals()[f"b{i}"] = cl.enqueue_copy(queue, globals()[f"a{i}"], buf, is_blocking=False)
        """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    for _ in range(3):
        run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
        assert (run.returncode, run.stderr) == (0, "")
