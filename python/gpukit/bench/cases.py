"""The benchmark cases. Each side measures one library doing the same thing."""
from gpukit.bench.harness import Case, Side, Unavailable
from gpukit.bench.gpu import primary_context
from gpukit.bench import cl_pool, launch

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
__all__ = ["ALL", "Case", "Side", "Unavailable", "primary_context"]
