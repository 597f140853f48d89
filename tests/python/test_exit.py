"""Interpreter exit is clean whatever the program leaves behind: live objects of every kind in
module globals and in reference cycles, and daemon threads inside calls that released the GIL.

Each case runs in a process of its own. Clean means the exit status the program chose (3,
so that an abort or a swallowed SystemExit cannot pass for it) and nothing on stderr.

A daemon thread in a GIL-releasing call meets the exit in one of two ways, and each case
makes its way certain rather than likely (python/bindings/common/release_gil.hpp says what went
wrong in each and what gpukit does instead):
- "returns while finalizing": the thread loops over a short call while the script keeps an
  object whose __del__ sleeps, with the GIL released, during finalization; a call returns
  and asks for the GIL back after finalization has begun (Python 3.11 to 3.13 then end the
  thread with pthread_exit, which used to abort: "terminate called without an active
  exception").
- "runs past exit": the thread is inside a long call when the script exits at once, so the
  call still runs while exit() runs the libraries' exit handlers (which used to segfault
  under a running NVRTC compile).
"""

import os
import subprocess
import sys
import textwrap

import pytest

from gpukit import _gpukit

from cl_devices import needs_opencl

EXIT_STATUS = 3

# Kept alive in __main__'s globals: its __del__ runs during finalization, after CPython has
# started refusing the GIL to other threads, and gives them time to ask for it.
SLOW_FINALIZATION = """
class _SlowFinalization:
    def __del__(self, sleep=__import__("time").sleep):
        sleep(0.5)
_slow_finalization = _SlowFinalization()
"""

# What daemon threads hold when the program ends is never released (their frames are not
# unwound): leaked for real, by design. So the scripts that leave such threads turn off
# nanobind's leak report (on for the tests: conftest.py), and only they: every other script here also shows
# that nothing leaks, since a leak report on stderr fails assert_clean_exit.
LEAKS_BY_DESIGN = """
from gpukit import _gpukit
_gpukit._set_leak_warnings(False)
"""

# A daemon thread that runs `start` once, then calls `op` over and over; the script goes on
# once `ready` is set.
THREAD = (
    LEAKS_BY_DESIGN
    + """
import threading, time
_entered, _completed = threading.Event(), threading.Event()
def _call_forever():
    {start}
    while True:
        _entered.set()
{op}
        _completed.set()
threading.Thread(target=_call_forever, daemon=True).start()
assert {ready}.wait(120), "the thread did not get going"
"""
)

WHEN = ("returns while finalizing", "runs past exit")

# An object that refers to itself: only the cyclic collector frees it, and what it holds.
SELF_REFERENCING_HOLDER = """
class Holder:
    pass
holder = Holder()
holder.me = holder
"""


def run_script(script, timeout=120):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=timeout)


def assert_clean_exit(*pieces):
    """Runs the script made of `pieces` (each dedented on its own), ending it with
    SystemExit(3): it must exit with 3 and print nothing on stderr."""
    script = "\n".join(textwrap.dedent(piece) for piece in pieces) + f"\nraise SystemExit({EXIT_STATUS})\n"
    proc = run_script(script)
    assert (proc.returncode, proc.stderr) == (EXIT_STATUS, ""), proc.stderr


def assert_clean_exit_with_thread(setup, calls, when, start="pass"):
    """`setup`, then a daemon thread that runs `start`, then loops over a call from `calls`
    (name -> (short call, long call)) that meets the exit as `when` says."""
    short, long = calls
    if when == "returns while finalizing":
        thread = THREAD.format(
            op=textwrap.indent(textwrap.dedent(short).strip(), " " * 8), ready="_completed", start=start
        )
        assert_clean_exit(setup, thread, SLOW_FINALIZATION)
    else:
        thread = THREAD.format(
            op=textwrap.indent(textwrap.dedent(long).strip(), " " * 8), ready="_entered", start=start
        )
        assert_clean_exit(setup, thread, "time.sleep(0.2)")


# ---------------------------------------------------------------------------------------
# OpenCL (PoCL in CI)

CL_SETUP = """
import numpy as np
import gpukit.cl as cl
import gpukit.cl.tools as cl_tools
ctx = cl.create_some_context()
q = cl.CommandQueue(ctx)
SOURCE = '''
__kernel void fill(__global int *out, int value) { out[get_global_id(0)] = value; }
__kernel void spin(__global int *out, int n) {
    int acc = 0;
    for (int i = 0; i < n; ++i) acc = acc * 1664525 + i;
    out[get_global_id(0)] = acc;
}
'''
prg = cl.Program(ctx, SOURCE).build()
host = np.arange(1 << 16, dtype=np.int32)
buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, host.nbytes)
other = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, host.nbytes)
"""

CL_SVM_SETUP = (
    CL_SETUP
    + """
if ctx.devices[0].svm_capabilities == 0:
    raise SystemExit(3)  # nothing to test on this device; the exit must still be clean
svm_pool = cl_tools.SVMPool(cl_tools.SVMAllocator(ctx, queue=q))
"""
)

# Every OpenCL call that releases the GIL, as (short call, long call); the long ones wait for
# a kernel that runs for seconds.
LONG_KERNEL = "prg.spin(q, (1,), None, other, np.int32(2000000000))"
CL_BLOCKING_CALLS = {
    "Event.wait": ("prg.spin(q, (4,), None, buf, np.int32(20000)).wait()", f"{LONG_KERNEL}.wait()"),
    "CommandQueue.finish": ("prg.spin(q, (4,), None, buf, np.int32(20000)); q.finish()", f"{LONG_KERNEL}; q.finish()"),
    "Program.build": (
        "cl.Program(ctx, SOURCE).build()",
        "cl.Program(ctx, SOURCE + '//' + str(time.perf_counter_ns())).build()",
    ),
    "enqueue_copy host to buffer": (
        "cl.enqueue_copy(q, buf, host)",
        f"cl.enqueue_copy(q, buf, host, wait_for=[{LONG_KERNEL}])",
    ),
    "enqueue_copy buffer to host": (
        "cl.enqueue_copy(q, host, buf)",
        f"cl.enqueue_copy(q, host, buf, wait_for=[{LONG_KERNEL}])",
    ),
    "enqueue_copy buffer to buffer": (
        "cl.enqueue_copy(q, other, buf)",
        f"cl.enqueue_copy(q, buf, other, wait_for=[{LONG_KERNEL}])",
    ),
    "enqueue_copy non-blocking": (
        "cl.enqueue_copy(q, buf, host, is_blocking=False).wait()",
        f"cl.enqueue_copy(q, buf, host, is_blocking=False, wait_for=[{LONG_KERNEL}]).wait()",
    ),
}

CL_SVM_BLOCKING_CALLS = {
    "enqueue_copy to SVM": (
        "cl.enqueue_copy(q, svm_pool.allocate(host.nbytes), host)",
        f"cl.enqueue_copy(q, svm_pool.allocate(host.nbytes), host, wait_for=[{LONG_KERNEL}])",
    ),
    "PooledSVM.release": (
        "block = svm_pool.allocate(4096); block.bind_to_queue(q); block.release()",
        f"block = svm_pool.allocate(4096); block.bind_to_queue(q); {LONG_KERNEL}; block.release()",
    ),
    "PooledSVM.enqueue_release": (
        "svm_pool.allocate(4096).enqueue_release(q)",
        f"block = svm_pool.allocate(4096); {LONG_KERNEL}; block.enqueue_release(q)",
    ),
}


@needs_opencl
@pytest.mark.parametrize("when", WHEN)
@pytest.mark.parametrize("call", sorted(CL_BLOCKING_CALLS))
def test_opencl_daemon_thread_in_blocking_call(call, when):
    assert_clean_exit_with_thread(CL_SETUP, CL_BLOCKING_CALLS[call], when)


@needs_opencl
@pytest.mark.parametrize("when", WHEN)
@pytest.mark.parametrize("call", sorted(CL_SVM_BLOCKING_CALLS))
def test_opencl_svm_daemon_thread_in_blocking_call(call, when):
    assert_clean_exit_with_thread(CL_SVM_SETUP, CL_SVM_BLOCKING_CALLS[call], when)


# Objects of every OpenCL kind left in module globals, some with work still running.
CL_GLOBALS = {
    "context, queue, program, kernel, buffers": """
        kernel = cl.Kernel(prg, "fill")
        kernel.set_args(buf, np.int32(7))
        local = cl.LocalMemory(64)
        platform, device = ctx.devices[0].platform, ctx.devices[0]
    """,
    "kernel still running": "running = prg.spin(q, (1,), None, buf, np.int32(200000000))",
    "event of a finished command": "done = prg.fill(q, (16,), None, buf, np.int32(1)); done.wait()",
    "buffer pool with held and active blocks": """
        pool = cl_tools.MemoryPool(cl_tools.ImmediateAllocator(q))
        held = pool.allocate(1 << 16); held.release()
        active = pool.allocate(1 << 20)
    """,
    "deferred allocator buffer": "deferred = cl_tools.DeferredAllocator(ctx)(4096)",
    "queue before its context": "q2 = cl.CommandQueue(ctx); del ctx",
    "profiling queue and event": """
        pq = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
        timed = prg.fill(pq, (16,), None, buf, np.int32(2)); timed.wait()
        profile = timed.profile
    """,
    "errors with tracebacks": """
        try:
            cl.Kernel(prg, "no_such_kernel")
        except cl.Error as e:
            kernel_error = e
        try:
            cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 0)
        except cl.Error as e:
            size_error = e
    """,
}

CL_SVM_GLOBALS = {
    "SVM allocation and pool blocks": """
        allocation = cl_tools.SVMAllocator(ctx)(4096)
        held = svm_pool.allocate(4096); held.release()
        active = svm_pool.allocate(1 << 16)
        bound = svm_pool.allocate(256); bound.bind_to_queue(q)
    """,
}


@pytest.mark.parametrize("case", sorted(CL_GLOBALS))
@needs_opencl
def test_opencl_objects_in_globals(case):
    assert_clean_exit(CL_SETUP, CL_GLOBALS[case])


@pytest.mark.parametrize("case", sorted(CL_SVM_GLOBALS))
@needs_opencl
def test_opencl_svm_objects_in_globals(case):
    assert_clean_exit(CL_SVM_SETUP, CL_SVM_GLOBALS[case])


@needs_opencl
def test_opencl_objects_in_reference_cycles():
    # Collected by the cyclic collector at exit (or never): either way in no set order.
    assert_clean_exit(
        CL_SETUP,
        SELF_REFERENCING_HOLDER,
        """
        holder.objects = [ctx, q, prg, buf, cl.Kernel(prg, "fill"), prg.fill(q, (4,), None, buf, np.int32(1))]
        pool = cl_tools.MemoryPool(cl_tools.ImmediateAllocator(q))
        holder.block = pool.allocate(1024)
        cycle = [holder, pool]
        cycle.append(cycle)
        del holder, pool, cycle, ctx, q, prg, buf, other
    """,
    )


@needs_opencl
def test_opencl_finalizer_using_objects_at_exit():
    # A __del__ that runs during finalization and still uses the queue and buffers.
    assert_clean_exit(
        CL_SETUP,
        """
        class Flusher:
            def __del__(self):
                cl.enqueue_copy(q, host, buf)
                q.finish()
        flusher = Flusher()
    """,
    )


@needs_opencl
def test_opencl_several_daemon_threads_and_a_running_kernel():
    assert_clean_exit(
        CL_SETUP,
        LEAKS_BY_DESIGN,
        """
        import threading, time
        def call_forever(op):
            while True:
                op()
        for op in (q.finish, lambda: cl.Program(ctx, SOURCE).build(), lambda: cl.enqueue_copy(q, host, buf)):
            threading.Thread(target=call_forever, args=(op,), daemon=True).start()
        running = prg.spin(q, (1,), None, other, np.int32(100000000))
        time.sleep(0.2)
    """,
        SLOW_FINALIZATION,
    )


# ---------------------------------------------------------------------------------------
# CUDA without a GPU: compilers and objects that need no driver

CUDA_SOURCE = """
extern "C" __global__ void twice(float *a) { a[threadIdx.x] *= 2; }
extern "C" __global__ void spin(long long cycles) {
    const long long start = clock64();
    while (clock64() - start < cycles) {}
}
"""
CPU_SETUP = f"""
import gpukit.compiler as compiler
from gpukit import _gpukit
SOURCE = {CUDA_SOURCE!r}
compiler.compile(SOURCE, arch="sm_90")  # fills the cache, so that the short loop hits it
ptx = compiler.compile(SOURCE, arch="sm_90", target="ptx")
def link(ptx):
    linker = _gpukit._Linker("sm_90", [])
    linker.add_data(ptx, "ptx", "twice.ptx")
    return linker.complete()
"""

CPU_BLOCKING_CALLS = {
    "compile": (
        'compiler.compile(SOURCE, arch="sm_90")',
        'compiler.compile(SOURCE + "//" + str(time.perf_counter_ns()), arch="sm_90", cache_dir=False)',
    ),
    "nvJitLink complete": ("link(ptx)", "link(ptx)"),
}


@pytest.mark.parametrize("when", WHEN)
@pytest.mark.parametrize("call", sorted(CPU_BLOCKING_CALLS))
def test_compiler_daemon_thread_in_blocking_call(call, when):
    if call.startswith("nvJitLink") and not _gpukit.nvjitlink_available():
        pytest.skip("libnvJitLink is not installed")
    assert_clean_exit_with_thread(CPU_SETUP, CPU_BLOCKING_CALLS[call], when)


CPU_GLOBALS = {
    "compiled code and a linker mid-link": """
        import gpukit.compiler as compiler
        from gpukit import _gpukit
        cubin = compiler.compile('extern "C" __global__ void k(float *a) { a[0] = 1; }', arch="sm_90")
        linker = _gpukit._Linker("sm_90", []) if _gpukit.nvjitlink_available() else None
    """,
    "errors of CUDA calls without a driver": """
        import numpy as np
        import gpukit.driver as drv, gpukit.gpuarray as gpuarray
        errors = []
        for call in (lambda: drv.Device(0), lambda: gpuarray.empty(3, np.float32), drv.Context.synchronize):
            try:
                call()
            except drv.Error as e:
                errors.append(e)
    """,
    "kernels and layouts that exist before a context": """
        from gpukit.elementwise import ElementwiseKernel
        from gpukit import _gpukit
        kernel = ElementwiseKernel("float *a", "a[i] = 2 * a[i]", "double_it")
        layout = _gpukit.Layout([3, 4], [16, 4], 4)
    """,
    "pycuda_compat modules": "import gpukit.pycuda_compat; import pycuda.driver, pycuda.compiler, pycuda.gpuarray",
}


@pytest.mark.parametrize("case", sorted(CPU_GLOBALS))
def test_objects_in_globals_without_a_gpu(case):
    assert_clean_exit(CPU_GLOBALS[case])


def test_objects_without_a_gpu_in_reference_cycles():
    assert_clean_exit("""
        import gpukit.compiler as compiler
        from gpukit.elementwise import ElementwiseKernel
        cycle = [ElementwiseKernel("float *a", "a[i] = 2 * a[i]", "double_it")]
        try:
            compiler.SourceModule("__global__ void k() {}")
        except Exception as e:
            cycle.append(e)  # the traceback refers back to this frame's globals
        cycle.append(cycle)
        del cycle
    """)


# ---------------------------------------------------------------------------------------
# CUDA on a GPU

CUDA_SETUP = f"""
import numpy as np
import gpukit.autoinit
import gpukit.driver as drv
import gpukit.gpuarray as gpuarray
from gpukit.compiler import SourceModule
SOURCE = {CUDA_SOURCE!r}
host = np.arange(1 << 20, dtype=np.float32)
dev = drv.mem_alloc(host.nbytes)
dev2 = drv.mem_alloc(host.nbytes)
stream = drv.Stream()
module = SourceModule(SOURCE, no_extern_c=True)
twice, spin = module.get_function("twice"), module.get_function("spin")
"""

LONG_CUDA_KERNEL = "spin(np.int64(1 << 33), block=(1, 1, 1))"  # runs for seconds


def behind_long_cuda_kernel(call):
    """(short call, long call) for a call that waits for the work before it: alone, and after
    LONG_CUDA_KERNEL."""
    return call, f"{LONG_CUDA_KERNEL}; {call}"


# As (short call, long call); the long ones wait for a kernel that runs for seconds.
CUDA_BLOCKING_CALLS = {
    "Context.synchronize": (
        "twice(dev, block=(256, 1, 1)); drv.Context.synchronize()",
        f"{LONG_CUDA_KERNEL}; drv.Context.synchronize()",
    ),
    "Stream.synchronize": (
        "twice(dev, block=(256, 1, 1), stream=stream); stream.synchronize()",
        "spin(np.int64(1 << 33), block=(1, 1, 1), stream=stream); stream.synchronize()",
    ),
    "Event.synchronize": (
        "drv.Event().record(stream).synchronize()",
        "spin(np.int64(1 << 33), block=(1, 1, 1), stream=stream); drv.Event().record(stream).synchronize()",
    ),
    "memcpy_htod": behind_long_cuda_kernel("drv.memcpy_htod(dev, host)"),
    "memcpy_dtoh": behind_long_cuda_kernel("drv.memcpy_dtoh(host, dev)"),
    "memcpy_dtod": (
        "drv.memcpy_dtod(dev2, dev, host.nbytes)",
        f"{LONG_CUDA_KERNEL}; drv.memcpy_dtod(dev2, dev, host.nbytes); drv.Context.synchronize()",
    ),
    "time_kernel launch": (
        "twice(dev, block=(256, 1, 1), time_kernel=True)",
        "spin(np.int64(1 << 33), block=(1, 1, 1), time_kernel=True)",
    ),
    "GPUArray get": behind_long_cuda_kernel("gpuarray.to_gpu(host).get()"),
    "GPUArray sum": behind_long_cuda_kernel("gpuarray.to_gpu(host).sum().get()"),
    "SourceModule": (
        "SourceModule(SOURCE, no_extern_c=True)",
        "SourceModule(SOURCE + '//' + str(time.perf_counter_ns()), no_extern_c=True)",
    ),
}


@pytest.mark.gpu
@pytest.mark.parametrize("when", WHEN)
@pytest.mark.parametrize("call", sorted(CUDA_BLOCKING_CALLS))
def test_cuda_daemon_thread_in_blocking_call(call, when):
    # A context is current on the thread that made it: the new thread pushes it.
    assert_clean_exit_with_thread(CUDA_SETUP, CUDA_BLOCKING_CALLS[call], when, start="gpukit.autoinit.context.push()")


CUDA_GLOBALS = {
    "context objects": """
        event = drv.Event().record(stream)
        another_module = SourceModule(SOURCE + "// another", no_extern_c=True)
        array = gpuarray.to_gpu(host)
        view = array[::3]
        pinned = drv.pagelocked_empty((1000,), np.float32)
    """,
    "pools with held and active blocks": """
        from gpukit import tools
        pool = tools.DeviceMemoryPool()
        held = pool.allocate(1 << 20); held.free()
        active = pool.allocate(1 << 22)
        host_pool = tools.PageLockedMemoryPool()
        pinned = host_pool.allocate((1000,), np.float32)
    """,
    "work still running": """
        busy = gpuarray.to_gpu(host)
        for _ in range(50):
            busy = busy * 2
        pending = busy.get_async(stream)
    """,
    "asynchronous copies holding dropped host memory": """
        spin(np.int64(1 << 30), block=(1, 1, 1), stream=stream)  # about half a second
        # Page-locked, dropped at once: gpukit holds it until the copy is done.
        drv.memcpy_htod_async(dev, drv.pagelocked_empty(host.shape, host.dtype), stream)
        result = gpuarray.to_gpu(host).get_async(stream)
    """,
    "context detached before its objects": """
        kept = (drv.Event(), drv.Stream(), gpuarray.zeros(100, np.float32))
        gpukit.autoinit.context.pop()
    """,
}


@pytest.mark.gpu
@pytest.mark.parametrize("case", sorted(CUDA_GLOBALS))
def test_cuda_objects_in_globals(case):
    assert_clean_exit(CUDA_SETUP, CUDA_GLOBALS[case])


@pytest.mark.gpu
def test_cuda_objects_in_reference_cycles():
    assert_clean_exit(
        CUDA_SETUP,
        SELF_REFERENCING_HOLDER,
        """
        holder.objects = [stream, dev, twice, drv.Event(), gpuarray.to_gpu(host), drv.Context.get_current()]
        del holder, stream, dev, twice
    """,
    )
