"""The benchmark cases. Each side measures one library doing the same thing."""
from gpukit.bench.harness import Case, Side, Unavailable
from gpukit.bench.gpu import primary_context
from gpukit.bench import cl_pool, launch, pools

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
    Case("pool_cpp", "C++ allocate + free of 1 MiB, a bin hit for the pools", "ns per pair",
         [Side("raw cuMemAlloc + cuMemFree (C++)", pools.raw_alloc_free),
          Side("raw cuMemAllocAsync + cuMemFreeAsync (C++)", pools.raw_async_alloc_free),
          Side("gpukit C++ memory_pool", pools.gpukit_cpp_pool(1))],
         scale=1e9),
    Case("pool_python", "Python allocate + release of 1 MiB from a device memory pool", "µs per pair",
         [Side("CuPy cupy.cuda.alloc (default pool)", pools.cupy_pool),
          Side("gpukit tools.DeviceMemoryPool.allocate", pools.gpukit_python_pool)],
         scale=1e6),
    Case("pool_threads", "C++ pool throughput, 1 MiB pairs, threads sharing one pool (inverse throughput)",
         "ns per pair",
         [Side("gpukit C++ memory_pool, 1 thread", pools.gpukit_cpp_pool(1)),
          Side("gpukit C++ memory_pool, 8 threads", pools.gpukit_cpp_pool(8))],
         scale=1e9),
    Case("cl_pool_alloc", f"OpenCL allocate + release of {cl_pool.SIZE} bytes on {cl_pool.device_name()}",
         "µs per pair",
         [Side("gpukit cl.tools.MemoryPool", cl_pool.gpukit_pool),
          Side("PyOpenCL tools.MemoryPool", cl_pool.pyopencl_pool),
          Side("gpukit cl.Buffer create+release", cl_pool.gpukit_buffer),
          Side("gpukit ImmediateAllocator, no pool", cl_pool.gpukit_immediate_allocator)],
         scale=1e6),
]
__all__ = ["ALL", "Case", "Side", "Unavailable", "primary_context"]
