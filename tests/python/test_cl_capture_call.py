"""Kernel.capture_call, as PyOpenCL's: the script it writes replays the call on its own, with
the buffers' contents, scalars and local memory of the moment it was captured; it also runs
on PyOpenCL itself (GPUKIT_PYOPENCL_ORIGINAL=1)."""

import io

import numpy as np
import pytest

from cl_either import ORIGINAL, cl, ctx, needs_device, queue  # noqa: F401  (ctx, queue: fixtures)

pytestmark = [pytest.mark.opencl, needs_device]

SOURCE = """
__kernel void axpy(__global const float *x, __global float *y, float a, __local float *scratch)
{ int i = get_global_id(0); scratch[get_local_id(0)] = x[i]; y[i] = a * scratch[get_local_id(0)] + y[i]; }
"""


def _run(script):
    namespace = {}
    exec(compile(script, "captured.py", "exec"), namespace)  # noqa: S102  (the test runs the script)
    return namespace["main"]()


def test_the_captured_script_replays_the_call_with_the_buffers_of_that_moment(ctx, queue, tmp_path):
    if ORIGINAL:
        pytest.skip("PyOpenCL 2026.1.4 cannot capture a LocalMemory argument")
    rng = np.random.default_rng(5)
    x, y = rng.random(96, dtype=np.float32), rng.random(96, dtype=np.float32)
    mf = cl.mem_flags
    x_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
    y_buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=y)
    kernel = cl.Program(ctx, SOURCE).build(options=["-DUNUSED=1"]).axpy
    out = io.StringIO()
    kernel.capture_call(out, queue, (96,), (32,), x_buf, y_buf, np.float32(2.5), cl.LocalMemory(32 * 4))
    after = np.empty_like(y)
    cl.enqueue_copy(queue, after, y_buf)
    np.testing.assert_array_equal(after, y)  # capturing does not run the call
    replay_queue, arguments = _run(out.getvalue())
    replayed = np.empty_like(y)
    cl.enqueue_copy(replay_queue, replayed, arguments[1])
    np.testing.assert_allclose(replayed, np.float32(2.5) * x + y, rtol=1e-6)
    path = tmp_path / "captured.py"
    kernel.capture_call(str(path), queue, 96, 32, x_buf, y_buf, np.float32(1), cl.LocalMemory(128))
    assert "def main():" in path.read_text()


def test_a_capture_of_buffers_and_scalars_runs(ctx, queue):
    kernel = (
        cl.Program(ctx, "__kernel void scale(__global float *y, float a) { y[get_global_id(0)] *= a; }").build().scale
    )
    y = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=np.arange(8, dtype=np.float32))
    out = io.StringIO()
    kernel.capture_call(out, queue, (8,), None, y, np.float32(3))
    _run(out.getvalue())


def test_arguments_a_script_cannot_carry_are_refused(ctx, queue):
    if ORIGINAL:
        pytest.skip("PyOpenCL's message differs")
    kernel = cl.Program(ctx, SOURCE).build().axpy
    with pytest.raises(TypeError, match="argument 2 is a float"):
        kernel.capture_call(io.StringIO(), queue, (32,), None, None, None, 2.5, cl.LocalMemory(128))
