"""Nothing gpukit makes outlives the interpreter. nanobind's leak report (on when
GPUKIT_LEAK_WARNINGS=1, as conftest.py sets it for the tests and their children) lists at exit
the bound objects, types and functions still alive once the interpreter has finished: a
reference leak in the bindings, or a Python object they cache that nobody drops
(python/bindings/common/exit_cleanup.hpp). It prints to stderr as the process ends, so each
case runs a child Python that uses gpukit and exits, and its stderr must hold no
"nanobind: leaked" line."""

import os
import subprocess
import sys
import textwrap

import pytest

from cl_devices import needs_opencl

LEAK_REPORT = "nanobind: leaked"

# A device address for arrays that are never read or written: a machine without a GPU can
# still make them and work on their layout.
ADDRESS = 1 << 40


def run_child(script, report=True):
    """Runs `script` in a child Python; `report`: with GPUKIT_LEAK_WARNINGS as the tests set it,
    else without the variable, as a user's program runs."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    if not report:
        env.pop("GPUKIT_LEAK_WARNINGS", None)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)], env=env, capture_output=True, text=True, timeout=300
    )


def assert_no_leaks(script):
    proc = run_child(script)
    assert proc.returncode == 0, proc.stderr
    assert LEAK_REPORT not in proc.stderr, proc.stderr


# A reference nobody drops keeps a GPUArray past the interpreter.
LEAK_AN_ARRAY = f"""
import ctypes
import numpy as np
import gpukit.gpuarray as gpuarray
leaked = gpuarray.GPUArray((3,), np.float32, gpudata={ADDRESS})
ctypes.pythonapi.Py_IncRef(ctypes.py_object(leaked))
"""


def test_a_leaked_object_is_reported():
    # The report must name it, or the other cases here could not fail.
    proc = run_child(LEAK_AN_ARRAY)
    assert proc.returncode == 0, proc.stderr
    assert LEAK_REPORT in proc.stderr
    assert 'of type "gpukit.gpuarray.GPUArray"' in proc.stderr


def test_the_report_can_be_turned_off():
    proc = run_child("from gpukit import _gpukit\n_gpukit._set_leak_warnings(False)\n" + LEAK_AN_ARRAY)
    assert (proc.returncode, proc.stderr) == (0, "")


def test_the_report_is_off_without_the_variable():
    proc = run_child(LEAK_AN_ARRAY, report=False)
    assert (proc.returncode, proc.stderr) == (0, "")


@pytest.mark.parametrize(
    "script, status, failed",
    [
        (LEAK_AN_ARRAY, 1, True),  # a report fails the run
        ("import gpukit.gpuarray", 0, False),  # a clean exit passes
        ("raise SystemExit(3)", 3, False),  # the command's own failure comes through
    ],
)
def test_no_leaks_sh_fails_make_test_on_a_report(script, status, failed):
    # make test-python runs the suite under scripts/no_leaks.sh.
    no_leaks = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "scripts", "no_leaks.sh")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.run(
        ["bash", no_leaks, sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == status, proc.stdout + proc.stderr
    assert ("outlived the interpreter" in proc.stderr) == failed
    assert (LEAK_REPORT in proc.stdout) == failed  # the report itself is passed on


def test_without_a_gpu():
    # Constants, arrays' layouts, operators up to the launch (numpy operands, fusion's
    # analysis) and errors: what the caches of the bindings hold.
    assert_no_leaks(f"""
        import numpy as np
        import gpukit, gpukit.driver as drv, gpukit.gpuarray as gpuarray, gpukit.compiler as compiler
        from gpukit import _gpukit
        assert drv.device_attribute.MAX_THREADS_PER_BLOCK == 1 and drv.function_attribute.NUM_REGS == 4
        a = gpuarray.GPUArray((4, 6), np.float32, gpudata={ADDRESS})
        assert a[1:, ::2].T.shape == (3, 3)
        try:
            a + np.ones(3)
        except TypeError:
            pass
        for op in (lambda: a + np.float32(1), lambda: a * 2 + 1, lambda: drv.Device(0)):
            try:
                op()
            except drv.Error:
                pass  # no driver on this machine
        assert _gpukit._fusion_sites_analysed() > 0
        compiler.compile('extern "C" __global__ void k(float *a) {{ a[0] = 1; }}', arch="sm_90")
    """)


@needs_opencl
def test_opencl():
    assert_no_leaks("""
        import numpy as np
        import gpukit.cl as cl
        import gpukit.cl.tools as cl_tools
        ctx = cl.create_some_context()
        q = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
        assert q.properties == cl.command_queue_properties.PROFILING_ENABLE
        assert ctx.devices[0].type & (cl.device_type.CPU | cl.device_type.GPU | cl.device_type.ACCELERATOR)
        prg = cl.Program(ctx, "__kernel void twice(__global int *a) { a[get_global_id(0)] *= 2; }").build()
        host = np.arange(37, dtype=np.int32)
        buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
        assert buf.flags & cl.mem_flags.COPY_HOST_PTR
        prg.twice(q, host.shape, None, buf).wait()
        out = np.empty_like(host)
        cl.enqueue_copy(q, out, buf).wait()
        assert (out == 2 * host).all()
        pool = cl_tools.MemoryPool(cl_tools.ImmediateAllocator(q))
        block = pool.allocate(64)
        cl.enqueue_copy(q, block, host[:16])
        q.finish()
        try:
            cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 0)
        except cl.LogicError:
            pass
        try:
            cl.Program(ctx, "__kernel void broken(").build()
        except cl.RuntimeError as e:
            assert e.build_log
        if ctx.devices[0].svm_capabilities:
            svm = cl_tools.SVMPool(cl_tools.SVMAllocator(ctx, queue=q)).allocate(host.nbytes)
            cl.enqueue_copy(q, svm, host)
            prg.twice(q, host.shape, None, svm).wait()
    """)


@needs_opencl
def test_svm_kernel_arguments_on_every_device():
    # A launch keeps its SVM arguments until OpenCL says it is done, and releases what OpenCL
    # dropped at the next launch; after the last one, Python's atexit releases it.
    assert_no_leaks("""
        import gpukit.cl as cl
        import gpukit.cl.tools as cl_tools
        for platform in cl.get_platforms():
            for device in platform.get_devices():
                if not device.svm_capabilities:
                    continue
                ctx = cl.Context([device])
                q = cl.CommandQueue(ctx)
                prg = cl.Program(ctx, "__kernel void twice(__global int *a) { a[get_global_id(0)] *= 2; }").build()
                pool = cl_tools.SVMPool(cl_tools.SVMAllocator(ctx, queue=q))
                for _ in range(3):
                    prg.twice(q, (64,), None, pool.allocate(64 * 4))
                q.finish()
    """)


@pytest.mark.gpu
def test_cuda_arrays_and_kernels():
    assert_no_leaks("""
        import numpy as np
        import gpukit.autoinit
        import gpukit.driver as drv, gpukit.gpuarray as gpuarray, gpukit.cumath as cumath
        import gpukit.curandom as curandom
        from gpukit.compiler import SourceModule
        from gpukit.elementwise import ElementwiseKernel
        from gpukit.reduction import ReductionKernel
        host = np.arange(1001, dtype=np.float32)
        x = gpuarray.to_gpu(host)
        y = 2 * x + 1  # fused
        assert np.allclose(y.get(), 2 * host + 1)
        assert np.isclose(gpuarray.sum(x).get(), host.sum())
        assert np.allclose(cumath.sqrt(x).get(), np.sqrt(host))
        assert curandom.rand((100,)).get().shape == (100,)
        mod = SourceModule('extern "C" __global__ void twice(float *a) { a[threadIdx.x] *= 2; }', no_extern_c=True)
        a = gpuarray.to_gpu(host[:32])
        mod.get_function("twice")(a, block=(32, 1, 1), grid=(1, 1))
        assert np.allclose(a.get(), 2 * host[:32])
        add = ElementwiseKernel("float *a, float b", "a[i] += b")
        add(a, np.float32(1))
        dot = ReductionKernel(np.float32, "0", "a+b", "x[i]*y[i]", "float *x, float *y")
        assert np.isclose(dot(x, x).get(), np.dot(host, host), rtol=1e-5)
        stream = drv.Stream()
        event = drv.Event().record(stream)
        event.synchronize()
        assert drv.Context.get_current().get_cache_config() in set(drv.func_cache)
        try:
            drv.mem_alloc(1 << 60)
        except drv.MemoryError:
            pass
    """)


def test_a_cycle_through_an_arrays_members_is_collected():
    # The collector sees what the C++ array holds (base, gpudata, allocator, ...): a cycle
    # through them is freed by gc.collect() instead of living to exit.
    import gc
    import weakref

    import numpy as np
    import gpukit.gpuarray as gpuarray

    class Holder:
        pass

    for member in ("base", "allocator"):
        holder = Holder()
        array = gpuarray.GPUArray((3,), np.float32, gpudata=ADDRESS, **{member: holder})
        holder.array = array
        gone = weakref.ref(array)
        del array, holder
        gc.collect()
        assert gone() is None, member
