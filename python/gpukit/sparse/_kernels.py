"""The CUDA kernels of gpukit.sparse, one source per element type: the CSR matrix-vector
product (spmv_source) and the steps of the conjugate gradient solver (cg_source), compiled
once per context and element type (spmv_kernels, cg_kernels).

Every kernel runs blocks of BLOCK threads. The reductions of the solver finish inside the
kernel that computes them: each block writes its partial sum, and the block that finishes
last adds those up and computes the solver's scalars on the device, so no step waits for
the host.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from gpukit.compiler import SourceModule
from gpukit.tools import context_dependent_memoize, dtype_to_ctype

if TYPE_CHECKING:
    from gpukit.driver import Function
    from gpukit.gpuarray import GPUArray

#: Threads per block of every kernel here.
BLOCK = 256
#: The shared memory a block of csr_spmv multiplies its entries into: its rows hold at most
#: stream_entries(dtype) entries (longer rows are summed in chunks by csr_chunks first).
STREAM_BYTES = 16384
#: The most rows of a block of csr_spmv.
STREAM_ROWS = BLOCK
#: The solver's preconditioner kinds, the suffix of cg_update_<kind>, cg_residual_<kind> and
#: cg_direction_<kind>: none, a diagonal applied inside the kernels, or any operator (whose
#: output z the kernels read).
PRECONDITIONERS = ("none", "diagonal", "operator")
#: The value dtypes the kernels are written for.
DTYPES = tuple(np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128))

# Warp shuffles, conjugate, modulus and L1-bypassing loads for the value type; block and grid sums.
_COMMON = r"""
#define GK_BLOCK 256
#define GK_WARP 32
#define GK_FULL_MASK 0xffffffffu

__device__ __forceinline__ float gk_shfl_down(float v, int offset, int width, unsigned mask)
{
    return __shfl_down_sync(mask, v, offset, width);
}

__device__ __forceinline__ double gk_shfl_down(double v, int offset, int width, unsigned mask)
{
    return __shfl_down_sync(mask, v, offset, width);
}

#if GK_COMPLEX
__device__ __forceinline__ value_type gk_shfl_down(value_type v, int offset, int width, unsigned mask)
{
    return value_type(gk_shfl_down(v.real(), offset, width, mask), gk_shfl_down(v.imag(), offset, width, mask));
}

__device__ __forceinline__ value_type gk_conj(value_type v) { return pycuda::conj(v); }

__device__ __forceinline__ real_type gk_abs(value_type v) { return pycuda::abs(v); }

// Another block's partial sum: read from L2, never from a stale L1 line.
__device__ __forceinline__ value_type gk_load_shared_result(const value_type* p)
{
    const real_type* parts = reinterpret_cast<const real_type*>(p);
    return value_type(__ldcg(parts), __ldcg(parts + 1));
}
#else
__device__ __forceinline__ value_type gk_conj(value_type v) { return v; }

__device__ __forceinline__ real_type gk_abs(value_type v) { return v < 0 ? -v : v; }

__device__ __forceinline__ value_type gk_load_shared_result(const value_type* p) { return __ldcg(p); }
#endif

// The sum of v over the warp, in lane 0.
__device__ __forceinline__ value_type gk_warp_sum(value_type v)
{
#pragma unroll
    for (int offset = GK_WARP / 2; offset > 0; offset /= 2)
        v += gk_shfl_down(v, offset, GK_WARP, GK_FULL_MASK);
    return v;
}

// The sum of v over the block, in thread 0. Every thread of the block calls it.
__device__ value_type gk_block_sum(value_type v)
{
    __shared__ value_type warp_sums[GK_BLOCK / GK_WARP];
    const int lane = threadIdx.x % GK_WARP;
    const int warp = threadIdx.x / GK_WARP;
    v = gk_warp_sum(v);
    __syncthreads();  // an earlier call has read warp_sums
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < GK_BLOCK / GK_WARP ? warp_sums[lane] : value_type(0);
        v = gk_warp_sum(v);
    }
    return v;
}
"""

_GRID_SUM = r"""
// The sum of v over the whole grid. True in thread 0 of the block that finishes last, which
// then has the sum in *total. The blocks pass their sums through partials (one per block)
// and count themselves in *counter, which the last one sets back to 0 for the next kernel.
__device__ bool gk_grid_sum(value_type v, value_type* partials, unsigned* counter, value_type* total)
{
    __shared__ bool is_last;
    v = gk_block_sum(v);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = v;
        __threadfence();  // the partial sum is visible before the count says so
        is_last = atomicAdd(counter, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!is_last)
        return false;
    value_type sum = value_type(0);
    for (unsigned i = threadIdx.x; i < gridDim.x; i += GK_BLOCK)
        sum += gk_load_shared_result(partials + i);
    sum = gk_block_sum(sum);
    if (threadIdx.x == 0) {
        *counter = 0;
        *total = sum;
    }
    return threadIdx.x == 0;
}
"""

_SPMV = r"""
// The position of row in the sorted long_rows[0 .. n).
__device__ int gk_find_row(const int* long_rows, int n, int row)
{
    int low = 0, high = n - 1;
    while (low < high) {
        const int middle = (low + high) / 2;
        if (long_rows[middle] < row)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

// y = A x (accumulate == 0) or y += A x, for A in CSR form, block b computing the rows
// row_blocks[b] .. row_blocks[b + 1]. Such a block (at most GK_STREAM_ENTRIES entries) first
// multiplies its entries by x, reading them in order, into shared memory; then groups of
// threads (a power of two each, as many as the block has for its rows, at most a warp) add
// up its rows. A block of one longer row (one of the sorted long_rows) adds up instead the
// sums of its chunks, chunk_ptr[k] .. chunk_ptr[k + 1] of chunk_sums for long row k, which
// csr_chunks computed just before. Nothing is done while *stop is not 0 (a solve that has
// converged); stop may be null.
extern "C" __global__ void __launch_bounds__(GK_BLOCK)
    csr_spmv(const int* __restrict__ row_blocks, const int* __restrict__ row_ptr, const int* __restrict__ cols,
             const value_type* __restrict__ vals, const value_type* __restrict__ x, value_type* __restrict__ y,
             int accumulate, const int* long_rows, int n_long, const int* chunk_ptr, const value_type* chunk_sums,
             const int* stop)
{
    __shared__ value_type products[GK_STREAM_ENTRIES];
    if (stop != nullptr && *stop != 0)
        return;
    const int first = row_blocks[blockIdx.x];
    const int rows = row_blocks[blockIdx.x + 1] - first;
    const int begin = row_ptr[first];
    const int end = row_ptr[first + rows];
    if (end - begin > GK_STREAM_ENTRIES) {
        const int k = gk_find_row(long_rows, n_long, first);
        value_type sum = value_type(0);
        for (int c = chunk_ptr[k] + threadIdx.x; c < chunk_ptr[k + 1]; c += GK_BLOCK)
            sum += chunk_sums[c];
        sum = gk_block_sum(sum);
        if (threadIdx.x == 0)
            y[first] = accumulate ? y[first] + sum : sum;
        return;
    }
    for (int k = begin + threadIdx.x; k < end; k += GK_BLOCK)
        products[k - begin] = vals[k] * x[cols[k]];
    __syncthreads();
    int lanes = GK_WARP;
    while (lanes > 1 && lanes * rows > GK_BLOCK)
        lanes /= 2;
    const int lane = threadIdx.x % lanes;
    const unsigned mask =
        lanes == GK_WARP ? GK_FULL_MASK : ((1u << lanes) - 1u) << (threadIdx.x % GK_WARP / lanes * lanes);
    for (int row = first + threadIdx.x / lanes; row < first + rows; row += GK_BLOCK / lanes) {
        const int row_end = row_ptr[row + 1] - begin;
        value_type sum = value_type(0);
        for (int k = row_ptr[row] - begin + lane; k < row_end; k += lanes)
            sum += products[k];
        for (int offset = lanes / 2; offset > 0; offset /= 2)
            sum += gk_shfl_down(sum, offset, lanes, mask);
        if (lane == 0)
            y[row] = accumulate ? y[row] + sum : sum;
    }
}

// One block per chunk of a long row: chunk_sums[c] = the sum of vals[k] x[cols[k]] over
// chunk_begin[c] <= k < chunk_end[c].
extern "C" __global__ void __launch_bounds__(GK_BLOCK)
    csr_chunks(const int* __restrict__ cols, const value_type* __restrict__ vals, const value_type* __restrict__ x,
               const int* chunk_begin, const int* chunk_end, value_type* chunk_sums, const int* stop)
{
    if (stop != nullptr && *stop != 0)
        return;
    const int end = chunk_end[blockIdx.x];
    value_type sum = value_type(0);
    for (int k = chunk_begin[blockIdx.x] + threadIdx.x; k < end; k += GK_BLOCK)
        sum += vals[k] * x[cols[k]];
    sum = gk_block_sum(sum);
    if (threadIdx.x == 0)
        chunk_sums[blockIdx.x] = sum;
}
"""

_CG = r"""
// The solver's state on the device. scalars: delta = r^H z (z = M r, M the preconditioner),
// alpha, beta, and delta of the initial residual. status: 0 while iterating, else the number
// of iterations done + 1 once the solve has converged (every kernel then returns at once);
// then the counter of gk_grid_sum.
#define GK_DELTA 0
#define GK_ALPHA 1
#define GK_BETA 2
#define GK_DELTA_0 3
#define GK_PRECON_NONE 0
#define GK_PRECON_DIAGONAL 1
#define GK_PRECON_OPERATOR 2
#define GK_FOR_EACH(i, n) \
    for (unsigned i = blockIdx.x * GK_BLOCK + threadIdx.x; i < (unsigned)(n); i += gridDim.x * GK_BLOCK)

template <int PRECON>
__device__ __forceinline__ value_type gk_precondition(const value_type* diag, unsigned i, value_type r)
{
    return PRECON == GK_PRECON_DIAGONAL ? diag[i] * r : r;
}

// Each thread's share v of the new r^H z, computed in iteration it (-1: the initial residual):
// the last block stores delta and beta = delta / the previous delta (0 when that is 0), and
// marks the solve converged when |delta| < tol2 |delta_0|, or at once when delta_0 is 0.
__device__ void gk_new_delta(value_type v, value_type* partials, value_type* scalars, int* status, int it,
                             real_type tol2)
{
    value_type delta;
    if (!gk_grid_sum(v, partials, reinterpret_cast<unsigned*>(status + 1), &delta))
        return;
    bool converged;
    if (it < 0) {
        scalars[GK_DELTA_0] = delta;
        scalars[GK_BETA] = value_type(0);
        converged = delta == value_type(0);
    } else {
        const value_type previous = scalars[GK_DELTA];
        scalars[GK_BETA] = previous == value_type(0) ? value_type(0) : delta / previous;
        converged = gk_abs(delta) < tol2 * gk_abs(scalars[GK_DELTA_0]);
    }
    scalars[GK_DELTA] = delta;
    if (converged)
        status[0] = it + 2;
}

// alpha = delta / d^H q (0 when d^H q is 0), q = A d.
extern "C" __global__ void __launch_bounds__(GK_BLOCK)
    cg_alpha(int n, const value_type* __restrict__ d, const value_type* __restrict__ q, value_type* partials,
             value_type* scalars, int* status)
{
    if (status[0] != 0)
        return;
    value_type v = value_type(0);
    GK_FOR_EACH(i, n) v += gk_conj(d[i]) * q[i];
    value_type dq;
    if (gk_grid_sum(v, partials, reinterpret_cast<unsigned*>(status + 1), &dq))
        scalars[GK_ALPHA] = dq == value_type(0) ? value_type(0) : scalars[GK_DELTA] / dq;
}

// x += alpha d and r -= alpha q; then delta (with an operator as preconditioner, cg_delta
// computes it once the operator has made z).
template <int PRECON>
__device__ void gk_update(int n, value_type* __restrict__ x, const value_type* __restrict__ d,
                          value_type* __restrict__ r, const value_type* __restrict__ q,
                          const value_type* __restrict__ diag, value_type* partials, value_type* scalars, int* status,
                          int it, real_type tol2)
{
    if (status[0] != 0)
        return;
    const value_type alpha = scalars[GK_ALPHA];
    value_type v = value_type(0);
    GK_FOR_EACH(i, n)
    {
        x[i] += alpha * d[i];
        const value_type ri = r[i] - alpha * q[i];
        r[i] = ri;
        if (PRECON != GK_PRECON_OPERATOR)
            v += gk_conj(ri) * gk_precondition<PRECON>(diag, i, ri);
    }
    if (PRECON != GK_PRECON_OPERATOR)
        gk_new_delta(v, partials, scalars, status, it, tol2);
}

// x += alpha d alone: in the iterations that recompute the residual from x.
extern "C" __global__ void __launch_bounds__(GK_BLOCK)
    cg_step_x(int n, value_type* __restrict__ x, const value_type* __restrict__ d, const value_type* scalars,
              const int* status)
{
    if (status[0] != 0)
        return;
    const value_type alpha = scalars[GK_ALPHA];
    GK_FOR_EACH(i, n) x[i] += alpha * d[i];
}

// r = b - A x (ax: A x); then delta, as gk_update.
template <int PRECON>
__device__ void gk_residual(int n, value_type* __restrict__ r, const value_type* __restrict__ b,
                            const value_type* __restrict__ ax, const value_type* __restrict__ diag,
                            value_type* partials, value_type* scalars, int* status, int it, real_type tol2)
{
    if (status[0] != 0)
        return;
    value_type v = value_type(0);
    GK_FOR_EACH(i, n)
    {
        const value_type ri = b[i] - ax[i];
        r[i] = ri;
        if (PRECON != GK_PRECON_OPERATOR)
            v += gk_conj(ri) * gk_precondition<PRECON>(diag, i, ri);
    }
    if (PRECON != GK_PRECON_OPERATOR)
        gk_new_delta(v, partials, scalars, status, it, tol2);
}

// delta = r^H z, z made by the preconditioning operator.
extern "C" __global__ void __launch_bounds__(GK_BLOCK)
    cg_delta(int n, const value_type* __restrict__ r, const value_type* __restrict__ z, value_type* partials,
             value_type* scalars, int* status, int it, real_type tol2)
{
    if (status[0] != 0)
        return;
    value_type v = value_type(0);
    GK_FOR_EACH(i, n) v += gk_conj(r[i]) * z[i];
    gk_new_delta(v, partials, scalars, status, it, tol2);
}

// d = z + beta d.
template <int PRECON>
__device__ void gk_direction(int n, value_type* __restrict__ d, const value_type* __restrict__ r,
                             const value_type* __restrict__ diag, const value_type* __restrict__ z,
                             const value_type* scalars, const int* status)
{
    if (status[0] != 0)
        return;
    const value_type beta = scalars[GK_BETA];
    GK_FOR_EACH(i, n)
    {
        const value_type zi = PRECON == GK_PRECON_OPERATOR ? z[i] : gk_precondition<PRECON>(diag, i, r[i]);
        d[i] = zi + beta * d[i];
    }
}

#define GK_CG_KERNELS(NAME, PRECON)                                                                                \
    extern "C" __global__ void __launch_bounds__(GK_BLOCK)                                                        \
        cg_update_##NAME(int n, value_type* x, const value_type* d, value_type* r, const value_type* q,           \
                         const value_type* diag, value_type* partials, value_type* scalars, int* status, int it,  \
                         real_type tol2)                                                                          \
    {                                                                                                             \
        gk_update<PRECON>(n, x, d, r, q, diag, partials, scalars, status, it, tol2);                              \
    }                                                                                                             \
    extern "C" __global__ void __launch_bounds__(GK_BLOCK)                                                        \
        cg_residual_##NAME(int n, value_type* r, const value_type* b, const value_type* ax, const value_type* diag, \
                           value_type* partials, value_type* scalars, int* status, int it, real_type tol2)        \
    {                                                                                                             \
        gk_residual<PRECON>(n, r, b, ax, diag, partials, scalars, status, it, tol2);                              \
    }                                                                                                             \
    extern "C" __global__ void __launch_bounds__(GK_BLOCK)                                                        \
        cg_direction_##NAME(int n, value_type* d, const value_type* r, const value_type* diag,                    \
                            const value_type* z, const value_type* scalars, const int* status)                    \
    {                                                                                                             \
        gk_direction<PRECON>(n, d, r, diag, z, scalars, status);                                                  \
    }
GK_CG_KERNELS(none, GK_PRECON_NONE)
GK_CG_KERNELS(diagonal, GK_PRECON_DIAGONAL)
GK_CG_KERNELS(operator, GK_PRECON_OPERATOR)
"""


def _types(dtype: np.dtype[np.generic]) -> str:
    """The typedefs of value_type and real_type (and the complex header) for `dtype`."""
    if dtype not in DTYPES:
        raise TypeError(
            f"gpukit.sparse kernels: unsupported dtype {dtype}; expected one of {', '.join(map(str, DTYPES))}"
        )
    is_complex = dtype.kind == "c"
    real = np.dtype(np.float32) if dtype == np.complex64 else np.dtype(np.float64) if is_complex else dtype
    lines = ["#include <pycuda-complex.hpp>"] if is_complex else []
    lines += [
        f"#define GK_COMPLEX {int(is_complex)}",
        f"typedef {dtype_to_ctype(dtype)} value_type;",
        f"typedef {dtype_to_ctype(real)} real_type;",
    ]
    return "\n".join(lines) + "\n"


def spmv_source(dtype: np.dtype[np.generic]) -> str:
    """The CUDA source of the CSR kernels for values of `dtype` (compile with no_extern_c=True)."""
    return _types(dtype) + f"#define GK_STREAM_ENTRIES {stream_entries(dtype)}\n" + _COMMON + _SPMV


def stream_entries(dtype: np.dtype[np.generic]) -> int:
    """The most entries of a block of csr_spmv, for values of `dtype`."""
    return STREAM_BYTES // dtype.itemsize


def cg_source(dtype: np.dtype[np.generic]) -> str:
    """The CUDA source of the solver's kernels for values of `dtype` (compile with no_extern_c=True)."""
    return _types(dtype) + _COMMON + _GRID_SUM + _CG


def address(argument: GPUArray | int) -> int:
    """A kernel's pointer argument as the int that prepared_call takes fastest (a GPUArray
    would be read through its __cuda_array_interface__ at every launch); 0 stays 0."""
    if isinstance(argument, int):
        return argument
    pointer: int = int(argument.gpudata)  # type: ignore[call-overload]  # an allocation or an int
    return pointer


def _real_letter(dtype: np.dtype[np.generic]) -> str:
    """The prepare() letter of the real type of `dtype`."""
    return "f" if dtype in (np.float32, np.complex64) else "d"


@dataclass(frozen=True)
class SpmvKernels:
    """The CSR kernels of one element type, loaded in one context."""

    rows: Function
    chunks: Function
    module: SourceModule  # keeps the module loaded


@dataclass(frozen=True)
class CGKernels:
    """The solver's kernels of one element type, loaded in one context; the per-preconditioner
    ones by kind (PRECONDITIONERS)."""

    alpha: Function
    step_x: Function
    delta: Function
    update: dict[str, Function]
    residual: dict[str, Function]
    direction: dict[str, Function]
    module: SourceModule  # keeps the module loaded


@context_dependent_memoize
def spmv_kernels(dtype: np.dtype[np.generic]) -> SpmvKernels:
    """The CSR kernels for `dtype`, compiled for the current context's device (once per context)."""
    module = SourceModule(spmv_source(dtype), no_extern_c=True)
    rows = module.get_function("csr_spmv")
    rows.prepare("PPPPPPiPiPPP")
    chunks = module.get_function("csr_chunks")
    chunks.prepare("PPPPPPP")
    return SpmvKernels(rows, chunks, module)


@context_dependent_memoize
def cg_kernels(dtype: np.dtype[np.generic]) -> CGKernels:
    """The solver's kernels for `dtype`, compiled for the current context's device (once per context)."""
    module = SourceModule(cg_source(dtype), no_extern_c=True)
    real = _real_letter(dtype)

    def prepared(name: str, arg_types: str) -> Function:
        function = module.get_function(name)
        function.prepare(arg_types)
        return function

    return CGKernels(
        alpha=prepared("cg_alpha", "iPPPPP"),
        step_x=prepared("cg_step_x", "iPPPP"),
        delta=prepared("cg_delta", "iPPPPPi" + real),
        update={kind: prepared(f"cg_update_{kind}", "iPPPPPPPPi" + real) for kind in PRECONDITIONERS},
        residual={kind: prepared(f"cg_residual_{kind}", "iPPPPPPPi" + real) for kind in PRECONDITIONERS},
        direction={kind: prepared(f"cg_direction_{kind}", "iPPPPPP") for kind in PRECONDITIONERS},
        module=module,
    )
