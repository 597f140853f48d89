"""clmath's Bessel and Hankel functions (bessel_jn, bessel_yn, hankel_01) against references
computed here with numpy, independent of the kernels' methods: Bessel's integral (the periodic
trapezoidal rule, exact to rounding), the power series in extended precision for small
arguments, the Wronskians that tie J to Y and to H, known zeros, symmetries, and agreement
across the places where the kernels change method. These run on PoCL in CI. (With
GPUKIT_PYOPENCL_ORIGINAL=1 they run against PyOpenCL's functions, which fail five of them on
PoCL: J_60 at x >= 100 off by 0.1, real arguments in complex form with imaginary parts, special
values, Wronskians to 1e-13.)"""

import math

import numpy as np
import pytest

from cl_either import ORIGINAL, cl, ctx, needs_device, queue  # noqa: F401  (ctx, queue: fixtures)

if ORIGINAL:
    import pyopencl.array as cla
    import pyopencl.clmath as clmath
else:
    import gpukit.cl.array as cla
    import gpukit.cl.clmath as clmath

pytestmark = [pytest.mark.opencl, needs_device]


@pytest.fixture
def dqueue(queue):
    if "cl_khr_fp64" not in queue.device.extensions:
        pytest.skip("the Bessel functions compute in double precision, which this device lacks")
    return queue


def bessel_integral(n, z, points=512):
    """J_n(z) = (1/2pi) int_{-pi}^{pi} e^{i (z sin t - n t)} dt by the trapezoidal rule, exact to
    rounding for a periodic analytic integrand once points exceed |z| + n by a margin; its
    absolute error is about 1e-16 e^{|Im z|}."""
    t = np.linspace(-np.pi, np.pi, points, endpoint=False)
    z = np.asarray(z, dtype=complex)[..., None]
    return np.exp(1j * (z * np.sin(t) - n * t)).mean(axis=-1)


def bessel_series(n, z):
    """J_n(z) by its power series in extended precision: relative accuracy where |z| is small
    against n (used for |z| <= 8)."""
    z = np.asarray(z, dtype=np.clongdouble)
    half = z / 2
    term = np.ones_like(z)
    for k in range(1, n + 1):
        term = term * half / k
    total = term.copy()
    for k in range(1, 80):
        term = -term * half * half / (k * (k + n))
        total += term
    return total


def to_device(queue, host):
    return cla.to_device(queue, np.ascontiguousarray(host))


# ---- J_n of real arguments


def test_j_of_real_arguments_is_bessels_integral(dqueue):
    x = np.concatenate([np.linspace(-60, 60, 1001), np.logspace(-5, 2, 300)])
    device_x = to_device(dqueue, x)
    for n in [0, 1, 2, 5, 13, 29, 40]:
        got = clmath.bessel_jn(n, device_x).get()
        assert got.dtype == np.float64
        np.testing.assert_allclose(got, bessel_integral(n, x).real, rtol=0, atol=2e-14, err_msg=f"n={n}")


def test_j_of_large_real_arguments_follows_the_expansion_and_the_recurrence(dqueue):
    # Past x = 25 J_0 and J_1 come from Hankel's expansion and J_n forward while n < x: at
    # x up to 1e5 the values against Bessel's integral with enough points.
    x = np.concatenate([np.linspace(24.5, 30.5, 97), np.logspace(2, 5, 50)])
    device_x = to_device(dqueue, x)
    for n in [0, 1, 7, 24, 26, 60]:
        got = clmath.bessel_jn(n, device_x).get()
        want = np.array([bessel_integral(n, v, points=int(2 * v) + 256) for v in x]).real
        np.testing.assert_allclose(got, want, rtol=0, atol=5e-14, err_msg=f"n={n}")


def test_j_of_small_real_arguments_keeps_its_relative_accuracy(dqueue):
    x = np.logspace(-5, 0.5, 200)
    device_x = to_device(dqueue, x)
    for n in [0, 1, 3, 10, 29]:
        got = clmath.bessel_jn(n, device_x).get()
        want = bessel_series(n, x).real.astype(np.float64)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=0, err_msg=f"n={n}")


def test_j_symmetries_zeros_and_special_values(dqueue):
    x = np.array([0.0, 0.5, 3.0, 17.25, 40.0, np.inf, -np.inf, np.nan])
    device_x = to_device(dqueue, x)
    for n in range(6):
        positive = clmath.bessel_jn(n, device_x).get()
        negative_order = clmath.bessel_jn(-n, device_x).get()
        negative_argument = clmath.bessel_jn(n, to_device(dqueue, -x)).get()
        np.testing.assert_array_equal(negative_order, (-1) ** n * positive)
        np.testing.assert_array_equal(negative_argument, (-1) ** n * positive)
        assert positive[0] == (1.0 if n == 0 else 0.0)
        assert positive[5] == 0.0 and positive[6] == 0.0 and np.isnan(positive[7])
    first_zero = to_device(dqueue, np.array([2.404825557695773, 3.8317059702075125]))
    assert abs(clmath.bessel_jn(0, first_zero).get()[0]) < 1e-15
    assert abs(clmath.bessel_jn(1, first_zero).get()[1]) < 1e-15


# ---- Y_n


def test_y_and_j_satisfy_the_wronskian(dqueue):
    # J_{n+1} Y_n - J_n Y_{n+1} = 2 / (pi x), across the methods (small x, Miller with
    # Neumann's series, the expansion past 25, the forward recurrence to high order).
    x = np.concatenate([np.logspace(-4, 5, 2000), np.linspace(24.9, 25.1, 41)])
    device_x = to_device(dqueue, x)
    j = [clmath.bessel_jn(n, device_x).get() for n in range(0, 22)]
    y = [clmath.bessel_yn(n, device_x).get() for n in range(0, 22)]
    for n in range(21):
        w = j[n + 1] * y[n] - j[n] * y[n + 1]
        scale = np.abs(j[n + 1] * y[n]) + np.abs(j[n] * y[n + 1])
        np.testing.assert_array_less(np.abs(w - 2 / (np.pi * x)), 1e-13 * scale + 1e-300, err_msg=f"n={n}")


def test_y_at_small_arguments_and_its_zeros(dqueue):
    x = np.logspace(-5, -3.5, 30)  # where the series' next terms (x^4 log x) are below rounding
    device_x = to_device(dqueue, x)
    gamma = 0.5772156649015329
    # Y_0 = (2/pi)(log(x/2) + gamma) J_0 + (2/pi) x^2/4 + ..., Y_1 = -2/(pi x) + ..., Y_2 = -4/(pi x^2) + ...
    np.testing.assert_allclose(
        clmath.bessel_yn(0, device_x).get(),
        2 / np.pi * ((np.log(x / 2) + gamma) * (1 - x * x / 4) + x * x / 4),
        rtol=1e-12,
    )
    np.testing.assert_allclose(clmath.bessel_yn(1, device_x).get(), -2 / (np.pi * x), rtol=1e-4)
    np.testing.assert_allclose(clmath.bessel_yn(2, device_x).get(), -4 / (np.pi * x * x), rtol=1e-4)
    zeros = to_device(dqueue, np.array([0.8935769662791675, 2.197141326031017]))
    assert abs(clmath.bessel_yn(0, zeros).get()[0]) < 1e-15
    assert abs(clmath.bessel_yn(1, zeros).get()[1]) < 1e-15


def test_y_special_values_and_negative_orders(dqueue):
    x = to_device(dqueue, np.array([0.0, -1.0, np.nan, np.inf, 3.5]))
    for n in range(4):
        y = clmath.bessel_yn(n, x).get()
        assert y[0] == -np.inf and np.isnan(y[1]) and np.isnan(y[2]) and y[3] == 0.0
        np.testing.assert_array_equal(clmath.bessel_yn(-n, x).get()[3:], (-1) ** n * y[3:])


# ---- complex arguments


def complex_points(count, largest, seed):
    rng = np.random.default_rng(seed)
    return np.logspace(-5, math.log10(largest), count) * np.exp(2j * np.pi * rng.random(count))


def test_j_of_complex_arguments_against_the_series_and_the_integral(dqueue):
    small = complex_points(400, 8, 1)
    large = complex_points(400, 60, 2)
    large = large[np.abs(large) > 8]
    for n in [0, 1, 4, 17, 40]:
        got = clmath.bessel_jn(n, to_device(dqueue, small)).get()
        assert got.dtype == np.complex128
        want = bessel_series(n, small).astype(np.complex128)
        np.testing.assert_array_less(np.abs(got - want), 1e-13 * np.abs(want) + 1e-300, err_msg=f"n={n}")
        got = clmath.bessel_jn(n, to_device(dqueue, large)).get()
        want = bessel_integral(n, large)
        np.testing.assert_array_less(np.abs(got - want), 1e-14 * np.exp(np.abs(large.imag)), err_msg=f"n={n}")


def test_j_of_complex_arguments_is_real_j_on_the_axis_and_symmetric(dqueue):
    x = np.linspace(-50, 50, 401)
    z = complex_points(300, 40, 3)
    for n in [0, 3, 11]:
        on_axis = clmath.bessel_jn(n, to_device(dqueue, x.astype(np.complex128))).get()
        np.testing.assert_allclose(on_axis.real, clmath.bessel_jn(n, to_device(dqueue, x)).get(), rtol=0, atol=1e-14)
        assert not on_axis.imag.any()
        np.testing.assert_allclose(
            clmath.bessel_jn(n, to_device(dqueue, z.conj())).get(),
            clmath.bessel_jn(n, to_device(dqueue, z)).get().conj(),
            rtol=1e-14,
        )


def test_hankel_and_j_satisfy_the_wronskian(dqueue):
    # J_1 H_0 - J_0 H_1 = 2i / (pi z) everywhere: in the upper half plane H decays as J grows,
    # so this checks H's relative accuracy there (no cancellation between the two products).
    z = complex_points(20000, 100, 4)
    device_z = to_device(dqueue, z)
    h0, h1 = (h.get() for h in clmath.hankel_01(device_z))
    j0, j1 = clmath.bessel_jn(0, device_z).get(), clmath.bessel_jn(1, device_z).get()
    w = j1 * h0 - j0 * h1
    scale = np.abs(j1 * h0) + np.abs(j0 * h1)
    np.testing.assert_array_less(np.abs(w - 2j / (np.pi * z)), 2e-13 * scale)


def test_hankel_is_j_plus_i_y_where_they_do_not_cancel(dqueue):
    # On the real axis and below it (|e^{iz}| >= 1), H = J + iY has no cancellation; J and Y
    # there come from the real functions and from Bessel's integral.
    x = np.logspace(-4, 2, 300)
    h0, h1 = (h.get() for h in clmath.hankel_01(to_device(dqueue, x.astype(np.complex128))))
    dx = to_device(dqueue, x)
    for h, n in ((h0, 0), (h1, 1)):
        want = clmath.bessel_jn(n, dx).get() + 1j * clmath.bessel_yn(n, dx).get()
        np.testing.assert_allclose(h, want, rtol=1e-13)


def test_hankel_agrees_across_its_method_boundaries(dqueue):
    # |z| = 25 (the expansion) and Im z = 2 (the integral for K), approached from both sides,
    # at several angles: the two methods give the same values.
    eps = 1e-14
    angles = np.linspace(-np.pi + 0.01, np.pi, 37)
    pairs = [25 * (1 - eps) * np.exp(1j * angles), 25 * (1 + eps) * np.exp(1j * angles)]
    re = np.linspace(-20, 20, 41)
    pairs += [[complex(r, 2 * (1 - eps)) for r in re], [complex(r, 2 * (1 + eps)) for r in re]]
    for below, above in ((pairs[0], pairs[1]), (pairs[2], pairs[3])):
        a = [h.get() for h in clmath.hankel_01(to_device(dqueue, np.array(below)))]
        b = [h.get() for h in clmath.hankel_01(to_device(dqueue, np.array(above)))]
        for x, y in zip(a, b):
            np.testing.assert_allclose(x, y, rtol=1e-12)


def test_hankel_of_the_imaginary_axis_is_k(dqueue):
    # H^(1)_0(iy) = -(2i/pi) K_0(y), H^(1)_1(iy) = -(2/pi) K_1(y), with K_nu(y) = int_0^inf
    # e^{-y cosh t} cosh(nu t) dt (a positive integrand: the trapezoidal rule, fine steps).
    y = np.array([0.01, 0.3, 1.0, 2.5, 7.0, 19.0, 60.0])
    t = np.arange(0, 12, 1e-3)
    k0 = np.array([np.trapezoid(np.exp(-v * np.cosh(t)), t) for v in y])
    k1 = np.array([np.trapezoid(np.exp(-v * np.cosh(t)) * np.cosh(t), t) for v in y])
    h0, h1 = (h.get() for h in clmath.hankel_01(to_device(dqueue, 1j * y)))
    np.testing.assert_allclose(h0, -2j / np.pi * k0, rtol=1e-10)
    np.testing.assert_allclose(h1, -2 / np.pi * k1, rtol=1e-10)


# ---- dtypes, views and mistakes (gpukit)


@pytest.mark.skipif(ORIGINAL, reason="PyOpenCL's Bessel kernels take contiguous float64/complex128 arrays")
def test_views_and_single_precision(dqueue):
    x = np.linspace(0.1, 30, 400).reshape(20, 20)
    device_x = to_device(dqueue, x)
    view = device_x[::-2, 3:17:3]
    np.testing.assert_array_equal(clmath.bessel_jn(4, view).get(), clmath.bessel_jn(4, device_x).get()[::-2, 3:17:3])
    single = clmath.bessel_yn(2, to_device(dqueue, x.astype(np.float32)))
    assert single.dtype == np.float32
    np.testing.assert_allclose(
        single.get(),
        clmath.bessel_yn(2, to_device(dqueue, x.astype(np.float32).astype(np.float64))).get().astype(np.float32),
        rtol=0,
    )
    z = (x + 1j * x[::-1]).astype(np.complex64)
    h0, h1 = clmath.hankel_01(to_device(dqueue, z))
    assert h0.dtype == h1.dtype == np.complex64
    h0_double, _ = clmath.hankel_01(to_device(dqueue, z.astype(np.complex128)))
    np.testing.assert_array_equal(h0.get(), h0_double.get().astype(np.complex64))


@pytest.mark.skipif(ORIGINAL, reason="gpukit's messages")
def test_mistakes_are_refused(dqueue):
    x = to_device(dqueue, np.linspace(1, 2, 5))
    with pytest.raises(TypeError, match="integer"):
        clmath.bessel_jn(1.5, x)
    with pytest.raises(ValueError, match="C int"):
        clmath.bessel_jn(2**40, x)
    with pytest.raises(TypeError, match="complex"):
        clmath.bessel_yn(1, to_device(dqueue, np.ones(3, np.complex128)))
    with pytest.raises(TypeError, match="complex arrays"):
        clmath.hankel_01(x)
    with pytest.raises(TypeError, match="float32 or float64"):
        clmath.bessel_jn(1, to_device(dqueue, np.arange(3)))
    with pytest.raises(TypeError, match="Array"):
        clmath.bessel_jn(1, np.ones(3))
