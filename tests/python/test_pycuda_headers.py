"""The device headers PyCUDA programs include by name, <pycuda-complex.hpp> and
<pycuda-helpers.hpp>: compiles with NVRTC and nvcc, with and without gpukit's extern "C"
wrapping (no GPU needed); every complex operation and function computed elementwise by the
same code built into a host program by nvcc (no GPU needed) and on the GPU, and compared with
numpy; the texture and surface helpers on the GPU."""

import os
import subprocess

import numpy as np
import pytest

from conftest import installed_nvcc

import gpukit.driver as drv
from gpukit import _gpukit, compiler


NVCC = installed_nvcc()
needs_nvrtc = pytest.mark.skipif(not _gpukit.nvrtc_available(), reason="NVRTC is not installed")
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc is not installed")
COMPILERS = [pytest.param("nvrtc", marks=needs_nvrtc), pytest.param("nvcc", marks=needs_nvcc)]

# --- The operations, and the inputs they are checked on ---------------------------------------
#
# Each operation is C code that sets `r` (pycuda::complex<T>) from `a` and `b` (complex), `x` (a
# real T) and `n` (an int); the same code runs on the host and on the GPU. Real and boolean
# results land in r's real part. Unqualified calls find pycuda's functions by argument-dependent
# lookup, as in PyCUDA kernels.
#
# `groups` names the input groups (make_inputs) where the operation is defined and its result
# representable; `compare` is "bits" (identical, signed zeros included), "equal" (same values:
# numpy turns a real operand into x + 0i, which can flip the sign of a zero) or "close"
# (relative to |expected|, expected computed in complex128).

MODERATE = ("random", "axes", "zero", "cut", "unit", "equal")
ALL = MODERATE + ("huge", "poles")
NOT_HUGE = MODERATE + ("poles",)
POW_BASES = ("random", "axes", "cut", "unit", "equal")  # no zero base: 0^b is undefined for Re b <= 0


def parts(re, im):
    """A complex128 array with exactly these parts (numpy's re + 1j * im loses signed zeros)."""
    out = np.empty(np.broadcast(re, im).shape, np.complex128)
    out.real, out.imag = re, im
    return out


def as_complex(values):
    return parts(np.asarray(values, np.float64), 0.0)


OPS = [
    # name, code, expected(a, b, x, n), groups, compare
    ("plus", "r = +a", lambda a, b, x, n: a, ALL, "bits"),
    ("minus", "r = -a", lambda a, b, x, n: -a, ALL, "bits"),
    ("conj", "r = conj(a)", lambda a, b, x, n: np.conj(a), ALL, "bits"),
    ("pycuda_conj", "r = pycuda::conj(a)", lambda a, b, x, n: np.conj(a), ALL, "bits"),
    ("real", "r = real(a)", lambda a, b, x, n: parts(a.real, 0.0), ALL, "bits"),
    ("imag", "r = pycuda::imag(a)", lambda a, b, x, n: parts(a.imag, 0.0), ALL, "bits"),
    ("members", "r = pycuda::complex<T>(a.imag(), a._M_re)", lambda a, b, x, n: parts(a.imag, a.real), ALL, "bits"),
    (
        "convert",
        "pycuda::complex<double> wide = pycuda::complex<float>(a);"  # narrowing is explicit, widening implicit
        "pycuda::complex<float> narrow; narrow = wide;"  # assignment converts
        "r = pycuda::complex<T>(narrow)",
        lambda a, b, x, n: a.astype(np.complex64),
        ALL,
        "bits",
    ),
    ("add", "r = a + b", lambda a, b, x, n: a + b, ALL, "equal"),
    ("subtract", "r = a - b", lambda a, b, x, n: a - b, ALL, "equal"),
    ("add_real", "r = a + x", lambda a, b, x, n: a + x, ALL, "equal"),
    ("real_add", "r = x + a", lambda a, b, x, n: x + a, ALL, "equal"),
    ("subtract_real", "r = a - x", lambda a, b, x, n: a - x, ALL, "equal"),
    ("real_subtract", "r = x - a", lambda a, b, x, n: x - a, ALL, "equal"),
    ("add_assign", "r = a; r += b; r -= x", lambda a, b, x, n: a + b - x, ALL, "equal"),
    ("subtract_assign", "r = a; r -= b; r += x", lambda a, b, x, n: a - b + x, ALL, "equal"),
    ("equal", "r = (a == b)", lambda a, b, x, n: as_complex(a == b), ALL, "equal"),
    ("not_equal", "r = (a != b)", lambda a, b, x, n: as_complex(a != b), ALL, "equal"),
    ("equal_real", "r = (a == x)", lambda a, b, x, n: as_complex(a == x), ALL, "equal"),
    ("real_equal", "r = (x == a)", lambda a, b, x, n: as_complex(a == x), ALL, "equal"),
    ("not_equal_real", "r = (a != x)", lambda a, b, x, n: as_complex(a != x), ALL, "equal"),
    ("real_not_equal", "r = (x != a)", lambda a, b, x, n: as_complex(a != x), ALL, "equal"),
    ("pow_zero", "r = pow(a, 0)", lambda a, b, x, n: as_complex(np.ones(a.shape)), ALL, "equal"),
    ("polar_rho", "r = pycuda::polar(x)", lambda a, b, x, n: parts(x, 0.0), ALL, "equal"),
    ("multiply", "r = a * b", lambda a, b, x, n: a * b, NOT_HUGE, "close"),
    ("divide", "r = a / b", lambda a, b, x, n: a / b, ALL, "close"),
    ("multiply_real", "r = a * x", lambda a, b, x, n: a * x, NOT_HUGE, "close"),
    ("real_multiply", "r = x * a", lambda a, b, x, n: a * x, NOT_HUGE, "close"),
    ("divide_real", "r = a / x", lambda a, b, x, n: a / x, NOT_HUGE, "close"),
    ("real_divide", "r = x / b", lambda a, b, x, n: x / b, NOT_HUGE, "close"),
    ("int_scalars", "r = 2 * a - 1 + a / 4", lambda a, b, x, n: 2 * a - 1 + a / 4, NOT_HUGE, "close"),
    ("multiply_assign", "r = a; r *= b; r /= x", lambda a, b, x, n: a * b / x, NOT_HUGE, "close"),
    ("divide_assign", "r = a; r /= b; r *= x", lambda a, b, x, n: a / b * x, ALL, "close"),
    (
        "volatile",
        "volatile pycuda::complex<T> v[2]; v[0] = a; v[1] = b;r = v[0] * v[1] + v[0]; v[1] = x; r -= v[1]",
        lambda a, b, x, n: a * b + a - x,
        NOT_HUGE,
        "close",
    ),
    ("abs", "r = abs(a)", lambda a, b, x, n: as_complex(np.abs(a)), ALL, "close"),
    ("arg", "r = arg(a)", lambda a, b, x, n: as_complex(np.angle(a)), ALL, "close"),
    ("norm", "r = norm(a)", lambda a, b, x, n: as_complex(a.real**2 + a.imag**2), NOT_HUGE, "close"),
    ("polar", "r = pycuda::polar(x, real(b))", lambda a, b, x, n: x * np.exp(1j * b.real), ALL, "close"),
    ("sqrt", "r = sqrt(a)", lambda a, b, x, n: np.sqrt(a), ALL, "close"),
    ("exp", "r = exp(a)", lambda a, b, x, n: np.exp(a), MODERATE, "close"),
    ("log", "r = log(a)", lambda a, b, x, n: np.log(a), ALL, "close"),
    ("log10", "r = log10(a)", lambda a, b, x, n: np.log10(a), ALL, "close"),
    ("pow", "r = pow(a, b)", lambda a, b, x, n: np.power(a, b), POW_BASES, "close"),
    ("pow_real", "r = pow(a, x)", lambda a, b, x, n: np.power(a, as_complex(x)), POW_BASES + ("zero",), "close"),
    ("real_pow", "r = pow(x, b)", lambda a, b, x, n: np.power(as_complex(x), b), MODERATE, "close"),
    ("pow_int", "r = pow(a, n)", lambda a, b, x, n: np.power(a, as_complex(n)), MODERATE + ("huge",), "close"),
    ("sin", "r = sin(a)", lambda a, b, x, n: np.sin(a), MODERATE, "close"),
    ("cos", "r = cos(a)", lambda a, b, x, n: np.cos(a), MODERATE, "close"),
    ("tan", "r = tan(a)", lambda a, b, x, n: np.tan(a), MODERATE + ("poles",), "close"),
    ("sinh", "r = sinh(a)", lambda a, b, x, n: np.sinh(a), MODERATE, "close"),
    ("cosh", "r = cosh(a)", lambda a, b, x, n: np.cosh(a), MODERATE, "close"),
    ("tanh", "r = tanh(a)", lambda a, b, x, n: np.tanh(a), MODERATE + ("poles",), "close"),
]

RTOL = {np.dtype(np.complex64): 1e-5, np.dtype(np.complex128): 1e-12}
REAL_TYPES = {"float": np.complex64, "double": np.complex128}


def ops_source():
    """A kernel ops_<T>(op, a, b, x, n, r, count) per precision, running operation number
    `op` of OPS elementwise through the __host__ __device__ function apply_<T>."""
    cases = "\n".join(f"    case {i}: {{ {code}; break; }}" for i, (_, code, _, _, _) in enumerate(OPS))
    source = ["#include <pycuda-complex.hpp>"]
    for t in REAL_TYPES:
        source.append(f"""
__host__ __device__ pycuda::complex<{t}> apply_{t}(int op, pycuda::complex<{t}> a, pycuda::complex<{t}> b, {t} x,
                                                 int n) {{
    typedef {t} T;
    pycuda::complex<T> r;
    switch (op) {{
{cases}
    }}
    return r;
}}

__global__ void ops_{t}(int op, const pycuda::complex<{t}>* a, const pycuda::complex<{t}>* b, const {t}* x,
                        const int* n, pycuda::complex<{t}>* r, int count) {{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        r[i] = apply_{t}(op, a[i], b[i], x[i], n[i]);
}}""")
    return "\n".join(source) + "\n"


OPS_SOURCE = ops_source()


def make_inputs(dtype):
    """Inputs for complex64 or complex128: a dict of a, b (dtype), x (its real type), n (int32)
    and group (each element's group name). Groups: random values of both signs over four
    decades; values on the axes with signed zeros; the four signed zeros; values on and
    next to the negative real axis (the branch cut of sqrt, log and pow); values near |z| = 1
    (where log|z| is tiny); magnitudes near the top and bottom of the range (abs, sqrt, log and
    Smith's division must not overflow; a and b alike, so a / b is representable); values
    near the poles of tan and tanh and far out where tanh z tends to +-1; and pairs that are
    equal, for == and !=."""
    dtype = np.dtype(dtype)
    single = dtype == np.complex64
    rng = np.random.default_rng(20240611 if single else 20240612)
    largest = float(np.finfo(np.float32 if single else np.float64).max)
    top = 38.3 if single else 308.0  # decimal exponent of the largest magnitudes drawn (below 0.7 * max)
    bottom = -37.0 if single else -307.0
    near = 1e-7 if single else 1e-13  # a small relative offset still representable

    def signed_decades(lo, hi, size):
        return rng.choice([-1.0, 1.0], size) * 10.0 ** rng.uniform(lo, hi, size)

    def with_phase(magnitude):
        return magnitude * np.exp(1j * rng.uniform(-np.pi, np.pi, np.size(magnitude)))

    def moderate_b(size):
        return signed_decades(-1, 0.5, size) + 1j * signed_decades(-1, 0.5, size)

    groups = []

    def add(name, a, b=None, x=None, n=None):
        size = len(a)
        b = moderate_b(size) if b is None else b
        x = signed_decades(-1, 1, size) if x is None else x
        n = rng.integers(-6, 7, size) if n is None else n
        groups.append(
            (
                name,
                np.asarray(a, np.complex128),
                np.asarray(b, np.complex128),
                np.asarray(x, np.float64),
                np.asarray(n, np.int32),
            )
        )

    add("random", signed_decades(-2, 1, 192) + 1j * signed_decades(-2, 1, 192))

    axes = []
    for v in (0.5, 2.0, 3.0):
        for sign in (1.0, -1.0):
            for zero in (0.0, -0.0):
                axes += [complex(sign * v, zero), complex(zero, sign * v)]
    add("axes", axes)

    zeros = [complex(s * 0.0, t * 0.0) for s in (1, -1) for t in (1, -1)] * 2
    add("zero", zeros, x=10.0 ** rng.uniform(-1, 1, 8), n=rng.integers(1, 7, 8))  # 0^x, 0^n for x, n > 0

    radius = 10.0 ** rng.uniform(-1, 1, 12)
    offsets = [0.0, -0.0] + [s * near * 10.0 ** rng.uniform(0, 2) for s in (1, -1)]
    add("cut", [complex(-r, r * o) for r in radius for o in offsets])

    delta = signed_decades(np.log10(near) + 1, -2, 32)
    angle = np.concatenate([rng.uniform(-np.pi, np.pi, 16), signed_decades(np.log10(near) + 1, -2, 16)])
    add("unit", (1 + delta) * np.exp(1j * angle))

    # The last four have a real part above max / 4: there |x| + |z| (inside sqrt) overflows.
    huge = np.concatenate(
        [
            with_phase(10.0 ** rng.uniform(28 if single else 280, top, 12)),
            0.7 * largest * np.exp(1j * np.array([0.1, 3.0, -0.6, -2.2])),
        ]
    )
    tiny = with_phase(10.0 ** rng.uniform(bottom, bottom + 7, 16))
    add(
        "huge",
        np.concatenate([huge, tiny]),
        b=np.concatenate(
            [
                with_phase(10.0 ** rng.uniform(28 if single else 280, top, 16)),
                with_phase(10.0 ** rng.uniform(bottom, bottom + 7, 16)),
            ]
        ),
        n=rng.choice([-1, 1], 32),
    )

    poles = []
    for k in (0, 1, -1, 3):  # tanh has poles at i(pi/2 + k pi), tan at pi/2 + k pi
        for s in (1, -1):
            pole = np.pi / 2 + k * np.pi + s * 10.0 ** rng.uniform(-4, -2)
            small = -s * 10.0 ** rng.uniform(-4, -2)
            poles += [complex(small, pole), complex(pole, small)]
    for far in (25.0, 60.0, 300.0, 1e4):
        for s in (1, -1):
            other = rng.uniform(-3, 3)
            poles += [complex(s * far, other), complex(other, s * far)]
    add("poles", poles)

    a = signed_decades(-2, 1, 16) + 1j * signed_decades(-2, 1, 16)
    a[::4] = a[::4].real  # real values, so that a == x can hold
    b = np.where(np.arange(16) % 2 == 0, a, a + 0.5j)
    x = np.where(np.arange(16) % 4 < 2, a.real, a.real + 1)
    add("equal", a, b=b, x=x)

    real = np.float32 if single else np.float64
    return {
        "a": np.concatenate([g[1] for g in groups]).astype(dtype),
        "b": np.concatenate([g[2] for g in groups]).astype(dtype),
        "x": np.concatenate([g[3] for g in groups]).astype(real),
        "n": np.concatenate([g[4] for g in groups]),
        "group": np.concatenate([[g[0]] * len(g[1]) for g in groups]),
    }


def mismatches(op, got, inputs):
    """What is wrong with `got`, the results of operation `op` (an OPS entry) on `inputs`: a
    list of lines, empty when every element in the operation's groups is right."""
    name, code, expected, groups, compare = op
    a, b, x, n = inputs["a"], inputs["b"], inputs["x"], inputs["n"]
    dtype = a.dtype
    with np.errstate(all="ignore"):
        if compare == "close":
            want = expected(a.astype(np.complex128), b.astype(np.complex128), x.astype(np.float64), n)
        else:
            want = expected(a, b, x, n)
    want = np.asarray(want).astype(dtype) if compare != "close" else np.asarray(want, np.complex128)
    checked = np.isin(inputs["group"], groups)
    if compare == "bits":
        real = np.uint32 if dtype == np.complex64 else np.uint64
        ok = (got.view(real).reshape(-1, 2) == want.view(real).reshape(-1, 2)).all(axis=1)
    elif compare == "equal":
        ok = (got == want) | (np.isnan(got) & np.isnan(want))
    else:
        # Finite results within rtol * |expected|; infinite ones part by part (log 0 = -inf + i arg 0).
        got, rtol = got.astype(np.complex128), RTOL[dtype]
        by_parts = np.isclose(got.real, want.real, rtol=rtol, atol=0, equal_nan=True) & np.isclose(
            got.imag, want.imag, rtol=rtol, atol=0, equal_nan=True
        )
        ok = np.where(np.isfinite(want), np.isclose(got, want, rtol=rtol, atol=0), by_parts)
    bad = np.flatnonzero(checked & ~ok)
    return [
        f"{name} ({code}) on {inputs['group'][i]} input a={a[i]!r} b={b[i]!r} x={x[i]!r} n={n[i]}: "
        f"got {got[i]!r}, expected {want[i]!r}"
        for i in bad[:5]
    ]


# --- Compiles: no GPU needed ------------------------------------------------------------------

# Compiled, never run: the forms PyCUDA kernels use, and the layout guarantees.
FEATURES_SOURCE = r"""
#include <pycuda-complex.hpp>

static_assert(sizeof(pycuda::complex<float>) == 8 && alignof(pycuda::complex<float>) == 8, "float2's layout");
static_assert(sizeof(pycuda::complex<double>) == 16 && alignof(pycuda::complex<double>) == 16, "double2's layout");
static_assert(__is_trivially_copyable(pycuda::complex<float>), "copies are plain copies");
static_assert(__is_trivially_copyable(pycuda::complex<double>), "copies are plain copies");

__constant__ pycuda::complex<double> unit_i(0.0, 1.0);  // constexpr constructor: no dynamic initialisation

typedef pycuda::complex<float>::value_type float_type;

__global__ void features(pycuda::complex<float>* z, pycuda::complex<double>* w, float_type* f) {
    __shared__ pycuda::complex<float> shared[64];
    volatile pycuda::complex<float>* v = shared;
    shared[threadIdx.x] = z[threadIdx.x];
    __syncthreads();
    v[threadIdx.x] = v[threadIdx.x] + v[threadIdx.x + 32];  // PyCUDA's warp-synchronous reductions
    v[threadIdx.x] = v[threadIdx.x] * v[threadIdx.x + 16];
    v[threadIdx.x] = 0.0f;
    pycuda::complex<float> loaded = v[threadIdx.x];
    z[threadIdx.x] = loaded;
    w[0] = unit_i * w[1] + pycuda::complex<double>(z[0]) - (pycuda::complex<double>)z[1];  // widening
    z[2] = (pycuda::complex<float>)w[2] + pycuda::complex<float>(w[3]);                   // narrowing
    w[4] = 1.5 * w[5] / 2 + w[6] * 3.0f - 1 / w[7];  // scalars of other arithmetic types convert to T
    f[0] = abs(z[3]) + pycuda::arg(z[4]) + norm(z[5]) + z[6].real() + imag(z[7]);
    w[8] = -+w[9] + pycuda::polar(2.0, 0.5) + pycuda::polar(2.0);
    z[8] += w[10];  // compound assignment from the other precision, as in PyCUDA
    z[9] = w[11];   // plain assignment too
}
"""


BLOCK_SUM_SOURCE = r"""
#include <pycuda-complex.hpp>

__constant__ pycuda::complex<double> scale(0.5, -2.0);

// Sums 256 values per block in shared memory, the last warp through volatile accesses, as
// PyCUDA's reduction kernels do; multiplies the sum by `scale`.
__global__ void block_sum(const pycuda::complex<double>* in, pycuda::complex<double>* out) {
    __shared__ pycuda::complex<double> partial[256];
    const unsigned t = threadIdx.x;
    partial[t] = in[blockIdx.x * 256 + t];
    __syncthreads();
    for (unsigned half = 128; half > 32; half /= 2) {
        if (t < half)
            partial[t] += partial[t + half];
        __syncthreads();
    }
    if (t < 32) {
        volatile pycuda::complex<double>* v = partial;
        for (unsigned half = 32; half > 0; half /= 2) {
            const pycuda::complex<double> sum = v[t] + v[t + half];
            __syncwarp();
            v[t] = sum;
            __syncwarp();
        }
        if (t == 0)
            out[blockIdx.x] = scale * v[0];
    }
}
"""


@pytest.mark.compile_sweep
@pytest.mark.parametrize("no_extern_c", [False, True])
@pytest.mark.parametrize("which", COMPILERS)
def test_complex_header_compiles(which, no_extern_c):
    for source in (OPS_SOURCE, FEATURES_SOURCE, BLOCK_SUM_SOURCE):
        image = compiler.compile(source, arch="sm_90", cache_dir=False, no_extern_c=no_extern_c, compiler=which)
        assert image[:4] == b"\x7fELF"


@needs_nvrtc
@pytest.mark.parametrize(
    "statement, error",
    [
        # Narrowing between precisions is explicit.
        ("pycuda::complex<float> f = pycuda::complex<double>(1.0);", "no suitable user-defined conversion"),
        # No arithmetic between precisions (as in PyCUDA): convert one operand.
        (
            "pycuda::complex<float> f = pycuda::complex<float>(1.0f) + pycuda::complex<double>(1.0);",
            'no operator "\\+" matches',
        ),
        # No conversion to a real: take real() or abs().
        ("float f = pycuda::complex<float>(1.0f);", "no suitable conversion function"),
    ],
)
def test_complex_header_refuses(statement, error):
    source = "#include <pycuda-complex.hpp>\n__global__ void k() { " + statement + " }\n"
    with pytest.raises(drv.CompileError, match=error):
        compiler.compile(source, arch="sm_90", cache_dir=False)


HELPERS_SOURCE = r"""
#include <pycuda-helpers.hpp>
#include <pycuda-complex.hpp>  // twice (pycuda-helpers.hpp includes it): harmless

// One set per element type T: fetches through each dimensionality of texture, and a surface
// element read, changed (v * 2 + i, i its linear index) and written back.
#define HELPER_KERNELS(T, NAME)                                                                          \
__global__ void fetch_1d_##NAME(T* out, cudaTextureObject_t tex, int n) {                                 \
    const int i = blockIdx.x * blockDim.x + threadIdx.x;                                                \
    if (i < n) out[i] = fp_tex1Dfetch<T>(tex, i);                                                        \
}                                                                                                          \
__global__ void fetch_2d_##NAME(T* out, cudaTextureObject_t tex, int w) {                                 \
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;                                \
    if (x < w) out[y * w + x] = fp_tex2D<T>(tex, x + 0.5f, y + 0.5f);                                    \
}                                                                                                          \
__global__ void fetch_3d_##NAME(T* out, cudaTextureObject_t tex, int w, int h) {                          \
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;                \
    if (x < w) out[(z * h + y) * w + x] = fp_tex3D<T>(tex, x + 0.5f, y + 0.5f, z + 0.5f);                \
}                                                                                                          \
__global__ void fetch_layered_##NAME(T* out, cudaTextureObject_t tex, int w, int h) {                     \
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, layer = blockIdx.z;            \
    if (x < w) out[(layer * h + y) * w + x] = fp_tex2DLayered<T>(tex, x + 0.5f, y + 0.5f, layer);        \
}                                                                                                          \
__global__ void surface_3d_##NAME(cudaSurfaceObject_t surf, int w, int h) {                               \
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;                \
    if (x >= w) return;                                                                                  \
    T v;                                                                                                 \
    fp_surf3Dread(&v, surf, x, y, z);                                                                    \
    fp_surf3Dwrite(v * 2 + ((z * h + y) * w + x), surf, x, y, z, cudaBoundaryModeTrap);                  \
}                                                                                                          \
__global__ void surface_layered_##NAME(cudaSurfaceObject_t surf, int w, int h) {                          \
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, layer = blockIdx.z;            \
    if (x >= w) return;                                                                                  \
    T v;                                                                                                 \
    fp_surf2DLayeredread(&v, surf, x, y, layer);                                                         \
    fp_surf2DLayeredwrite(v * 2 + ((layer * h + y) * w + x), surf, x, y, layer);                         \
}

HELPER_KERNELS(float, float32)
HELPER_KERNELS(double, float64)
HELPER_KERNELS(pycuda::complex<float>, complex64)
HELPER_KERNELS(pycuda::complex<double>, complex128)

// PyCUDA's channel type names.
__global__ void channel_types(fp_tex_float* f, fp_tex_double* d, fp_tex_cfloat* cf, fp_tex_cdouble* cd) {
    f[0] = 1.0f;
    d[0] = make_int2(1, 2);
    cf[0] = make_uint2(3u, 4u);
    cd[0] = make_int4(5, 6, 7, 8);
}
"""


@pytest.mark.parametrize("no_extern_c", [False, True])
@pytest.mark.parametrize("which", COMPILERS)
def test_helpers_header_compiles(which, no_extern_c):
    image = compiler.compile(HELPERS_SOURCE, arch="sm_90", cache_dir=False, no_extern_c=no_extern_c, compiler=which)
    assert image[:4] == b"\x7fELF"


def test_headers_ship_in_the_package():
    for name in ("pycuda-complex.hpp", "pycuda-helpers.hpp", os.path.join("gpukit", "helpers.cuh")):
        assert os.path.isfile(os.path.join(compiler.DEVICE_INCLUDE_DIR, name))


# --- The operations on the host: nvcc builds apply_<T> into a program ---------------------------


def c_literal(value, suffix):
    """The exact value as a C hexadecimal floating literal (keeps signed zeros)."""
    return float(value).hex() + suffix


def host_program():
    """OPS_SOURCE plus a main() that runs every operation on make_inputs' values (as exact
    literals) and writes the results, float then double, as raw bytes to stdout."""
    lines = ["#include <cstdio>", OPS_SOURCE]
    for t, dtype in REAL_TYPES.items():
        inputs = make_inputs(dtype)
        suffix = "f" if t == "float" else ""
        for name in ("a", "b"):
            values = ", ".join(f"{{{c_literal(v.real, suffix)}, {c_literal(v.imag, suffix)}}}" for v in inputs[name])
            lines.append(f"static const {t} {name}_{t}[][2] = {{{values}}};")
        lines.append(f"static const {t} x_{t}[] = {{{', '.join(c_literal(v, suffix) for v in inputs['x'])}}};")
        lines.append(f"static const int n_{t}[] = {{{', '.join(str(v) for v in inputs['n'])}}};")
    lines.append("int main() {")
    for t, dtype in REAL_TYPES.items():
        count = len(make_inputs(dtype)["a"])
        lines.append(f"""    for (int op = 0; op < {len(OPS)}; ++op)
        for (int i = 0; i < {count}; ++i) {{
            const pycuda::complex<{t}> r = apply_{t}(op, pycuda::complex<{t}>(a_{t}[i][0], a_{t}[i][1]),
                                                  pycuda::complex<{t}>(b_{t}[i][0], b_{t}[i][1]), x_{t}[i], n_{t}[i]);
            fwrite(&r, sizeof r, 1, stdout);
        }}""")
    lines.append("    return 0;\n}")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def host_results(tmp_path_factory):
    """{dtype: array (operation, element)} computed by the host program."""
    directory = tmp_path_factory.mktemp("pycuda_complex_host")
    source, program = directory / "ops.cu", directory / "ops"
    source.write_text(host_program())
    # The kernels in the source only need to compile: PTX (no ptxas) is the quickest.
    built = subprocess.run(
        [
            NVCC,
            "-std=c++17",
            "-arch=compute_90",
            "-code=compute_90",
            "-I",
            compiler.DEVICE_INCLUDE_DIR,
            "-o",
            str(program),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr
    ran = subprocess.run([str(program)], capture_output=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    output = ran.stdout
    results, offset = {}, 0
    for dtype in REAL_TYPES.values():
        dtype = np.dtype(dtype)
        count = len(OPS) * len(make_inputs(dtype)["a"])
        results[dtype] = np.frombuffer(output, dtype, count, offset).reshape(len(OPS), -1)
        offset += count * dtype.itemsize
    assert offset == len(output)
    return results


@needs_nvcc
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_operations_on_the_host_match_numpy(host_results, dtype):
    inputs = make_inputs(dtype)
    got = host_results[np.dtype(dtype)]
    failures = [line for i, op in enumerate(OPS) for line in mismatches(op, got[i], inputs)]
    assert not failures, "\n".join(failures)


# --- On a GPU ---------------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_operations_on_the_gpu_match_numpy(ctx, dtype):
    t = {np.complex64: "float", np.complex128: "double"}[dtype]
    kernel = compiler.SourceModule(OPS_SOURCE).get_function("ops_" + t)
    inputs = make_inputs(dtype)
    count = len(inputs["a"])
    failures = []
    for i, op in enumerate(OPS):
        got = np.zeros_like(inputs["a"])
        kernel(
            np.int32(i),
            drv.In(inputs["a"]),
            drv.In(inputs["b"]),
            drv.In(inputs["x"]),
            drv.In(inputs["n"]),
            drv.Out(got),
            np.int32(count),
            block=(128, 1, 1),
            grid=((count + 127) // 128, 1),
        )
        failures += mismatches(op, got, inputs)
    assert not failures, "\n".join(failures)


@pytest.mark.gpu
def test_shared_volatile_and_constant_complex(ctx):
    rng = np.random.default_rng(7)
    blocks = 5
    values = (rng.standard_normal(256 * blocks) + 1j * rng.standard_normal(256 * blocks)).astype(np.complex128)
    out = np.zeros(blocks, np.complex128)
    compiler.SourceModule(BLOCK_SUM_SOURCE).get_function("block_sum")(
        drv.In(values), drv.Out(out), block=(256, 1, 1), grid=(blocks, 1)
    )
    np.testing.assert_allclose(out, (0.5 - 2j) * values.reshape(blocks, 256).sum(axis=1), rtol=1e-12)


# (array_format, channels) holding one element of each type in a CUDA array or texture.
CHANNELS = {
    np.float32: (drv.array_format.FLOAT, 1),
    np.float64: (drv.array_format.SIGNED_INT32, 2),
    np.complex64: (drv.array_format.FLOAT, 2),
    np.complex128: (drv.array_format.SIGNED_INT32, 4),
}
HELPER_DTYPES = list(CHANNELS)


def random_values(rng, shape, dtype):
    values = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        values = values + 1j * rng.standard_normal(shape)
    return values.astype(dtype)


def texture_flags(dtype):
    # Doubles and complex<double> lie in int channels and must come back as the raw bits.
    return drv.TRSF_READ_AS_INTEGER if CHANNELS[dtype][0] == drv.array_format.SIGNED_INT32 else 0


def layered_array(values, surface):
    """A layered 2-D CUDA array holding `values` (layers, height, width)."""
    layers, h, w = values.shape
    d = drv.ArrayDescriptor3D()
    d.width, d.height, d.depth = w, h, layers
    d.format, d.num_channels = CHANNELS[values.dtype.type]
    d.flags = drv.array3d_flags.LAYERED | (drv.array3d_flags.SURFACE_LDST if surface else 0)
    ary = drv.Array(d)
    drv.memcpy_htoa(ary, 0, values)
    return ary


def indices(values):
    """Each element's linear index, in the values' dtype (so that v * 2 + i rounds as on the GPU)."""
    return np.arange(values.size).reshape(values.shape).astype(values.dtype)


def read_back(ary, like):
    out = np.empty_like(like)
    drv.memcpy_atoh(out, ary, 0)
    return out


@pytest.fixture
def helpers(ctx):
    return compiler.SourceModule(HELPERS_SOURCE)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", HELPER_DTYPES)
def test_helpers_fetch_from_textures(helpers, dtype):
    rng = np.random.default_rng(11)
    name = np.dtype(dtype).name
    flags = texture_flags(dtype)

    linear = random_values(rng, 333, dtype)
    memory = drv.to_device(linear)
    fmt, channels = CHANNELS[dtype]
    tex = drv.TextureObject.from_linear(memory, fmt, channels, linear.nbytes, flags=flags)
    out = np.zeros_like(linear)
    helpers.get_function("fetch_1d_" + name)(drv.Out(out), tex, np.int32(linear.size), block=(128, 1, 1), grid=(3, 1))
    np.testing.assert_array_equal(out, linear)

    plane = random_values(rng, (7, 45), dtype)
    tex = drv.TextureObject.from_array(drv.np_to_array(plane, "C"), flags=flags)
    out = np.zeros_like(plane)
    helpers.get_function("fetch_2d_" + name)(drv.Out(out), tex, np.int32(45), block=(32, 1, 1), grid=(2, 7))
    np.testing.assert_array_equal(out, plane)

    volume = random_values(rng, (3, 5, 37), dtype)
    tex = drv.TextureObject.from_array(drv.np_to_array(volume, "C"), flags=flags)
    out = np.zeros_like(volume)
    helpers.get_function("fetch_3d_" + name)(
        drv.Out(out), tex, np.int32(37), np.int32(5), block=(32, 1, 1), grid=(2, 5, 3)
    )
    np.testing.assert_array_equal(out, volume)

    layers = random_values(rng, (4, 6, 21), dtype)
    tex = drv.TextureObject.from_array(layered_array(layers, surface=False), flags=flags)
    out = np.zeros_like(layers)
    helpers.get_function("fetch_layered_" + name)(
        drv.Out(out), tex, np.int32(21), np.int32(6), block=(32, 1, 1), grid=(1, 6, 4)
    )
    np.testing.assert_array_equal(out, layers)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", HELPER_DTYPES)
def test_helpers_read_and_write_surfaces(helpers, dtype):
    rng = np.random.default_rng(12)
    name = np.dtype(dtype).name

    volume = random_values(rng, (3, 5, 37), dtype)
    ary = drv.np_to_array(volume, "C", allowSurfaceBind=True)
    helpers.get_function("surface_3d_" + name)(
        drv.SurfaceObject(ary), np.int32(37), np.int32(5), block=(32, 1, 1), grid=(2, 5, 3)
    )
    np.testing.assert_array_equal(read_back(ary, volume), volume * 2 + indices(volume))

    layers = random_values(rng, (4, 6, 21), dtype)
    ary = layered_array(layers, surface=True)
    helpers.get_function("surface_layered_" + name)(
        drv.SurfaceObject(ary), np.int32(21), np.int32(6), block=(32, 1, 1), grid=(1, 6, 4)
    )
    np.testing.assert_array_equal(read_back(ary, layers), layers * 2 + indices(layers))
