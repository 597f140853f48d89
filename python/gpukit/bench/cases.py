"""The benchmark cases. Each side measures one library doing the same thing."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from gpukit.bench.harness import Case, Side, Unavailable
from gpukit.bench.gpu import primary_context
from gpukit.bench import arrays, cl_arrays, cl_pool, copies, gpuarray_functions, launch, pools, reductions, scans, small
from gpukit.bench import compile as compiling
from gpukit.bench import nccl as nccl_cases
from gpukit.bench import curandom as random_cases

if TYPE_CHECKING:
    from gpukit.bench.harness import Run

ALL = [
    Case(
        "launch_empty",
        "host cost of launching an empty kernel (1 block, 1 thread)",
        "µs per launch",
        [
            Side("raw cuLaunchKernel (C++)", launch.raw_cpp),
            Side("gpukit::cuda::launch (C++)", launch.gpukit_cpp),
            Side("cuda-python cuLaunchKernel", launch.cuda_python),
            Side("CuPy RawKernel", launch.cupy),
            Side("numba-cuda @cuda.jit", launch.numba),
            Side("PyCUDA Function.__call__", launch.pycuda),
            Side("gpukit Function.prepared_async_call", launch.gpukit_prepared),
            Side("gpukit Function.__call__", launch.gpukit_call),
        ],
        scale=1e6,
    ),
    Case(
        "pool_cpp",
        "C++ allocate + free of 1 MiB, a bin hit for the pools",
        "ns per pair",
        [
            Side("raw cuMemAlloc + cuMemFree (C++)", pools.raw_alloc_free),
            Side("raw cuMemAllocAsync + cuMemFreeAsync (C++)", pools.raw_async_alloc_free),
            Side("gpukit C++ memory_pool", pools.gpukit_cpp_pool(1)),
        ],
        scale=1e9,
    ),
    Case(
        "pool_python",
        "Python allocate + release of 1 MiB from a device memory pool",
        "µs per pair",
        [
            Side("CuPy cupy.cuda.alloc (default pool)", pools.cupy_pool),
            Side("gpukit tools.DeviceMemoryPool.allocate", pools.gpukit_python_pool),
        ],
        scale=1e6,
    ),
    Case(
        "pool_threads",
        "C++ pool throughput, 1 MiB pairs, threads sharing one pool (inverse throughput)",
        "ns per pair",
        [
            Side("gpukit C++ memory_pool, 1 thread", pools.gpukit_cpp_pool(1)),
            Side("gpukit C++ memory_pool, 8 threads", pools.gpukit_cpp_pool(8)),
        ],
        scale=1e9,
    ),
    Case(
        "cl_pool_alloc",
        f"OpenCL allocate + release of {cl_pool.SIZE} bytes on {cl_pool.device_name()}",
        "µs per pair",
        [
            Side("gpukit cl.tools.MemoryPool", cl_pool.gpukit_pool),
            Side("PyOpenCL tools.MemoryPool", cl_pool.pyopencl_pool),
            Side("gpukit cl.Buffer create+release", cl_pool.gpukit_buffer),
            Side("PyOpenCL Buffer create+release", cl_pool.pyopencl_buffer),
            Side("gpukit ImmediateAllocator, no pool", cl_pool.gpukit_immediate_allocator),
        ],
        scale=1e6,
    ),
    Case(
        "cl_pool_new",
        f"a new MemoryPool(ImmediateAllocator(queue)) and its first allocation of {cl_pool.SIZE} "
        f"bytes, on {cl_pool.device_name()}",
        "µs per pool",
        [Side("gpukit cl.tools", cl_pool.gpukit_new_pool), Side("PyOpenCL tools", cl_pool.pyopencl_new_pool)],
        scale=1e6,
    ),
    Case(
        "sourcemodule_cold",
        "compile + load a small kernel, every cache defeated",
        "ms per module",
        [
            Side("gpukit SourceModule(cache_dir=False)", compiling.gpukit_cold),
            Side("CuPy RawModule(code=...)", compiling.cupy_cold),
        ],
        scale=1e3,
    ),
    Case(
        "sourcemodule_disk_hit",
        "SourceModule call in a new process with a warm disk cache (target < 2 ms)",
        "ms per call",
        [Side("gpukit SourceModule, new process", compiling.gpukit_disk_hit)],
        scale=1e3,
    ),
    Case(
        "sourcemodule_repeat",
        "SourceModule of the same source again in the same process (target < 50 µs)",
        "µs per call",
        [Side("gpukit SourceModule, in-process", compiling.gpukit_repeat)],
        scale=1e6,
    ),
]


def _transfer_case(name: str, description: str, sides: Iterable[tuple[str, Run]]) -> Case:
    return Case(
        name, description, "GB/s", [Side(label, run) for label, run in sides], higher_is_better=True, scale=1e-9
    )


def _small_case(name: str, what: str, unit: str, side: Callable[[str], Run]) -> Case:
    """`what` on small.SIZE float32 in batches: CuPy, gpukit and PyCUDA, each side(library name)."""
    sides = [
        Side(label, side(library)) for label, library in (("CuPy", "cupy"), ("gpukit", "gpukit"), ("PyCUDA", "pycuda"))
    ]
    return Case(
        name,
        f"{what} on {small.SIZE} float32, batches of {small.BATCH} between synchronizations",
        unit,
        sides,
        scale=1e6,
    )


def _copy_cases() -> list[Case]:
    one, two = copies.GiB, 2 * copies.GiB
    cases = []
    for pinned, kind in ((True, "pinned"), (False, "pageable")):
        memory = "page-locked" if pinned else "pageable (numpy)"
        cases.append(
            _transfer_case(
                f"htod_{kind}_1GiB",
                f"blocking copy of 1 GiB from {memory} host memory to the device",
                [
                    ("raw cuMemcpyHtoD (C++)", copies.htod_raw(one, pinned)),
                    ("gpukit memcpy_htod", copies.htod_gpukit(one, pinned)),
                    ("CuPy cp.asarray", copies.htod_cupy(one, pinned)),
                ],
            )
        )
        cases.append(
            _transfer_case(
                f"dtoh_{kind}_1GiB",
                f"blocking copy of 1 GiB from the device to {memory} host memory",
                [
                    ("raw cuMemcpyDtoH (C++)", copies.dtoh_raw(one, pinned)),
                    ("gpukit memcpy_dtoh", copies.dtoh_gpukit(one, pinned)),
                    ("CuPy ndarray.get(out=)", copies.dtoh_cupy(one, pinned)),
                ],
            )
        )
    cases.append(
        _transfer_case(
            "dtod_2GiB",
            "copy of 2 GiB between two device allocations",
            [
                ("raw cuMemcpyDtoD (C++)", copies.dtod_raw(two)),
                ("gpukit memcpy_dtod", copies.dtod_gpukit(two)),
                ("CuPy cp.copyto", copies.dtod_cupy(two)),
            ],
        )
    )
    cases.append(
        _transfer_case(
            "peer_1GiB",
            "peer copy (memcpy_peer) of 1 GiB from device 0 to device 1, peer access on (one GPU: "
            "from device 0 to itself)",
            [
                ("raw cuMemcpyPeer (C++)", copies.peer_raw(copies.PEER_BYTES)),
                ("gpukit memcpy_peer", copies.peer_gpukit(copies.PEER_BYTES)),
                ("CuPy cupy.cuda.runtime.memcpyPeer", copies.peer_cupy(copies.PEER_BYTES)),
            ],
        )
    )
    cases.append(
        _transfer_case(
            "get_fresh_256MiB",
            "GPUArray.get() of 256 MiB of float32 into a new numpy array (freed after each "
            "call, as in a loop; first touch: with no freed memory kept for reuse), against a copy into an existing, "
            "touched one",
            [
                ("gpukit memcpy_dtoh, existing array", copies.get_into_existing_gpukit),
                ("gpukit GPUArray.get(), new array", copies.get_fresh_gpukit),
                ("gpukit GPUArray.get(), new array, first touch (no reuse)", copies.get_fresh_gpukit_first_touch),
                ("CuPy ndarray.get(), new array", copies.get_fresh_cupy),
            ],
        )
    )
    return cases


ALL += _copy_cases()


def _array_cases() -> list[Case]:
    elements = "2^28 float32 random numbers"
    cases = []
    for name, text in (("2x", "y = 2 * x"), ("add", "z = x + y"), ("axpb", "a * x + b")):
        _, reads, writes = arrays.EXPRESSIONS[name]
        cases.append(
            _transfer_case(
                f"elementwise_{name}",
                f"{text} on {elements}: bytes read + written per second",
                [
                    ("raw cuMemcpyDtoD, same bytes (C++)", arrays.raw_dtod(reads, writes)),
                    ("gpukit GPUArray", arrays.elementwise("gpukit", name)),
                    ("CuPy ndarray", arrays.elementwise("cupy", name)),
                ],
            )
        )
    shapes = f"({arrays.BROADCAST_ROWS},1) + (1,{arrays.BROADCAST_COLUMNS})"
    cases.append(
        _transfer_case(
            "elementwise_broadcast_add",
            f"a + b broadcast, {shapes} float32, against z = x + y on {elements} "
            "(the result's size): bytes read + written per second",
            [
                ("gpukit x + y, same size", arrays.elementwise("gpukit", "add")),
                ("gpukit a + b, broadcast", arrays.broadcast_add("gpukit")),
                ("CuPy a + b, broadcast", arrays.broadcast_add("cupy")),
            ],
        )
    )
    for op in arrays.REDUCTIONS:
        cases.append(
            _transfer_case(
                f"reduction_{op}",
                f"{op} of {elements}{' (two operands)' if op == 'dot' else ''}: bytes read per second",
                [
                    ("gpukit gpuarray." + op, arrays.reduction("gpukit", op)),
                    ("CuPy cp." + op, arrays.reduction("cupy", op)),
                ],
            )
        )
    return cases


ALL += _array_cases()


def _cl_array_cases() -> list[Case]:
    """PyOpenCL's array operations, gpukit.cl against PyOpenCL, on each OpenCL device."""
    cases = []
    for short, platform, device in cl_arrays.devices():
        for operation, text in cl_arrays.OPERATIONS.items():
            cases.append(
                Case(
                    f"cl_array_{operation}_{short}",
                    f"{text} on {device} ({platform}), queue finished after a batch",
                    "µs per operation",
                    [
                        Side("gpukit.cl.array", cl_arrays.side("gpukit", operation, platform, device)),
                        Side("PyOpenCL", cl_arrays.side("pyopencl", operation, platform, device)),
                    ],
                    scale=1e6,
                )
            )
    return cases


ALL += _cl_array_cases()


# The small operations gpukit::array::device_array times from C++ (bench/cpp/device_array_bench.cpp).
CPP_OPERATIONS = ("add", "axpy", "scale", "neg", "less", "astype", "sum", "dot", "copy")


def _small_array_cases() -> list[Case]:
    size = f"{small.SIZE} float32"
    timing = f"batches of {small.BATCH} between synchronizations"
    cases = []
    for name, (text, _) in small.OPERATIONS.items():
        cases.append(
            _small_case(f"small_{name}", text, "µs per operation", lambda library: small.operation_side(library, name))
        )
        if name in CPP_OPERATIONS:
            cases[-1].sides.append(Side("gpukit device_array (C++)", small.cpp_side(name)))
        if name == "add":
            cases[-1].sides.append(Side("raw cuLaunchKernel add (C++)", small.raw_add_floor))
    count = small.kernel_count()
    cases.append(
        Case(
            "small_add_1000_kernels",
            f"x + y on {size} before and after {count} distinct ElementwiseKernels ({small.KERNELS_VARIABLE}, "
            f"default 1000) were compiled, loaded and run once; {timing}. A cold compile cache costs ~20-60 ms "
            "of NVRTC per kernel (spread over the CPUs); the disk cache makes later runs fast",
            "µs per operation",
            [
                Side("gpukit x + y, before", small.operation_side("gpukit", "add")),
                Side(f"gpukit x + y, {count} kernels cached", small.add_with_cached_kernels(count)),
            ],
            scale=1e6,
        )
    )
    return cases


ALL += _small_array_cases()


def _gpuarray_function_cases() -> list[Case]:
    """where, if_positive, take and concatenate: big (GB/s) and small (µs per call)."""
    functions = gpuarray_functions
    big = f"2^{functions.BIG.bit_length() - 1} float32"
    cases = []
    for name, (text, per_element) in functions.FUNCTIONS.items():
        cases.append(
            _transfer_case(
                f"gpuarray_{name}_big",
                f"{text} on {big} ({per_element} bytes read + written per element): bytes per second",
                [
                    ("raw cuMemcpyDtoD, same bytes (C++)", functions.raw_dtod(name)),
                    ("gpukit gpuarray", functions.big(name, "gpukit")),
                    ("CuPy", functions.big(name, "cupy")),
                    ("PyCUDA gpuarray", functions.big(name, "pycuda")),
                ],
            )
        )
        cases.append(
            _small_case(
                f"gpuarray_{name}_small", text, "µs per call", lambda library: functions.small_calls(name, library)
            )
        )
    return cases


ALL += _gpuarray_function_cases()


def _reduction_kernel_cases() -> list[Case]:
    libraries = [
        ("gpukit ReductionKernel", "gpukit"),
        ("CuPy cupy.ReductionKernel", "cupy"),
        ("PyCUDA ReductionKernel", "pycuda"),
    ]
    what = "ReductionKernel sum of squares (map x[i]*x[i], reduce a+b, float32)"
    return [
        _transfer_case(
            "reduction_kernel_sumsq",
            f"{what} of 2^26 random float32: bytes read per second",
            [(label, reductions.sum_of_squares_rate(library)) for label, library in libraries],
        ),
        Case(
            "reduction_kernel_sumsq_small",
            f"{what} of {small.SIZE} float32 (queued, not read back), batches of {small.BATCH} between "
            "synchronizations",
            "µs per operation",
            [Side(label, reductions.sum_of_squares_call(library)) for label, library in libraries],
            scale=1e6,
        ),
    ]


ALL += _reduction_kernel_cases()


def _random_cases() -> list[Case]:
    kinds = "uniform float32: rand in [0, 1), the XORWOW fills in (0, 1], CuPy in [0, 1)"
    return [
        _transfer_case(
            "random_uniform_big",
            f"{kinds}; 2^26 float32: bytes written per second",
            random_cases.sides(random_cases.BIG),
        ),
        Case(
            "random_uniform_small",
            f"{kinds}; 1000 float32, batches of {small.BATCH} between synchronizations",
            "µs per call",
            [Side(name, run) for name, run in random_cases.sides(random_cases.SMALL)],
            scale=1e6,
        ),
    ]


ALL += _random_cases()


def _cumath_cases() -> list[Case]:
    from gpukit.bench import cumath

    cases = []
    for name in cumath.FUNCTIONS:
        cases.append(
            _transfer_case(
                f"cumath_{name}",
                f"cumath.{name}(x) on {cumath.BIG_COUNT} (2^26) float32 random numbers: bytes read + "
                "written per second",
                [
                    ("raw cuMemcpyDtoD, same bytes (C++)", cumath.raw_dtod),
                    (f"gpukit cumath.{name}", cumath.big_side("gpukit", name)),
                    (f"CuPy cp.{name}", cumath.big_side("cupy", name)),
                    (f"PyCUDA cumath.{name}", cumath.big_side("pycuda", name)),
                ],
            )
        )
        cases.append(
            _small_case(
                f"cumath_{name}_small",
                f"cumath.{name}(x)",
                "µs per operation",
                lambda library: cumath.small_side(library, name),
            )
        )
    return cases


ALL += _cumath_cases()


def _scan_cases() -> list[Case]:
    libraries = [
        ("CuPy cp.cumsum", "cupy"),
        ("gpukit InclusiveScanKernel", "gpukit"),
        ("PyCUDA InclusiveScanKernel", "pycuda"),
    ]
    return [
        _transfer_case(
            "scan_sum",
            f"inclusive sum scan of 2^{scans.BIG.bit_length() - 1} float32 random numbers into another "
            f"array: bytes read + written per second, batches of {arrays.OPERATIONS_PER_SAMPLE}",
            [("raw cuMemcpyDtoD, same bytes (C++)", scans.raw_dtod)]
            + [(label, scans.big(library)) for label, library in libraries],
        ),
        Case(
            "scan_sum_small",
            f"inclusive sum scan of {scans.SMALL} float32 into another array, batches of "
            f"{small.BATCH} between synchronizations",
            "µs per call",
            [Side(label, scans.small_side(library)) for label, library in libraries],
            scale=1e6,
        ),
    ]


ALL += _scan_cases()


def _nccl_cases() -> list[Case]:
    sides = (
        ("gpukit nccl.Communicator.all_reduce", nccl_cases.gpukit_side),
        ("CuPy cupy.cuda.nccl allReduce", nccl_cases.cupy_side),
        ("torch.distributed.all_reduce (NCCL)", nccl_cases.torch_side),
    )
    cases = [
        Case(
            "nccl_all_reduce_8B",
            "all-reduce of 8 bytes (float32 sum) over every GPU, one rank each",
            "µs per call",
            [Side(name, side(nccl_cases.LATENCY_BYTES, latency=True)) for name, side in sides],
            scale=1e6,
        )
    ]
    for nbytes in nccl_cases.SIZES:
        cases.append(
            _transfer_case(
                f"nccl_all_reduce_{nccl_cases.size_text(nbytes).replace(' ', '')}",
                f"all-reduce bus bandwidth, {nccl_cases.size_text(nbytes)} float32 sum over every GPU (one GPU: "
                "algorithm bandwidth)",
                [(name, side(nbytes)) for name, side in sides],
            )
        )
    return cases


ALL += _nccl_cases()


def _sparse_cases() -> list[Case]:
    from gpukit.bench import sparse

    matrix = (
        f"A = the 5-point Laplacian of a {sparse.GRID}^2 grid + {sparse.SHIFT} I (~2.0e6 rows, ~1.0e7 non-zeros, "
        "float64)"
    )
    return [
        Case(
            "sparse_spmv",
            f"y = A x into a new y, {matrix}; {sparse.PRODUCTS_PER_SAMPLE} products between synchronizations",
            "µs per product",
            [
                Side("gpukit sparse.packeted.PacketedSpMV", sparse.spmv_side("packeted")),
                Side("gpukit sparse.coordinate.CoordinateSpMV", sparse.spmv_side("coordinate")),
                Side("CuPy cupyx.scipy.sparse.csr_matrix @ x", sparse.spmv_side("cupy")),
            ],
            scale=1e6,
        ),
        Case(
            "sparse_cg",
            f"conjugate gradient solve of A x = b, {matrix}, b random, from x = 0 to ||r|| < {sparse.TOL} ||b||, "
            "no preconditioner",
            "ms per solve",
            [
                Side("gpukit sparse.cg.solve_pkt_with_cg", sparse.cg_side("gpukit")),
                Side("CuPy cupyx.scipy.sparse.linalg.cg", sparse.cg_side("cupy")),
            ],
            scale=1e3,
        ),
    ]


ALL += _sparse_cases()
__all__ = ["ALL", "Case", "Side", "Unavailable", "primary_context"]
