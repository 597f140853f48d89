"""gpukit.cl objects shared between threads: calls that let the GIL go (a build, a wait, a
PooledSVM's release) must not let two threads into OpenCL on one object at once."""

import threading

import numpy as np
import pytest

import gpukit.cl as cl
import gpukit.cl.tools as tools
from cl_devices import ctx  # noqa: F401  (a fixture: one context per OpenCL device)

pytestmark = [pytest.mark.opencl]

SOURCE = "__kernel void fill(__global int *out, int value) { out[get_global_id(0)] = value; }"


def run_in_threads(count, work):
    """Runs work(i) in `count` threads started together; returns what they raised."""
    errors = []
    start = threading.Barrier(count)

    def body(i):
        start.wait()
        try:
            work(i)
        except Exception as e:  # noqa: BLE001 (each thread's failure is the test's finding)
            errors.append(e)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_threads_building_one_program_take_turns(ctx):
    # Before: PoCL crashed in kernel_names, or a build failed with CL_INVALID_OPERATION.
    for _ in range(3):
        program = cl.Program(ctx, SOURCE)

        def build_and_use(i):
            program.build()
            assert program.kernel_names == "fill"
            program.fill  # noqa: B018 (creating the kernel is the point)

        assert run_in_threads(8, build_and_use) == []
    queue = cl.CommandQueue(ctx)
    out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64 * 4)
    program.fill(queue, (64,), None, out, np.int32(5))
    result = np.empty(64, np.int32)
    cl.enqueue_copy(queue, result, out)
    np.testing.assert_array_equal(result, np.full(64, 5, np.int32))


def test_building_again_with_the_same_options_is_a_no_op_and_other_options_are_refused_once_kernels_exist(ctx):
    program = cl.Program(ctx, SOURCE).build("-D X=1")
    kernel = program.fill
    assert program.build("-D X=1") is program
    # (gpukit's include path follows the options: Program.build adds it, as PyOpenCL adds its own)
    with pytest.raises(
        cl.LogicError,
        match=r"kernels of the program exist, so it cannot be built again with "
        r"options '-D X=2[^']*' for '.*' \(it is built with options '-D X=1",
    ):
        program.build("-D X=2")
    assert kernel.num_args == 2


def test_threads_releasing_one_pooled_svm_give_its_block_back_once(ctx):
    if ctx.devices[0].svm_capabilities == 0:
        pytest.skip(f"device {ctx.devices[0].name!r} reports no SVM capabilities")
    queue = cl.CommandQueue(ctx)
    pool = tools.SVMPool(tools.SVMAllocator(ctx))
    for _ in range(20):
        block = pool(256)
        block.bind_to_queue(queue)

        def release(i):
            if i % 2:
                block.release()
            else:
                block.enqueue_release(queue)

        # One thread gives the block back; the others are told it was already released
        # (PyOpenCL's LogicError). Before, two threads could both give it back.
        errors = run_in_threads(6, release)
        assert len(errors) == 5 and all(isinstance(e, cl.LogicError) and "already released" in str(e) for e in errors)
        assert pool.active_blocks == 0 and pool.held_blocks == 1
        assert block.svm_ptr == 0


def test_enqueue_release_refuses_a_queue_of_another_context(ctx):
    if ctx.devices[0].svm_capabilities == 0:
        pytest.skip(f"device {ctx.devices[0].name!r} reports no SVM capabilities")
    block = tools.SVMPool(tools.SVMAllocator(ctx))(64)
    with pytest.raises(cl.LogicError, match="another context"):
        block.enqueue_release(cl.CommandQueue(cl.Context(ctx.devices)))
    block.release()


def test_threads_sharing_one_kernel_each_get_their_own_arguments(ctx):
    queue = cl.CommandQueue(ctx)
    kernel = cl.Program(ctx, SOURCE).build().fill

    def run(i):
        out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64 * 4)
        for _ in range(20):
            kernel(queue, (64,), None, out, np.int32(i))
            result = np.empty(64, np.int32)
            cl.enqueue_copy(queue, result, out)
            assert (result == i).all(), (i, result[:4])

    assert run_in_threads(6, run) == []
