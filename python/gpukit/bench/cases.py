"""The benchmark cases. Each side measures one library doing the same thing."""
from gpukit.bench.harness import Case, Side, Unavailable
from gpukit.bench.gpu import primary_context
from gpukit.bench import cl_pool, launch
from gpukit.bench import compile as compiling

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
    Case("sourcemodule_cold", "compile + load a small kernel, every cache defeated", "ms per module",
         [Side("gpukit SourceModule(cache_dir=False)", compiling.gpukit_cold),
          Side("CuPy RawModule(code=...)", compiling.cupy_cold)],
         scale=1e3),
    Case("sourcemodule_disk_hit", "SourceModule call in a new process with a warm disk cache (target < 2 ms)",
         "ms per call",
         [Side("gpukit SourceModule, new process", compiling.gpukit_disk_hit)],
         scale=1e3),
    Case("sourcemodule_repeat", "SourceModule of the same source again in the same process (target < 50 µs)",
         "µs per call",
         [Side("gpukit SourceModule, in-process", compiling.gpukit_repeat)],
         scale=1e6),
]
__all__ = ["ALL", "Case", "Side", "Unavailable", "primary_context"]
