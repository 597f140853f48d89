"""The benchmark cases. Each side measures one library doing the same thing."""
from gpukit.bench.harness import Case, Side, Unavailable
from gpukit.bench.gpu import primary_context
from gpukit.bench import cl_pool, copies, launch

ALL = [
    Case("launch_empty", "host cost of launching an empty kernel (1 block, 1 thread)", "µs per launch",
         [Side("raw cuLaunchKernel (C++)", launch.raw_cpp),
          Side("cuda-python cuLaunchKernel", launch.cuda_python),
          Side("CuPy RawKernel", launch.cupy),
          Side("numba-cuda @cuda.jit", launch.numba),
          Side("PyCUDA Function.__call__", launch.pycuda),
          Side("gpukit Function.prepared_async_call", launch.gpukit_prepared),
          Side("gpukit Function.__call__", launch.gpukit_call)],
         scale=1e6),
    Case("cl_pool_alloc", f"OpenCL allocate + release of {cl_pool.SIZE} bytes on {cl_pool.device_name()}",
         "µs per pair",
         [Side("gpukit cl.tools.MemoryPool", cl_pool.gpukit_pool),
          Side("PyOpenCL tools.MemoryPool", cl_pool.pyopencl_pool),
          Side("gpukit cl.Buffer create+release", cl_pool.gpukit_buffer)],
         scale=1e6),
]


def _transfer_case(name, description, sides):
    return Case(name, description, "GB/s", [Side(label, run) for label, run in sides],
                higher_is_better=True, scale=1e-9)


def _copy_cases():
    one, two = copies.GiB, 2 * copies.GiB
    cases = []
    for pinned, kind in ((True, "pinned"), (False, "pageable")):
        memory = "page-locked" if pinned else "pageable (numpy)"
        cases.append(_transfer_case(
            f"htod_{kind}_1GiB", f"blocking copy of 1 GiB from {memory} host memory to the device",
            [("raw cuMemcpyHtoD (C++)", copies.htod_raw(one, pinned)),
             ("gpukit memcpy_htod", copies.htod_gpukit(one, pinned)),
             ("CuPy cp.asarray", copies.htod_cupy(one, pinned))]))
        cases.append(_transfer_case(
            f"dtoh_{kind}_1GiB", f"blocking copy of 1 GiB from the device to {memory} host memory",
            [("raw cuMemcpyDtoH (C++)", copies.dtoh_raw(one, pinned)),
             ("gpukit memcpy_dtoh", copies.dtoh_gpukit(one, pinned)),
             ("CuPy ndarray.get(out=)", copies.dtoh_cupy(one, pinned))]))
    cases.append(_transfer_case(
        "dtod_2GiB", "copy of 2 GiB between two device allocations",
        [("raw cuMemcpyDtoD (C++)", copies.dtod_raw(two)),
         ("gpukit memcpy_dtod", copies.dtod_gpukit(two)),
         ("CuPy cp.copyto", copies.dtod_cupy(two))]))
    return cases


ALL += _copy_cases()
__all__ = ["ALL", "Case", "Side", "Unavailable", "primary_context"]
