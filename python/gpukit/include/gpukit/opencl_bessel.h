// Bessel functions of integer order in OpenCL C, in double precision (cl_khr_fp64): what
// gpukit.cl.clmath's bessel_jn, bessel_yn and hankel_01 run, and what OpenCL C programs may
// include as <gpukit/opencl_bessel.h>:
//
//   double gk_bessel_jn(int n, double x)        J_n(x), any real x
//   double gk_bessel_yn(int n, double x)        Y_n(x); NaN for x < 0, -inf at 0
//   cdouble_t gk_bessel_jn_complex(int n, cdouble_t z)
//   void gk_hankel_01(cdouble_t z, cdouble_t* h0, cdouble_t* h1)   H^(1)_0(z), H^(1)_1(z)
//
// The methods (each standard, written here):
//  - Miller's backward recurrence from an order m well above n and |z|, where the wanted
//    solution J dominates, normalized by the generating function's sum: J_0 + 2 sum J_2k = 1
//    for real x, J_0 + 2 sum t^k J_k = e^{z (t - 1/t) / 2} with t = -i or i for complex z
//    (the side where the sum does not cancel). Values are scaled down as they grow.
//  - Neumann's series over the same J_k for Y_0 and Y_1:
//      Y_0 = (2/pi)(log(z/2) + gamma) J_0 - (4/pi) sum_k (-1)^k J_2k / k
//      Y_1 = -Y_0' = (2/pi)(log(z/2) + gamma) J_1 - 2/(pi z) J_0
//                    + (2/pi) sum_k (-1)^k (J_2k-1 - J_2k+1) / k
//    and Y_n by the forward recurrence, which is stable for Y.
//  - For |z| >= 25, Hankel's asymptotic expansion of H^(1)_nu = J_nu + i Y_nu (in the third
//    quadrant through H^(1)_n(z) = (-1)^n (2 H^(1)_n(-z) + H^(2)_n(-z))), and for real x the
//    J_n from J_0, J_1 forward while n < x.
//  - H^(1) in the upper half plane (Im z >= 2, where J + iY would cancel) from
//    K_nu(w) = int_0^inf e^{-w cosh t} cosh(nu t) dt at w = -iz, by the trapezoidal rule
//    (exponentially accurate for this integrand; the step follows the strip where it is
//    analytic and bounded): H^(1)_nu(z) = 2 / (pi i^{nu+1}) K_nu(-iz).
#ifndef GPUKIT_OPENCL_BESSEL_H
#define GPUKIT_OPENCL_BESSEL_H

#include "gpukit/opencl_complex.h"

#define GK_BESSEL_PI 3.14159265358979323846
#define GK_BESSEL_EULER_GAMMA 0.57721566490153286061
#define GK_BESSEL_BIG 1e150  // recurrence values are scaled by 1 / GK_BESSEL_BIG past this
#define GK_BESSEL_LARGE 25.0 // |z| from which Hankel's expansion is accurate to double

// The order Miller's recurrence starts from for orders up to n at |z| = r: far enough above
// both that the start's error has decayed below double precision by order n (and by 0).
inline int gk_bessel_miller_start(int n, double r) {
    const double top = fmax((double)n, r);
    const int m = (int)(top + 12.0 * cbrt(top + 1.0) + 20.0);
    return m + (m & 1);
}

// Miller's recurrence for real x > 0: J_n(x), and with y01 given Y_0(x) and Y_1(x) (y01[0], [1]).
inline double gk_bessel_miller_real(int n, double x, double* y01) {
    const int m = gk_bessel_miller_start(n, x);
    double above = 0.0, f = 1.0;  // f_{k+1}, f_k: f_m = 1 (a scale), f_{m+1} = 0
    double norm = 0.0, jn = 0.0, s0 = 0.0, s1 = 0.0, f1 = 0.0;
    for (int k = m; k >= 0; --k) {
        // f is f_k: its share of the normalization and of Neumann's sums.
        if (k == n)
            jn = f;
        if (k == 1)
            f1 = f;
        if (k >= 2 && (k & 1) == 0) {
            norm += 2.0 * f;
            const int h = k / 2;
            s0 += ((h & 1) ? -f : f) / h;
        } else if (k & 1) {
            const int up = (k + 1) / 2, down = (k - 1) / 2;  // f_k is J_{2 up - 1} and J_{2 down + 1}
            s1 += ((up & 1) ? -f : f) / up;
            if (down >= 1)
                s1 -= ((down & 1) ? -f : f) / down;
        }
        if (k == 0)
            break;
        const double below = (2.0 * k / x) * f - above;
        above = f;
        f = below;
        if (fabs(f) > GK_BESSEL_BIG) {
            const double s = 1.0 / GK_BESSEL_BIG;
            f *= s; above *= s; norm *= s; jn *= s; s0 *= s; s1 *= s; f1 *= s;
        }
    }
    norm += f;  // f_0
    if (y01) {
        const double log_term = (2.0 / GK_BESSEL_PI) * (log(0.5 * x) + GK_BESSEL_EULER_GAMMA);
        const double j0 = f / norm, j1 = f1 / norm;
        y01[0] = log_term * j0 - (4.0 / GK_BESSEL_PI) * s0 / norm;
        y01[1] = log_term * j1 - 2.0 / (GK_BESSEL_PI * x) * j0 + (2.0 / GK_BESSEL_PI) * s1 / norm;
    }
    return jn / norm;
}

// e^{i z}
inline cdouble_t gk_bessel_expi(cdouble_t z) {
    const double m = exp(-z.imag);
    return gk_cdouble_new(m * cos(z.real), m * sin(z.real));
}

// H^(1)_nu(z), nu = 0 or 1, by Hankel's expansion (|z| >= GK_BESSEL_LARGE, -pi/2 <= arg z <= pi):
// sqrt(2 / (pi z)) e^{i (z - nu pi / 2 - pi / 4)} sum_k i^k a_k(nu) / z^k.
inline cdouble_t gk_hankel1_asymptotic(int nu, cdouble_t z) {
    const double mu = 4.0 * nu * nu;
    const cdouble_t i_over_8z = gk_cdouble_div(gk_cdouble_new(0.0, 1.0), gk_cdouble_new(8.0 * z.real, 8.0 * z.imag));
    cdouble_t term = gk_cdouble_new(1.0, 0.0), sum = term;
    double last = 1.0;
    for (int k = 1; k < 80; ++k) {
        const double odd = 2.0 * k - 1.0, c = (mu - odd * odd) / k;
        term = gk_cdouble_mul(term, gk_cdouble_new(c * i_over_8z.real, c * i_over_8z.imag));
        const double size = gk_cdouble_abs(term);
        if (size > last)  // the expansion diverges from here on
            break;
        sum = gk_cdouble_add(sum, term);
        last = size;
        if (size < 1e-17 * gk_cdouble_abs(sum))
            break;
    }
    // e^{-i (nu pi / 2 + pi / 4)}: the phase of order nu, exactly for 0 and 1.
    const double h = 0.70710678118654752440;
    const cdouble_t phase = nu == 0 ? gk_cdouble_new(h, -h) : gk_cdouble_new(-h, -h);
    const cdouble_t root = cdouble_sqrt(z);
    const cdouble_t scale = gk_cdouble_div(gk_cdouble_new(0.79788456080286535588, 0.0), root);  // sqrt(2/pi)
    return gk_cdouble_mul(gk_cdouble_mul(scale, gk_cdouble_mul(gk_bessel_expi(z), phase)), sum);
}

// J_n(x) for real x, any integer n.
inline double gk_bessel_jn(int n, double x) {
    double sign = 1.0;
    if (n < 0) {  // J_{-n} = (-1)^n J_n
        n = -n;
        if (n & 1)
            sign = -sign;
    }
    if (x < 0.0) {  // J_n(-x) = (-1)^n J_n(x)
        x = -x;
        if (n & 1)
            sign = -sign;
    }
    if (x != x)
        return x;
    if (x == 0.0)
        return n == 0 ? 1.0 : 0.0;
    if (isinf(x))
        return 0.0;
    if (x >= GK_BESSEL_LARGE && n < x) {
        // J_0 and J_1 from the expansion, then forward: stable while the order is below x.
        const cdouble_t h0 = gk_hankel1_asymptotic(0, gk_cdouble_new(x, 0.0));
        if (n == 0)
            return sign * h0.real;
        const cdouble_t h1 = gk_hankel1_asymptotic(1, gk_cdouble_new(x, 0.0));
        double below = h0.real, j = h1.real;
        for (int k = 1; k < n; ++k) {
            const double next = (2.0 * k / x) * j - below;
            below = j;
            j = next;
        }
        return sign * j;
    }
    return sign * gk_bessel_miller_real(n, x, 0);
}

// Y_n(x) for real x, any integer n: NaN for x < 0 (and NaN), -inf at 0, 0 at +inf.
inline double gk_bessel_yn(int n, double x) {
    double sign = 1.0;
    if (n < 0) {  // Y_{-n} = (-1)^n Y_n
        n = -n;
        if (n & 1)
            sign = -sign;
    }
    if (!(x >= 0.0))
        return (x - x) / (x - x);  // NaN
    if (x == 0.0)
        return -sign * INFINITY;
    if (isinf(x))
        return 0.0;
    double y[2];
    if (x >= GK_BESSEL_LARGE) {
        y[0] = gk_hankel1_asymptotic(0, gk_cdouble_new(x, 0.0)).imag;
        y[1] = gk_hankel1_asymptotic(1, gk_cdouble_new(x, 0.0)).imag;
    } else {
        gk_bessel_miller_real(1, x, y);
    }
    if (n <= 1)
        return sign * y[n];
    double below = y[0], yn = y[1];
    for (int k = 1; k < n && !isinf(yn); ++k) {
        const double next = (2.0 * k / x) * yn - below;
        below = yn;
        yn = next;
    }
    return sign * yn;
}

// Miller's recurrence for complex z != 0: J_n(z), and with j01 and y01 given J_0(z), J_1(z),
// Y_0(z) and Y_1(z).
inline cdouble_t gk_bessel_miller_complex(int n, cdouble_t z, cdouble_t* j01, cdouble_t* y01) {
    const int m = gk_bessel_miller_start(n, gk_cdouble_abs(z));
    // The normalization J_0 + 2 sum t^k J_k = e^{z (t - 1/t) / 2}: t = -i gives e^{-iz}, large
    // where Im z >= 0; t = i gives e^{iz}, large where Im z < 0. tk is t^k.
    const int upper = z.imag >= 0.0;
    const cdouble_t two_over_z = gk_cdouble_div(gk_cdouble_new(2.0, 0.0), z);
    cdouble_t above = gk_cdouble_new(0.0, 0.0), f = gk_cdouble_new(1.0, 0.0);
    cdouble_t norm = above, jn = above, s0 = above, s1 = above, f1 = above;
    for (int k = m; k >= 0; --k) {
        if (k == n)
            jn = f;
        if (k == 1)
            f1 = f;
        if (k >= 1) {
            // t^k f_k: t^k cycles through 1, t, -1, -t; t f is (f.imag, -f.real) for t = -i.
            const cdouble_t tf = upper ? gk_cdouble_new(f.imag, -f.real) : gk_cdouble_new(-f.imag, f.real);
            const cdouble_t tkf = (k & 1) ? tf : f;
            const double twice = (k & 2) ? -2.0 : 2.0;
            norm = gk_cdouble_add(norm, gk_cdouble_new(twice * tkf.real, twice * tkf.imag));
        }
        if (k >= 2 && (k & 1) == 0) {
            const int h = k / 2;
            const double c = ((h & 1) ? -1.0 : 1.0) / h;
            s0 = gk_cdouble_add(s0, gk_cdouble_new(c * f.real, c * f.imag));
        } else if (k & 1) {
            const int up = (k + 1) / 2, down = (k - 1) / 2;
            double c = ((up & 1) ? -1.0 : 1.0) / up;
            if (down >= 1)
                c -= ((down & 1) ? -1.0 : 1.0) / down;
            s1 = gk_cdouble_add(s1, gk_cdouble_new(c * f.real, c * f.imag));
        }
        if (k == 0)
            break;
        const cdouble_t ratio = gk_cdouble_new(k * two_over_z.real, k * two_over_z.imag);
        const cdouble_t below = gk_cdouble_sub(gk_cdouble_mul(ratio, f), above);
        above = f;
        f = below;
        if (fabs(f.real) + fabs(f.imag) > GK_BESSEL_BIG) {
            const double s = 1.0 / GK_BESSEL_BIG;
            f = gk_cdouble_new(s * f.real, s * f.imag);
            above = gk_cdouble_new(s * above.real, s * above.imag);
            norm = gk_cdouble_new(s * norm.real, s * norm.imag);
            jn = gk_cdouble_new(s * jn.real, s * jn.imag);
            s0 = gk_cdouble_new(s * s0.real, s * s0.imag);
            s1 = gk_cdouble_new(s * s1.real, s * s1.imag);
            f1 = gk_cdouble_new(s * f1.real, s * f1.imag);
        }
    }
    norm = gk_cdouble_add(norm, f);  // f_0
    // The sum is e^{-iz} (upper) or e^{iz}: the factor that turns each f_k into J_k.
    const cdouble_t e = gk_bessel_expi(upper ? gk_cdouble_neg(z) : z);
    const cdouble_t to_j = gk_cdouble_div(e, norm);
    const cdouble_t j0 = gk_cdouble_mul(f, to_j), j1 = gk_cdouble_mul(f1, to_j);
    if (j01) {
        j01[0] = j0;
        j01[1] = j1;
    }
    if (y01) {
        const cdouble_t log_half = cdouble_log(gk_cdouble_new(0.5 * z.real, 0.5 * z.imag));
        const cdouble_t log_term = gk_cdouble_new((2.0 / GK_BESSEL_PI) * (log_half.real + GK_BESSEL_EULER_GAMMA),
                                                  (2.0 / GK_BESSEL_PI) * log_half.imag);
        const cdouble_t n0 = gk_cdouble_mul(s0, to_j), n1 = gk_cdouble_mul(s1, to_j);
        y01[0] = gk_cdouble_sub(gk_cdouble_mul(log_term, j0),
                                gk_cdouble_new((4.0 / GK_BESSEL_PI) * n0.real, (4.0 / GK_BESSEL_PI) * n0.imag));
        const cdouble_t pole = gk_cdouble_mul(gk_cdouble_div(gk_cdouble_new(2.0 / GK_BESSEL_PI, 0.0), z), j0);
        y01[1] = gk_cdouble_add(gk_cdouble_sub(gk_cdouble_mul(log_term, j1), pole),
                                gk_cdouble_new((2.0 / GK_BESSEL_PI) * n1.real, (2.0 / GK_BESSEL_PI) * n1.imag));
    }
    return gk_cdouble_mul(jn, to_j);
}

// J_n(z) for complex z, any integer n.
inline cdouble_t gk_bessel_jn_complex(int n, cdouble_t z) {
    double sign = 1.0;
    if (n < 0) {
        n = -n;
        if (n & 1)
            sign = -1.0;
    }
    if (z.imag == 0.0)  // the real axis: the real function, whose values are real
        return gk_cdouble_new(sign * gk_bessel_jn(n, z.real), 0.0);
    const cdouble_t j = gk_bessel_miller_complex(n, z, 0, 0);
    return gk_cdouble_new(sign * j.real, sign * j.imag);
}

// K_0(w) and K_1(w) scaled by e^{w} (Re w >= 2) by the trapezoidal rule over t of
// e^{-w (cosh t - 1)} cosh(nu t). The rule's error is about M e^{-2 pi d / step} for a strip
// |Im t| < d where the integrand is analytic and at most M: it stays bounded along the strip
// for d < atan(Re w / |Im w|), and grows at most e^{Re w (1 - cos d)} (kept at e^2) within it.
inline void gk_bessel_k01_scaled(cdouble_t w, cdouble_t* k0, cdouble_t* k1) {
    const double width = fmin(0.9 * atan2(w.real, fabs(w.imag)), acos(fmax(-1.0, 1.0 - 2.0 / w.real)));
    const double step = 2.0 * GK_BESSEL_PI * width / 42.0;
    cdouble_t sum0 = gk_cdouble_new(0.5, 0.0), sum1 = sum0;  // t = 0 counts half
    for (int j = 1; j < 100000; ++j) {
        const double t = j * step, c = cosh(t) - 1.0;
        const double decay = exp(-w.real * c);
        if (decay < 1e-18)
            break;
        const cdouble_t v = gk_cdouble_new(decay * cos(w.imag * c), -decay * sin(w.imag * c));
        const double ch = cosh(t);
        sum0 = gk_cdouble_add(sum0, v);
        sum1 = gk_cdouble_add(sum1, gk_cdouble_new(ch * v.real, ch * v.imag));
    }
    *k0 = gk_cdouble_new(step * sum0.real, step * sum0.imag);
    *k1 = gk_cdouble_new(step * sum1.real, step * sum1.imag);
}

// H^(1)_0(z) and H^(1)_1(z) for complex z (the principal branch: -pi < arg z <= pi).
inline void gk_hankel_01(cdouble_t z, cdouble_t* h0, cdouble_t* h1) {
    if (z.real == 0.0 && z.imag == 0.0) {
        *h0 = *h1 = gk_cdouble_new(NAN, NAN);
        return;
    }
    if (gk_cdouble_abs(z) >= GK_BESSEL_LARGE) {
        if (z.real >= 0.0 || z.imag >= 0.0) {
            *h0 = gk_hankel1_asymptotic(0, z);
            *h1 = gk_hankel1_asymptotic(1, z);
            return;
        }
        // The third quadrant, past the expansion's sector: with u = -z in the first,
        // H^(1)_n(z) = (-1)^n (2 H^(1)_n(u) + H^(2)_n(u)), H^(2)_n(u) = conj(H^(1)_n(conj(u))).
        const cdouble_t u = gk_cdouble_neg(z), u_conj = gk_cdouble_conj(u);
        for (int nu = 0; nu <= 1; ++nu) {
            const cdouble_t first = gk_hankel1_asymptotic(nu, u);
            const cdouble_t second = gk_cdouble_conj(gk_hankel1_asymptotic(nu, u_conj));
            const double sign = nu ? -1.0 : 1.0;
            const cdouble_t h = gk_cdouble_new(sign * (2.0 * first.real + second.real),
                                               sign * (2.0 * first.imag + second.imag));
            if (nu)
                *h1 = h;
            else
                *h0 = h;
        }
        return;
    }
    if (z.imag >= 2.0) {
        // H^(1)_nu(z) = 2 / (pi i^{nu+1}) K_nu(-iz), K_nu(w) = e^{-w} (the scaled integral).
        const cdouble_t w = gk_cdouble_new(z.imag, -z.real);
        cdouble_t k0, k1;
        gk_bessel_k01_scaled(w, &k0, &k1);
        const cdouble_t decay = gk_bessel_expi(z);  // e^{-w} = e^{iz}
        k0 = gk_cdouble_mul(k0, decay);
        k1 = gk_cdouble_mul(k1, decay);
        // 2 / (pi i) = -2i/pi; 2 / (pi i^2) = -2/pi.
        *h0 = gk_cdouble_new((2.0 / GK_BESSEL_PI) * k0.imag, -(2.0 / GK_BESSEL_PI) * k0.real);
        *h1 = gk_cdouble_new(-(2.0 / GK_BESSEL_PI) * k1.real, -(2.0 / GK_BESSEL_PI) * k1.imag);
        return;
    }
    // Near the real axis and below it: J + iY, which cancel by at most e^{2 Im z} < e^4 here.
    cdouble_t j[2], y[2];
    gk_bessel_miller_complex(1, z, j, y);
    *h0 = gk_cdouble_new(j[0].real - y[0].imag, j[0].imag + y[0].real);
    *h1 = gk_cdouble_new(j[1].real - y[1].imag, j[1].imag + y[1].real);
}

#endif
