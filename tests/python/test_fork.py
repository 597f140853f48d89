"""fork(): a child that a process copied after setting up OpenCL or CUDA gets a clear error
from its first call (PoCL's children used to hang in it), telling it to use the 'spawn'
start method; the child still imports gpukit, does CPU-only work and exits cleanly; 'spawn'
children, and children of processes that never used the library, use it as usual.

Each case forks inside a fresh process of its own, never the test runner, and a child that
hangs is killed and reported as "child hung" rather than stopping the suite."""

import multiprocessing
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gpukit.cl as cl
import gpukit.driver as drv

from cl_devices import needs_opencl
from conftest import installed_nvcc


def run_script(script, env=None, timeout=180):
    """Runs `script` in a fresh process; returns its stdout after asserting that it exited
    with 0 and printed nothing on stderr (nor did any child it forked)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), **(env or {}))
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)], env=env, capture_output=True, text=True, timeout=timeout
    )
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    return proc.stdout


# fork_and_try(calls) runs each (name, call) in a fork() child, which prints
# "<name>: <exception type>: <message>" or "<name>: ok" for each, then exits through
# SystemExit(5) with the parent's objects alive; the parent prints the child's exit status,
# or "child hung" after killing a child that has not exited within a minute.
FORK_AND_TRY = """
import os, time, warnings
# Python 3.12+ warns about forking a process with threads (PoCL has some); that is the point.
warnings.filterwarnings("ignore", "This process .* is multi-threaded", DeprecationWarning)

def fork_and_try(calls):
    pid = os.fork()
    if pid == 0:
        for name, call in calls:
            try:
                call()
                print(f"{name}: ok", flush=True)
            except Exception as e:
                print(f"{name}: {type(e).__name__}: {e}", flush=True)
        raise SystemExit(5)
    deadline = time.monotonic() + 60
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            print("child exit status", os.waitstatus_to_exitcode(status), flush=True)
            return
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            print("child hung", flush=True)
            return
        time.sleep(0.05)
"""


def child_results(out, calls):
    """{name: result} of a fork_and_try over `calls` names, after checking that the child
    ran them all and exited with 5."""
    lines = out.splitlines()
    assert lines[-1] == "child exit status 5", out
    results = dict(line.split(": ", 1) for line in lines[:-1])
    assert sorted(results) == sorted(calls), out
    return results


def assert_refused(results, library):
    for name, result in results.items():
        assert result.startswith(f"RuntimeError: {library} was initialized in a parent of this process"), (name, result)
        assert "'spawn' start method" in result, (name, result)


# ---------------------------------------------------------------------------------------
# OpenCL (PoCL in CI)

OPENCL_PARENT = """
import numpy as np
import gpukit.cl as cl
import gpukit.cl.tools as tools
ctx = cl.create_some_context()
q = cl.CommandQueue(ctx)
host = np.arange(16, dtype=np.int32)
buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
prg = cl.Program(ctx, "__kernel void twice(__global int *a) { a[get_global_id(0)] *= 2; }").build()
event = prg.twice(q, (16,), None, buf)
pool = tools.MemoryPool(tools.ImmediateAllocator(q))
active, held = pool.allocate(256), pool.allocate(4096)
held.release()
if ctx.devices[0].svm_capabilities:
    svm_pool = tools.SVMPool(tools.SVMAllocator(ctx, queue=q))
    svm_block = svm_pool.allocate(256)
    svm_block.bind_to_queue(q)
"""

OPENCL_CHILD_CALLS = {
    "get_platforms": "cl.get_platforms",
    "create_some_context": "cl.create_some_context",
    "Context": "lambda: cl.Context(ctx.devices)",
    "CommandQueue": "lambda: cl.CommandQueue(ctx)",
    "Buffer": "lambda: cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64)",
    "enqueue_copy to host": "lambda: cl.enqueue_copy(q, np.empty_like(host), buf)",
    "enqueue_copy to buffer": "lambda: cl.enqueue_copy(q, buf, host)",
    "kernel launch": "lambda: prg.twice(q, (16,), None, buf)",
    "Program.build": "lambda: cl.Program(ctx, '__kernel void k() {}').build()",
    "Event.wait": "event.wait",
    "CommandQueue.finish": "q.finish",
    "pool allocate": "lambda: pool.allocate(1 << 20)",
    "pooled release": "active.release",
}


def calls_list(calls):
    return "[" + ", ".join(f"({name!r}, {call})" for name, call in calls.items()) + "]"


@needs_opencl
def test_opencl_in_a_forked_child_is_a_clear_error():
    out = run_script(FORK_AND_TRY + OPENCL_PARENT + f"fork_and_try({calls_list(OPENCL_CHILD_CALLS)})")
    results = child_results(out, OPENCL_CHILD_CALLS)
    # Giving a pooled block back is the pool's own bookkeeping, no OpenCL call.
    assert results.pop("pooled release") == "ok"
    assert_refused(results, "OpenCL")


CPU_WORK = {
    "import": "lambda: __import__('gpukit.gpuarray')",
    "layout": "lambda: _gpukit.Layout([3, 4], [16, 4], 4).transpose().shape == [4, 3] or fail()",
    "compile": "lambda: compiler.compile('extern \"C\" __global__ void k(int *a) { a[0] = 1; }', arch='sm_90')[:4]"
    " == b'\\x7fELF' or fail()",
    "numpy": "lambda: np.testing.assert_array_equal(np.arange(3) * 2, [0, 2, 4])",
}

CPU_WORK_SETUP = """
import numpy as np
import gpukit.compiler as compiler
from gpukit import _gpukit
def fail():
    raise AssertionError("wrong result")
"""


@needs_opencl
def test_cpu_work_in_a_forked_child_after_opencl():
    out = run_script(FORK_AND_TRY + OPENCL_PARENT + CPU_WORK_SETUP + f"fork_and_try({calls_list(CPU_WORK)})")
    assert child_results(out, CPU_WORK) == dict.fromkeys(CPU_WORK, "ok")


@needs_opencl
def test_opencl_in_a_child_of_a_process_that_did_not_use_it():
    # Only checking that the loader exists sets nothing up: the child may use OpenCL, and
    # so may its own child once it has (that child's parent is the one that used it).
    out = run_script(
        FORK_AND_TRY
        + """
import numpy as np
import gpukit.cl as cl
assert cl.available()
def double_in_child():
    ctx = cl.create_some_context()
    q = cl.CommandQueue(ctx)
    host = np.arange(10, dtype=np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
    cl.Program(ctx, "__kernel void twice(__global int *a) { a[get_global_id(0)] *= 2; }").build().twice(
        q, (10,), None, buf)
    out = np.empty_like(host)
    cl.enqueue_copy(q, out, buf)
    np.testing.assert_array_equal(out, host * 2)
    fork_and_try([("grandchild", cl.get_platforms)])
fork_and_try([("double", double_in_child)])
"""
    )
    lines = out.splitlines()
    assert lines[0].startswith("grandchild: RuntimeError: OpenCL was initialized in a parent"), out
    assert lines[1:] == ["child exit status 5", "double: ok", "child exit status 5"], out


def _double_with_opencl(values):
    ctx = cl.create_some_context()
    q = cl.CommandQueue(ctx)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=values)
    cl.Program(ctx, "__kernel void twice(__global int *a) { a[get_global_id(0)] *= 2; }").build().twice(
        q, (values.size,), None, buf
    )
    out = np.empty_like(values)
    cl.enqueue_copy(q, out, buf)
    return out


def _opencl_error_in_child(_):
    try:
        cl.get_platforms()
    except cl.RuntimeError as e:
        return str(e)
    return "no error"


@needs_opencl
def test_multiprocessing_spawn_works_and_fork_says_to_use_it(monkeypatch):
    # The children take the first device they find: NVIDIA's OpenCL library removes itself
    # from OCL_ICD_FILENAMES in the environment of a process that makes a context, so where
    # that variable names it (the GPU machine) the children of this process see only PoCL.
    monkeypatch.delenv("GPUKIT_CL_TEST", raising=False)
    monkeypatch.delenv("PYOPENCL_TEST", raising=False)
    # This test process uses OpenCL, as a program would.
    values = np.arange(7, dtype=np.int32)
    np.testing.assert_array_equal(_double_with_opencl(values), values * 2)
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        np.testing.assert_array_equal(pool.apply_async(_double_with_opencl, (values,)).get(120), values * 2)
    # A hung worker makes get() time out; leaving the with-block then terminates the pool.
    out = run_script(
        """
import multiprocessing, sys, warnings
warnings.filterwarnings("ignore", "This process .* is multi-threaded", DeprecationWarning)
sys.path.insert(0, %r)
import gpukit.cl as cl
from test_fork import _opencl_error_in_child
cl.get_platforms()
with multiprocessing.get_context("fork").Pool(1) as pool:
    print(pool.apply_async(_opencl_error_in_child, (None,)).get(60))
"""
        % os.path.dirname(__file__)
    )
    assert "cannot be used in a forked child" in out and "'spawn' start method" in out, out


# ---------------------------------------------------------------------------------------
# The run-time compilers: a child may compile and link, even when another thread of its
# parent was inside NVRTC or nvJitLink at the fork (1 to 9 children in 10 used to hang on a
# mutex NVRTC held there: fork() now waits for the calls in flight).

COMPILING_THREAD = """
import os, threading, time, warnings
warnings.filterwarnings("ignore", "This process .* is multi-threaded", DeprecationWarning)
from gpukit import _gpukit
import gpukit.compiler as compiler
SOURCE = 'extern "C" __global__ void k(int *a) {{ a[threadIdx.x] = {}; }}'
LINK = _gpukit.nvjitlink_available()

def compile_and_link(value):
    cubin = compiler.compile(SOURCE.format(value), arch="sm_90", cache_dir=False)
    assert cubin[:4] == b"\\x7fELF"
    if LINK:
        linker = _gpukit._Linker("sm_90", [])
        linker.add_data(compiler.compile(SOURCE.format(value), arch="compute_90", cache_dir=False), "ptx", "k.ptx")
        assert linker.complete()[:4] == b"\\x7fELF"

stop = threading.Event()
done = [0]
def loop():
    while not stop.is_set():
        compile_and_link(done[0])
        done[0] += 1
thread = threading.Thread(target=loop, daemon=True)
thread.start()
while done[0] == 0:
    time.sleep(0.01)
"""


def test_a_child_compiles_and_links_while_a_thread_of_its_parent_did():
    out = run_script(
        COMPILING_THREAD
        + """
for n in range(6):
    time.sleep(0.01 * (n % 4))  # forks at different points of the thread's calls
    pid = os.fork()
    if pid == 0:
        try:
            compile_and_link(1000 + n)
            os._exit(0)
        except BaseException as e:
            print(f"child {n}: {type(e).__name__}: {e}", flush=True)
            os._exit(3)
    deadline = time.monotonic() + 30
    while not os.waitpid(pid, os.WNOHANG)[0]:
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            print(f"child {n} hung", flush=True)
            break
        time.sleep(0.01)
    else:
        continue
stop.set()
thread.join()  # so that nothing the thread made is alive at exit
print("done")
""",
        timeout=300,
    )
    assert out == "done\n", out


def test_nccl_in_a_forked_child_of_a_process_that_loaded_it_is_a_clear_error():
    import gpukit.nccl as nccl

    if not nccl.available():
        pytest.skip("NCCL (libnccl.so.2) is not installed")
    # NCCL's calls wait on their peers, so fork() cannot wait for them: the child is refused.
    out = run_script(
        FORK_AND_TRY
        + """
import gpukit.nccl as nccl
fork_and_try([("version before", nccl.version)])  # nothing loaded in this process yet: the child may
nccl.version()
fork_and_try([("version", nccl.version), ("get_unique_id", nccl.get_unique_id)])
"""
    )
    lines = out.splitlines()
    assert lines[0].startswith("version before: ok") and lines[1] == "child exit status 5", out
    assert_refused(child_results("\n".join(lines[2:]), ["version", "get_unique_id"]), "NCCL")


# ---------------------------------------------------------------------------------------
# CUDA without a GPU: the toolkit's stub libcuda.so (for linking; every call fails) loads
# as a driver, which is all the fork check looks at.


def toolkit_stub_libcuda():
    nvcc = installed_nvcc()
    if not nvcc:
        return None
    root = os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
    for stubs in ("lib64/stubs", "targets/x86_64-linux/lib/stubs", "targets/sbsa-linux/lib/stubs"):
        if os.path.isfile(os.path.join(root, stubs, "libcuda.so")):
            return os.path.join(root, stubs, "libcuda.so")
    return None


CUDA_CHILD_CALLS = {
    "Device": "lambda: drv.Device(0)",
    "Device.count": "drv.Device.count",
    "mem_alloc": "lambda: drv.mem_alloc(64)",
    "Context.get_current": "drv.Context.get_current",
    "Stream": "drv.Stream",
}


def test_cuda_in_a_forked_child_is_a_clear_error_with_the_stub_driver(tmp_path):
    if drv.driver_available():
        pytest.skip("a CUDA driver is installed (test_cuda_in_a_forked_child_is_a_clear_error covers it)")
    stub = toolkit_stub_libcuda()
    if stub is None:
        pytest.skip("no CUDA toolkit with a stub libcuda.so")
    (tmp_path / "libcuda.so.1").symlink_to(stub)
    out = run_script(
        FORK_AND_TRY
        + f"""
import gpukit.driver as drv
calls = {calls_list(CUDA_CHILD_CALLS)}
fork_and_try(calls)  # before this process loaded the driver: the child's own error
try:
    drv.Device(0)
except drv.RuntimeError as e:
    print("parent:", e)
fork_and_try(calls)  # after: the fork error
""",
        env={"LD_LIBRARY_PATH": str(tmp_path)},
    )
    lines = out.splitlines()
    first_child, parent, second_child = lines[:6], lines[6], lines[7:]
    assert parent.startswith("parent: cuInit failed"), out
    own_error = "RuntimeError: " + parent[len("parent: ") :]
    assert child_results("\n".join(first_child), CUDA_CHILD_CALLS) == dict.fromkeys(CUDA_CHILD_CALLS, own_error)
    assert_refused(child_results("\n".join(second_child), CUDA_CHILD_CALLS), "CUDA")


def test_cuda_without_a_driver_gives_the_same_error_in_a_child():
    if drv.driver_available():
        pytest.skip("a CUDA driver is installed (test_cuda_in_a_forked_child_is_a_clear_error covers it)")
    out = run_script(
        FORK_AND_TRY
        + f"""
import gpukit.driver as drv
try:
    drv.Device(0)
except drv.RuntimeError as e:
    print("parent:", e)
fork_and_try({calls_list(CUDA_CHILD_CALLS)})
"""
    )
    lines = out.splitlines()
    assert "libcuda.so.1 could not be loaded" in lines[0], out
    own_error = "RuntimeError: " + lines[0][len("parent: ") :]
    assert child_results("\n".join(lines[1:]), CUDA_CHILD_CALLS) == dict.fromkeys(CUDA_CHILD_CALLS, own_error)


# ---------------------------------------------------------------------------------------
# CUDA on a GPU

CUDA_PARENT = """
import numpy as np
import gpukit.autoinit
import gpukit.driver as drv
import gpukit.gpuarray as gpuarray
from gpukit import tools
host = np.arange(16, dtype=np.float32)
array = gpuarray.to_gpu(host)
stream = drv.Stream()
event = drv.Event().record(stream)
allocation = drv.mem_alloc(64)
pool = tools.DeviceMemoryPool()
block = pool.allocate(1 << 20)
"""

CUDA_GPU_CHILD_CALLS = dict(
    CUDA_CHILD_CALLS,
    **{
        "make_context": "lambda: drv.Device(0).make_context()",
        "memcpy_dtoh": "lambda: drv.memcpy_dtoh(np.empty_like(host), array.gpudata)",
        "GPUArray get": "array.get",
        "to_gpu": "lambda: gpuarray.to_gpu(host)",
        "Stream.synchronize": "stream.synchronize",
        "Event.synchronize": "event.synchronize",
        "Context.synchronize": "drv.Context.synchronize",
        "pool allocate": "lambda: pool.allocate(1 << 22)",
    },
)


@pytest.mark.gpu
def test_cuda_in_a_forked_child_is_a_clear_error():
    out = run_script(FORK_AND_TRY + CUDA_PARENT + f"fork_and_try({calls_list(CUDA_GPU_CHILD_CALLS)})")
    assert_refused(child_results(out, CUDA_GPU_CHILD_CALLS), "CUDA")


@pytest.mark.gpu
def test_cpu_work_in_a_forked_child_after_cuda():
    out = run_script(FORK_AND_TRY + CUDA_PARENT + CPU_WORK_SETUP + f"fork_and_try({calls_list(CPU_WORK)})")
    assert child_results(out, CPU_WORK) == dict.fromkeys(CPU_WORK, "ok")


def _double_with_cuda(values):
    import gpukit.autoinit  # noqa: F401
    import gpukit.gpuarray as gpuarray

    return (gpuarray.to_gpu(values) * 2).get()


@pytest.mark.gpu
def test_cuda_in_a_spawned_child_works():
    values = np.arange(9, dtype=np.float32)
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        np.testing.assert_array_equal(pool.apply_async(_double_with_cuda, (values,)).get(120), values * 2)
