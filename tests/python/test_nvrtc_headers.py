"""What NVRTC gets from gpukit (built-in headers, the prelude, the toolkit's headers inside
PyCUDA's extern "C" wrapper): compiled here without a GPU, and run and checked against numpy
on one."""

import numpy as np
import pytest

from conftest import run_in_fresh_process

import gpukit.compiler as compiler
import gpukit.driver as drv
from gpukit import _gpukit

needs_nvrtc = pytest.mark.skipif(not _gpukit.nvrtc_available(), reason="NVRTC (libnvrtc.so) is not installed")
needs_toolkit = pytest.mark.skipif(not _gpukit._find_cuda_toolkit()[0], reason="no CUDA toolkit headers found")

STANDARD_HEADERS = [
    "stdio.h",
    "cstdio",
    "math.h",
    "cmath",
    "stdint.h",
    "cstdint",
    "inttypes.h",
    "cinttypes",
    "stdlib.h",
    "cstdlib",
    "limits.h",
    "climits",
    "float.h",
    "cfloat",
    "assert.h",
    "cassert",
    "string.h",
    "cstring",
    "stddef.h",
    "cstddef",
    "stdbool.h",
    "stdarg.h",
    "sys/types.h",
]

# Every name the prelude gives, used the way PyCUDA kernels use them; nvcc compiles it too.
USES_EVERYTHING = """
__global__ void everything(double *out, uint *u, int8_t *i8, uint64_t *u64, std::uint32_t *u32, size_t n)
{
    ushort s = 1; ulong l = 2; int16_t i16 = 3; uint16_t ui16 = 4; int32_t i32 = 5; int64_t i64 = 6;
    intptr_t ip = 7; uintptr_t up = 8; intmax_t im = 9; std::int64_t si = 10; std::size_t ss = n;
    out[0] = M_PI + M_E + M_LN2 + M_SQRT2 + M_1_PI + M_PI_2 + M_PI_4 + M_2_SQRTPI + M_SQRT1_2 + M_LOG2E;
    out[1] = (isinf(INFINITY) && isnan(NAN) && HUGE_VAL > DBL_MAX && HUGE_VALF > FLT_MAX) ? 1.0 : 0.0;
    out[2] = INT_MAX + (double)UINT_MAX + LONG_MAX + CHAR_BIT + SHRT_MAX + LLONG_MIN + UCHAR_MAX;
    out[3] = FLT_MAX + DBL_EPSILON + FLT_EPSILON + FLT_MIN + DBL_MIN;
    out[4] = std::sin(out[0]) + std::sqrt(2.0f) + std::abs(-3) + std::fabs(-1.5) + std::pow(2.0, 3.0);
    u[0] = s + l + i16 + ui16 + i32 + i64 + ip + up + im + si + ss;
    i8[0] = INT8_MIN; u64[0] = UINT64_MAX; u32[0] = UINT32_MAX + INT64_C(0);
    printf("%" PRId64 " %s\\n", (int64_t)u[0], "printed");
    assert(n > 0);
}
"""


@needs_nvrtc
@pytest.mark.parametrize("no_extern_c", [False, True])
def test_standard_headers_and_prelude_names_compile(no_extern_c):
    source = "".join(f"#include <{name}>\n" for name in STANDARD_HEADERS) + USES_EVERYTHING
    outcome = compiler.compile_outcome(source, arch="sm_90", cache_dir=False, no_extern_c=no_extern_c, compiler="nvrtc")
    assert outcome.log == ""
    assert (b"_Z10everything" in outcome.image) == no_extern_c


@needs_nvrtc
def test_prelude_names_compile_without_includes():
    assert compiler.compile_outcome(USES_EVERYTHING, arch="sm_90", cache_dir=False).log == ""


@needs_nvrtc
def test_a_source_defining_the_names_itself_compiles_quietly():
    compiler.compile(
        "#define M_PI 3.14159265358979323846\ntypedef unsigned int uint;\n"
        "typedef unsigned long long uint64_t;\n#ifndef FLT_MAX\n#define FLT_MAX 1\n#endif\n"
        "__global__ void k(double *x, uint *y, uint64_t *z) { x[0] = M_PI * FLT_MAX; y[0] = z[0]; }",
        arch="sm_90",
        cache_dir=False,
        compiler="nvrtc",
    )


TOOLKIT_HEADERS = [
    "cuda_fp16.h",
    "cuda_bf16.h",
    "cuda_runtime.h",
    "cooperative_groups.h",
    "curand_kernel.h",
    "cuComplex.h",
    "cub/block/block_reduce.cuh",
    "cuda/std/cmath",
    "vector_types.h",
    "math_constants.h",
]


@pytest.mark.compile_sweep
@needs_nvrtc
@needs_toolkit
def test_toolkit_headers_compile_inside_extern_c_with_the_prelude():
    source = (
        "".join(f"#include <{name}>\n" for name in TOOLKIT_HEADERS)
        + """
__global__ void uses(__half *h, __nv_bfloat16 *b, cuFloatComplex *c, float *f)
{
    cooperative_groups::this_thread_block().sync();
    h[0] = __float2half(M_PI); b[0] = __float2bfloat16(INFINITY); c[0] = cuCaddf(c[0], c[0]);
    curandState state; curand_init(1, threadIdx.x, 0, &state); f[0] = curand_uniform(&state) + CUDART_PI_F;
}
"""
    )
    outcome = compiler.compile_outcome(source, arch="sm_90", cache_dir=False, compiler="nvrtc")
    assert outcome.log == "", "no redefinition warnings between the toolkit and the prelude"
    assert b"uses" in outcome.image and b"_Z4uses" not in outcome.image


# --- on a GPU -----------------------------------------------------------------------------


@pytest.mark.gpu
def test_device_printf_prints():
    out = run_in_fresh_process('''
        import gpukit.autoinit
        import gpukit.driver as drv
        from gpukit.compiler import SourceModule
        mod = SourceModule("""
        #include <stdio.h>
        __global__ void say(int n) { printf("thread %d of %d: %s\\\\n", threadIdx.x, n, "hello"); }
        """)
        mod.get_function("say")(drv.np.int32(3) if hasattr(drv, "np") else __import__("numpy").int32(3),
                                block=(3, 1, 1))
        drv.Context.synchronize()
        ''')
    assert sorted(line for line in out.splitlines() if line.startswith("thread ")) == [
        "thread 0 of 3: hello",
        "thread 1 of 3: hello",
        "thread 2 of 3: hello",
    ]


@pytest.mark.gpu
def test_prelude_names_compute_what_numpy_computes(ctx):
    mod = compiler.SourceModule("""
    __global__ void values(double *d, float *f, uint *u, int *i, unsigned long long n)
    {
        const uint k = threadIdx.x;
        d[k] = std::sin(M_PI * k / n) + M_E * k;
        f[k] = std::sqrt((float)k) + FLT_MAX / 1e38f;
        u[k] = UINT32_MAX - k;
        i[k] = INT_MAX - (int)k + (isinf(INFINITY) ? 1 : 0) - (isnan(NAN) ? 1 : 0);
    }
    """)
    n = 37
    d, f = np.zeros(n), np.zeros(n, dtype=np.float32)
    u, i = np.zeros(n, dtype=np.uint32), np.zeros(n, dtype=np.int32)
    mod.get_function("values")(drv.Out(d), drv.Out(f), drv.Out(u), drv.Out(i), np.uint64(n), block=(n, 1, 1))
    k = np.arange(n)
    np.testing.assert_allclose(d, np.sin(np.pi * k / n) + np.e * k, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(
        f, np.sqrt(k.astype(np.float32)) + np.float32(np.finfo(np.float32).max / 1e38), rtol=1e-6
    )
    np.testing.assert_array_equal(u, np.uint32(2**32 - 1) - k.astype(np.uint32))
    np.testing.assert_array_equal(i, np.int32(2**31 - 1) - k.astype(np.int32))


@pytest.mark.gpu
def test_cuda_fp16_inside_extern_c(ctx):
    mod = compiler.SourceModule("""
    #include <cuda_fp16.h>
    __global__ void halve(const __half *in, float *out)
    {
        out[threadIdx.x] = __half2float(__hmul(in[threadIdx.x], __float2half(0.5f)));
    }
    """)
    x = (np.arange(50, dtype=np.float16) - 25) * np.float16(1.5)
    out = np.zeros(50, dtype=np.float32)
    mod.get_function("halve")(drv.In(x), drv.Out(out), block=(50, 1, 1))
    np.testing.assert_array_equal(out, (x * np.float16(0.5)).astype(np.float32))


@pytest.mark.gpu
def test_curand_kernel_gives_uniform_numbers(ctx):
    mod = compiler.SourceModule("""
    #include <curand_kernel.h>
    __global__ void draw(float *out, int per_thread)
    {
        const int id = blockIdx.x * blockDim.x + threadIdx.x;
        curandState state;
        curand_init(1234, id, 0, &state);
        for (int j = 0; j < per_thread; ++j)
            out[id * per_thread + j] = curand_uniform(&state);
    }
    """)
    out = np.zeros(64 * 100, dtype=np.float32)
    mod.get_function("draw")(drv.Out(out), np.int32(100), block=(64, 1, 1))
    assert 0 < out.min() and out.max() <= 1
    assert abs(out.mean() - 0.5) < 0.02 and abs(out.var() - 1 / 12) < 0.01
    assert len(np.unique(out)) > 6000


@pytest.mark.gpu
def test_cooperative_groups_tile_reduction(ctx):
    mod = compiler.SourceModule("""
    #include <cooperative_groups.h>
    #include <cooperative_groups/reduce.h>
    namespace cg = cooperative_groups;
    __global__ void tile_sums(const int *in, int *out)
    {
        cg::thread_block block = cg::this_thread_block();
        cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
        int total = cg::reduce(tile, in[block.thread_rank()], cg::plus<int>());
        if (tile.thread_rank() == 0)
            out[block.thread_rank() / 32] = total;
    }
    """)
    x = np.random.randint(-1000, 1000, size=256).astype(np.int32)
    out = np.zeros(8, dtype=np.int32)
    mod.get_function("tile_sums")(drv.In(x), drv.Out(out), block=(256, 1, 1))
    np.testing.assert_array_equal(out, x.reshape(8, 32).sum(axis=1))


@pytest.mark.gpu
def test_cub_block_reduce(ctx):
    mod = compiler.SourceModule("""
    #include <cub/block/block_reduce.cuh>
    __global__ void block_sum(const float *in, float *out)
    {
        typedef cub::BlockReduce<float, 128> reduce;
        __shared__ typename reduce::TempStorage scratch;
        float total = reduce(scratch).Sum(in[blockIdx.x * 128 + threadIdx.x]);
        if (threadIdx.x == 0)
            out[blockIdx.x] = total;
    }
    """)
    x = np.random.rand(5 * 128).astype(np.float32)
    out = np.zeros(5, dtype=np.float32)
    mod.get_function("block_sum")(drv.In(x), drv.Out(out), grid=(5, 1), block=(128, 1, 1))
    np.testing.assert_allclose(out, x.reshape(5, 128).sum(axis=1), rtol=1e-5)
