"""Complex numbers on OpenCL (gpukit.cl; pyopencl with GPUKIT_PYOPENCL_ORIGINAL=1): clmath's
functions of complex arrays and the functions of <pyopencl-complex.h> in user kernels, against
numpy, on values that catch a swapped part, a wrong sign or branch, and a lost digit (values
near the branch cuts, large and tiny magnitudes, signed zeros, infinities and NaNs on gpukit)."""

import numpy as np
import pytest

from cl_either import ORIGINAL, cl, ctx, needs_device, queue  # noqa: F401  (ctx, queue: fixtures)
from conftest import dtype_sweep

if ORIGINAL:
    import pyopencl.array as cla
    import pyopencl.clmath as clmath
    from pyopencl.elementwise import ElementwiseKernel
else:
    import gpukit.cl.array as cla
    import gpukit.cl.clmath as clmath
    from gpukit.cl.elementwise import ElementwiseKernel

pytestmark = [pytest.mark.opencl, needs_device]

COMPLEX_TYPES = [np.complex64, np.complex128]
# PyOpenCL's complex functions; gpukit's clmath has numpy's others too.
PYOPENCL_FUNCTIONS = {
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "tanh": np.tanh,
}
GPUKIT_FUNCTIONS = {"log10": np.log10, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan}


def needs_double(queue):
    if "cl_khr_fp64" not in queue.device.extensions:
        pytest.skip("the device has no double precision")


def complex_values(dtype, n=999, seed=3):
    """Magnitudes from 1e-3 to 30 in every quadrant, points on the axes and near |z| = 1."""
    rng = np.random.default_rng(seed)
    radius = 10.0 ** rng.uniform(-3, 1.5, n)
    angle = rng.uniform(-np.pi, np.pi, n)
    z = radius * np.exp(1j * angle)
    z[:8] = [1, -1, 1j, -1j, 0.5, -2.5j, 1 + 1e-7j, -1 - 1e-7j]
    return z.astype(dtype)


def tolerance(dtype):
    return dict(rtol=2e-6, atol=2e-6) if dtype == np.complex64 else dict(rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("dtype", dtype_sweep(COMPLEX_TYPES))
def test_clmath_of_complex_arrays_is_numpys(queue, dtype):
    needs_double(queue)  # gpukit computes them in double; PyOpenCL's complex128 needs it too
    z = complex_values(dtype)
    x = cla.to_device(queue, z)
    functions = dict(PYOPENCL_FUNCTIONS, **({} if ORIGINAL else GPUKIT_FUNCTIONS))
    for name, reference in functions.items():
        bounded = z if name not in ("exp", "sinh", "cosh", "sin", "cos", "tan", "tanh") else z / 8
        got = getattr(clmath, name)(cla.to_device(queue, bounded))
        assert got.dtype == dtype, name
        with np.errstate(divide="ignore"):
            want = reference(bounded)  # atan has poles at +-i
        got = got.get()
        poles = ~np.isfinite(want)
        np.testing.assert_array_equal(got[poles], want[poles], err_msg=name)
        # Relative to the magnitude, as numpy's results are judged.
        scale = np.maximum(np.abs(want[~poles]), 1)
        np.testing.assert_array_less(
            np.abs(got[~poles] - want[~poles]) / scale, tolerance(dtype)["rtol"] * 8, err_msg=name
        )
    if not ORIGINAL:  # any view: reversed and strided
        np.testing.assert_allclose(clmath.sqrt(x[::-3]).get(), np.sqrt(z[::-3]), **tolerance(dtype))
        np.testing.assert_allclose(clmath.log(x[5::2]).get(), np.log(z[5::2]), **tolerance(dtype))


@pytest.mark.skipif(ORIGINAL, reason="gpukit follows numpy (C99) at special values; PyOpenCL's formulas do not")
@pytest.mark.parametrize("dtype", COMPLEX_TYPES)
def test_clmath_special_values_are_numpys(queue, dtype):
    needs_double(queue)
    inf, nan = np.inf, np.nan
    parts = [0.0, -0.0, 1.5, -1.5, inf, -inf, nan]
    z = np.array([complex(re, im) for re in parts for im in parts], dtype=dtype)
    x = cla.to_device(queue, z)
    for name, reference in dict(PYOPENCL_FUNCTIONS, **GPUKIT_FUNCTIONS).items():
        with np.errstate(all="ignore"):
            want = reference(z)
        got = getattr(clmath, name)(x).get()
        for part in ("real", "imag"):
            g, w = getattr(got, part), getattr(want, part)
            np.testing.assert_array_equal(np.isnan(g), np.isnan(w), err_msg=f"{name} {part}: NaNs")
            finite = ~np.isnan(w)
            np.testing.assert_allclose(g[finite], w[finite], rtol=1e-6, err_msg=f"{name} {part}")
            zeros = finite & (w == 0)
            np.testing.assert_array_equal(np.signbit(g[zeros]), np.signbit(w[zeros]), err_msg=f"{name} {part}: signs")


@pytest.mark.skipif(ORIGINAL, reason="gpukit's refusals")
def test_clmath_refuses_complex_where_numpy_has_no_loop(queue):
    z = cla.to_device(queue, np.ones(3, np.complex64))
    with pytest.raises(TypeError, match="no complex form"):
        clmath.fabs(z)
    with pytest.raises(TypeError, match="no complex form"):
        clmath.atan2(z, z)


KERNEL = """
#if __OPENCL_C_VERSION__ < 120
#pragma OPENCL EXTENSION cl_khr_fp64: enable
#endif
#define PYOPENCL_DEFINE_CDOUBLE
#include <pyopencl-complex.h>

__kernel void each(__global const {c}_t *a, __global const {c}_t *b, __global const {c}_t *c,
                   __global const {r} *s, __global {c}_t *out)
{{
    const int i = get_global_id(0);
    const int k = 13 * i;
    out[k + 0] = {c}_fma(a[i], b[i], c[i]);
    out[k + 1] = {c}_divide(a[i], b[i]);
    out[k + 2] = {c}_mul({c}_conj(a[i]), b[i]);
    out[k + 3] = {c}_sub({c}_neg(a[i]), b[i]);
    out[k + 4] = {c}_addr(a[i], s[i]);
    out[k + 5] = {c}_radd(s[i], a[i]);
    out[k + 6] = {c}_mulr(a[i], s[i]);
    out[k + 7] = {c}_rdivide(s[i], b[i]);
    out[k + 8] = {c}_divider(a[i], s[i]);
    out[k + 9] = {c}_new({c}_abs(a[i]), {c}_abs_squared(b[i]));
    out[k + 10] = {c}_new({c}_real(a[i]), {c}_imag(b[i]));
    out[k + 11] = {c}_fromreal(s[i]);
    out[k + 12] = {c}_cast({c}_add(a[i], c[i]));
}}
"""


@pytest.mark.parametrize("dtype", COMPLEX_TYPES)
def test_pyopencl_complex_header_in_a_program(ctx, queue, dtype):
    if dtype == np.complex128:
        needs_double(queue)
    c_name, r_name, real = (
        ("cfloat", "float", np.float32) if dtype == np.complex64 else ("cdouble", "double", np.float64)
    )
    n = 257
    a, b, c = (complex_values(dtype, n, seed) for seed in (1, 2, 3))
    s = (np.arange(n) % 11 - 5.5).astype(real)
    program = cl.Program(ctx, KERNEL.format(c=c_name, r=r_name)).build()
    device = [cla.to_device(queue, v) for v in (a, b, c, s)]
    out = cla.empty(queue, 13 * n, dtype)
    program.each(queue, (n,), None, *(d.data for d in device), out.data)
    got = out.get().reshape(n, 13)
    want = np.stack(
        [
            a * b + c,
            a / b,
            np.conj(a) * b,
            -a - b,
            a + s,
            s + a,
            a * s,
            s / b,
            a / s,
            np.abs(a) + 1j * np.abs(b) ** 2,
            a.real + 1j * b.imag,
            s + 0j,
            a + c,
        ],
        axis=1,
    )
    np.testing.assert_allclose(got, want, **tolerance(dtype))


@pytest.mark.parametrize("dtype", COMPLEX_TYPES)
def test_pyopencl_complex_functions_in_an_elementwise_kernel(ctx, queue, dtype):
    # PyOpenCL's elementwise kernels of complex arguments have the header without an #include.
    needs_double(queue)
    c_name = "cfloat" if dtype == np.complex64 else "cdouble"
    z = complex_values(dtype, 301) / 4
    x = cla.to_device(queue, z)
    out = cla.empty(queue, (6, 301), dtype)
    kernel = ElementwiseKernel(
        ctx,
        f"{c_name}_t *x, {c_name}_t *out",
        f"out[i] = {c_name}_exp(x[i]); out[n + i] = {c_name}_log(x[i]); "
        f"out[2 * n + i] = {c_name}_sqrt(x[i]); out[3 * n + i] = {c_name}_tanh(x[i]); "
        f"out[4 * n + i] = {c_name}_pow(x[i], x[n - 1 - i]); "
        f"out[5 * n + i] = {c_name}_powr(x[i], 2.5f)",
    )
    kernel(x, out)
    want = np.stack([np.exp(z), np.log(z), np.sqrt(z), np.tanh(z), z ** z[::-1], z**2.5])
    np.testing.assert_allclose(out.get(), want, rtol=2e-5 if dtype == np.complex64 else 1e-12)


@pytest.mark.parametrize("dtype", COMPLEX_TYPES)
def test_reduction_and_scan_kernels_of_complex_arguments(ctx, queue, dtype):
    if dtype == np.complex128:
        needs_double(queue)
    if ORIGINAL:
        from pyopencl.reduction import ReductionKernel
        from pyopencl.scan import InclusiveScanKernel
    else:
        from gpukit.cl.reduction import ReductionKernel
        from gpukit.cl.scan import InclusiveScanKernel
    c_name = "cfloat" if dtype == np.complex64 else "cdouble"
    # PyOpenCL's scans want the header included; the #include finds gpukit's too.
    preamble = "#define PYOPENCL_DEFINE_CDOUBLE\n#include <pyopencl-complex.h>\n"
    a, b = complex_values(dtype, 1001, 5), complex_values(dtype, 1001, 6)
    x, y = cla.to_device(queue, a), cla.to_device(queue, b)
    dot = ReductionKernel(
        ctx,
        dtype,
        neutral=f"{c_name}_new(0, 0)",
        reduce_expr=f"{c_name}_add(a, b)",
        map_expr=f"{c_name}_mul({c_name}_conj(x[i]), y[i])",
        arguments=f"__global const {c_name}_t *x, __global const {c_name}_t *y",
        preamble=preamble,
    )
    np.testing.assert_allclose(dot(x, y).get(), np.vdot(a, b), rtol=1e-5 if dtype == np.complex64 else 1e-12)
    running = InclusiveScanKernel(ctx, dtype, f"{c_name}_add(a, b)", neutral=f"{c_name}_new(0, 0)", preamble=preamble)
    np.testing.assert_allclose(running(x.copy()).get(), np.cumsum(a), rtol=1e-4 if dtype == np.complex64 else 1e-11)
