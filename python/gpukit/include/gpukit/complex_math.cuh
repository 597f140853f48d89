// Complex elementary functions in double precision: gk_cexp, gk_clog, gk_clog10, gk_csqrt,
// gk_csin, gk_ccos, gk_ctan, gk_casin, gk_cacos, gk_catan, gk_csinh, gk_ccosh, gk_ctanh and
// gk_catanh, of a gk_cvalue (numpy's complex128 layout). gpukit's one complex maths library:
// the array engine's math kernels carry it (the build embeds this file, src/CMakeLists.txt),
// and pycuda-complex.hpp's and pyopencl-complex.h's functions call it, for float through
// double, rounded once.
//
// The same text is OpenCL C (gpukit/opencl_complex.h includes it where the device has double
// precision): every function is __host__ __device__ under nvcc and NVRTC (which has no
// standard headers: only maths functions all sides have are called), plain inline under a
// host compiler and in OpenCL C; tests/cpp/array/test_complex_math.cpp builds it for the host
// and checks it against the C library's long double functions.
//
// The results follow C99 Annex G, as numpy's do (numpy calls the C library): special values
// for infinite and NaN parts, signed zeros, and branch cuts along the axes where the sign of
// a zero part picks the side.
//
// Accuracy: each part within a few ulp of the exact result measured against the larger part
// (CUDA's real functions have errors of 1 to 2 ulp, and most formulas here multiply two of
// them). The formulas avoid cancellation where the textbook ones lose digits: log near
// |z| = 1, the inverse functions near their branch points (Hull, Fairgrieve and Tang's
// algorithm for asin and acos), tanh near its poles (Kahan's formula), and they avoid
// overflow and underflow in intermediate results where the result itself is representable.
#ifndef GPUKIT_COMPLEX_MATH_CUH
#define GPUKIT_COMPLEX_MATH_CUH

#if defined(__OPENCL_C_VERSION__)
#define GK_CMATH_FN inline
#define GK_CMATH_SMALL inline
#define GK_CMATH_CONSTANT __constant
// OpenCL C's sincos returns the sine.
#define GK_SINCOS(y, s, c) ((s) = sincos((y), &(c)))
#elif defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define GK_CMATH_FN __host__ __device__ inline
#define GK_CMATH_SMALL __host__ __device__ __forceinline__
#define GK_CMATH_CONSTANT constexpr
#define GK_SINCOS(y, s, c) sincos((y), &(s), &(c))
#else
#define GK_CMATH_FN inline
#define GK_CMATH_SMALL inline
#define GK_CMATH_CONSTANT constexpr
#define GK_SINCOS(y, s, c) sincos((y), &(s), &(c))
#endif

// A complex128 value: real part, then imaginary part. C++ code may construct one directly;
// the functions below make theirs with gk_cvalue_new, which OpenCL C has too.
typedef struct gk_cvalue {
    double re, im;
#ifdef __cplusplus
    gk_cvalue() = default;
    GK_CMATH_SMALL constexpr gk_cvalue(double r, double i) : re(r), im(i) {}
#endif
} gk_cvalue;

GK_CMATH_SMALL gk_cvalue gk_cvalue_new(double re, double im) {
    gk_cvalue z;
    z.re = re;
    z.im = im;
    return z;
}

// ---- constants (no standard headers under NVRTC: no HUGE_VAL, no M_PI)

#if defined(__OPENCL_C_VERSION__)
GK_CMATH_SMALL double gk_infinity() { return as_double(0x7ff0000000000000UL); }
GK_CMATH_SMALL double gk_quiet_nan() { return as_double(0x7ff8000000000000UL); }
#else
GK_CMATH_SMALL double gk_infinity() { return 1.0 / 0.0; }
GK_CMATH_SMALL double gk_quiet_nan() { return nan(""); }
#endif

// ln 2, pi and pi/2 split into a leading part and a correction: k * gk_ln2_hi is exact for
// |k| < 2^20, and pi - x computed as (gk_pi_hi - x) + gk_pi_lo keeps the digits pi's rounding
// would lose.
GK_CMATH_CONSTANT double gk_ln2_hi = 6.93147180369123816490e-01;
GK_CMATH_CONSTANT double gk_ln2_lo = 1.90821492927058770002e-10;
GK_CMATH_CONSTANT double gk_pi_hi = 3.14159265358979311600e+00;
GK_CMATH_CONSTANT double gk_pi_lo = 1.22464679914735317723e-16;
GK_CMATH_CONSTANT double gk_half_pi_hi = 1.57079632679489655800e+00;
GK_CMATH_CONSTANT double gk_half_pi_lo = 6.12323399573676588613e-17;
GK_CMATH_CONSTANT double gk_quarter_pi = 7.85398163397448278999e-01;
// log10(e), split likewise for a product rounded once.
GK_CMATH_CONSTANT double gk_log10_e_hi = 4.34294481903251816668e-01;
GK_CMATH_CONSTANT double gk_log10_e_lo = 1.09831965021676510e-17;

// Below this magnitude asin, acos and atanh are their first Taylor term to double precision
// (the next is |z|^2 / 6 smaller); above its inverse they are their asymptotic forms.
GK_CMATH_CONSTANT double gk_series_limit = 0x1p-27;
GK_CMATH_CONSTANT double gk_asymptotic_limit = 0x1p27;

// ---- exact sums and products (double-double): a value as hi + lo, |lo| <= ulp(hi) / 2

typedef struct {
    double hi, lo;
} gk_double_double;

GK_CMATH_SMALL gk_double_double gk_double_double_new(double hi, double lo) {
    gk_double_double d;
    d.hi = hi;
    d.lo = lo;
    return d;
}

GK_CMATH_SMALL gk_double_double gk_two_sum(double a, double b) {
    const double s = a + b, v = s - a;
    return gk_double_double_new(s, (a - (s - v)) + (b - v));
}

GK_CMATH_SMALL gk_double_double gk_two_product(double a, double b) {
    const double p = a * b;
    return gk_double_double_new(p, fma(a, b, -p));
}

// a^2 + b^2 - 1 with the error of one rounding of the result, where computing it directly
// cancels the leading digits away (|z| near 1). For |a|, |b| below 2^500.
GK_CMATH_SMALL double gk_norm_minus_one(double a, double b) {
    const gk_double_double a2 = gk_two_product(a, a), b2 = gk_two_product(b, b);
    const gk_double_double s1 = gk_two_sum(a2.hi, -1.0), s2 = gk_two_sum(s1.hi, b2.hi);
    return s2.hi + (((s1.lo + s2.lo) + a2.lo) + b2.lo);
}

// ---- real helpers

// log |x + iy| for finite x and y, accurate where the result is near 0 (|z| near 1) and
// without overflow or underflow in |z|^2.
GK_CMATH_SMALL double gk_log_abs(double x, double y) {
    double a = fabs(x), b = fabs(y);
    if (a < b) {
        const double t = a;
        a = b;
        b = t;
    }
    if (a == 0)
        return -gk_infinity();
    int scale = 0;  // |z| = 2^scale |scaled z|
    if (a > 0x1p500) {
        a *= 0x1p-600;
        b *= 0x1p-600;
        scale = 600;
    } else if (a < 0x1p-500) {
        a *= 0x1p600;
        b *= 0x1p600;
        scale = -600;
    }
    const gk_double_double a2 = gk_two_product(a, a), b2 = gk_two_product(b, b);
    const gk_double_double sum = gk_two_sum(a2.hi, b2.hi);
    if (scale == 0 && sum.hi >= 0.5 && sum.hi <= 2.0)
        return 0.5 * log1p(gk_norm_minus_one(a, b));
    // log(hi + lo) = log(hi) + lo / hi to double precision.
    const double lo = (sum.lo + a2.lo) + b2.lo;
    return (0.5 * log(sum.hi) + scale * gk_ln2_hi) + (0.5 * (lo / sum.hi) + scale * gk_ln2_lo);
}

// v * e^x * 2^p for 709 < x (where e^x overflows though the product may not): with
// e^x = 2^k e^r, |r| <= ln2 / 2, v is scaled up first (exact for |v| <= 1, even for a
// subnormal v), multiplied by e^r (the one rounding), then scaled down exactly.
GK_CMATH_SMALL double gk_exp_times(double x, double v, int p) {
    if (x > 1500)  // e^1500 times the smallest subnormal overflows
        return v * gk_infinity();
    const int k = (int)rint(x * 1.44269504088896338700e+00);
    const double r = (x - k * gk_ln2_hi) - k * gk_ln2_lo;
    return ldexp(ldexp(v, 1000) * exp(r), k - 1000 + p);
}

// pi - v (for 0 <= v <= pi), keeping pi's digits.
GK_CMATH_SMALL double gk_pi_minus(double v) { return (gk_pi_hi - v) + gk_pi_lo; }

// ---- exponential and logarithms

GK_CMATH_FN gk_cvalue gk_cexp(gk_cvalue z) {
    const double x = z.re, y = z.im;
    if (y == 0)  // exp(x + 0i) = e^x + 0i, the zero's sign kept; also for infinite and NaN x
        return gk_cvalue_new(exp(x), y);
    if (isinf(x)) {
        if (!isfinite(y))  // e^(+inf) times a NaN direction; e^(-inf) = 0 in every direction
            return x > 0 ? gk_cvalue_new(x, gk_quiet_nan()) : gk_cvalue_new(0.0, copysign(0.0, y));
        double s, c;
        GK_SINCOS(y, s, c);
        return x > 0 ? gk_cvalue_new(x * c, x * s) : gk_cvalue_new(copysign(0.0, c), copysign(0.0, s));
    }
    if (isnan(x) || !isfinite(y))
        return gk_cvalue_new(gk_quiet_nan(), gk_quiet_nan());
    double s, c;
    GK_SINCOS(y, s, c);
    if (x > 709)
        return gk_cvalue_new(gk_exp_times(x, c, 0), gk_exp_times(x, s, 0));
    const double e = exp(x);
    return gk_cvalue_new(e * c, e * s);
}

// The principal branch: the imaginary part is atan2(y, x), in [-pi, pi].
GK_CMATH_FN gk_cvalue gk_clog(gk_cvalue z) {
    const double x = z.re, y = z.im;
    double re;
    if (isinf(x) || isinf(y))
        re = gk_infinity();
    else if (isnan(x) || isnan(y))
        re = gk_quiet_nan();
    else
        re = gk_log_abs(x, y);
    return gk_cvalue_new(re, atan2(y, x));
}

// log(z) / ln 10, each part multiplied by log10(e) with one rounding (as numpy computes it).
GK_CMATH_FN gk_cvalue gk_clog10(gk_cvalue z) {
    const gk_cvalue l = gk_clog(z);
    return gk_cvalue_new(fma(l.re, gk_log10_e_hi, l.re * gk_log10_e_lo), fma(l.im, gk_log10_e_hi, l.im * gk_log10_e_lo));
}

// The principal branch: the real part is >= 0 and the imaginary part has y's sign.
GK_CMATH_FN gk_cvalue gk_csqrt(gk_cvalue z) {
    const double x = z.re, y = z.im;
    if (isinf(y))
        return gk_cvalue_new(gk_infinity(), y);
    if (isnan(x))
        return gk_cvalue_new(x, gk_quiet_nan());
    if (isinf(x)) {
        if (x > 0)
            return gk_cvalue_new(x, isnan(y) ? y : copysign(0.0, y));
        return gk_cvalue_new(isnan(y) ? y : 0.0, copysign(gk_infinity(), y));
    }
    if (isnan(y))
        return gk_cvalue_new(gk_quiet_nan(), y);
    if (x == 0 && y == 0)
        return gk_cvalue_new(0.0, y);
    // t = sqrt((|x| + |z|) / 2) is the part of larger magnitude, the other is |y| / 2t: no
    // cancellation in either. |z| is formed from x and y scaled into a range where their
    // squares neither overflow nor underflow (by an even power of two, so t scales exactly).
    double a = fabs(x), b = fabs(y), back = 1.0;
    const double larger = a > b ? a : b;
    if (larger > 0x1p500) {
        a *= 0x1p-600;
        b *= 0x1p-600;
        back = 0x1p300;
    } else if (larger < 0x1p-500) {
        a *= 0x1p600;
        b *= 0x1p600;
        back = 0x1p-300;
    }
    const double modulus = sqrt(fma(a, a, b * b));
    const double t = sqrt(0.5 * (a + modulus)) * back;
    const double other = fabs(y) / (2 * t);
    return x >= 0 ? gk_cvalue_new(t, copysign(other, y)) : gk_cvalue_new(other, copysign(t, y));
}

// ---- hyperbolic functions (and the trigonometric ones through them)

GK_CMATH_FN gk_cvalue gk_csinh(gk_cvalue z) {
    const double x = z.re, y = z.im;
    if (isfinite(x) && isfinite(y)) {
        if (y == 0)
            return gk_cvalue_new(sinh(x), y);
        double s, c;
        GK_SINCOS(y, s, c);
        if (fabs(x) <= 709)
            return gk_cvalue_new(sinh(x) * c, cosh(x) * s);
        // |sinh x| = cosh x = e^|x| / 2 to double precision, formed without overflow.
        const double re = gk_exp_times(fabs(x), c, -1);
        return gk_cvalue_new(x < 0 ? -re : re, gk_exp_times(fabs(x), s, -1));
    }
    if (x == 0)  // sinh(+-0 + i inf or NaN) = +-0 + i NaN
        return gk_cvalue_new(x, gk_quiet_nan());
    if (y == 0)  // sinh(+-inf + 0i) = +-inf + 0i, sinh(NaN + 0i) = NaN + 0i
        return gk_cvalue_new(x, y);
    if (isinf(x)) {
        if (!isfinite(y))  // the real part's sign is unspecified (C99); + as the C library gives it
            return gk_cvalue_new(gk_infinity(), gk_quiet_nan());
        double s, c;
        GK_SINCOS(y, s, c);
        return gk_cvalue_new(x * c, gk_infinity() * s);  // inf in the direction of y, with x's sign on the real side
    }
    return gk_cvalue_new(gk_quiet_nan(), gk_quiet_nan());
}

GK_CMATH_FN gk_cvalue gk_ccosh(gk_cvalue z) {
    const double x = z.re, y = z.im;
    if (isfinite(x) && isfinite(y)) {
        if (y == 0)  // cosh x + i (sinh x) y: the zero's sign is sign(x) sign(y)
            return gk_cvalue_new(cosh(x), copysign(0.0, x) * y);
        double s, c;
        GK_SINCOS(y, s, c);
        if (fabs(x) <= 709)
            return gk_cvalue_new(cosh(x) * c, sinh(x) * s);
        const double im = gk_exp_times(fabs(x), s, -1);
        return gk_cvalue_new(gk_exp_times(fabs(x), c, -1), x < 0 ? -im : im);
    }
    if (x == 0)  // cosh(+-0 + i inf or NaN) = NaN + 0i
        return gk_cvalue_new(gk_quiet_nan(), 0.0);
    if (y == 0)  // cosh(+-inf + 0i) = inf + 0i (sign sign(x) sign(y)), cosh(NaN + 0i) = NaN + 0i
        return gk_cvalue_new(fabs(x), isnan(x) ? y : copysign(0.0, x) * y);
    if (isinf(x)) {
        if (!isfinite(y))
            return gk_cvalue_new(gk_infinity(), gk_quiet_nan());
        double s, c;
        GK_SINCOS(y, s, c);
        return gk_cvalue_new(gk_infinity() * c, x * s);
    }
    return gk_cvalue_new(gk_quiet_nan(), gk_quiet_nan());
}

// Kahan's formula: with t = tan y, b = 1 + t^2, s = sinh x, r = cosh x = sqrt(1 + s^2),
// tanh z = (b r s + i t) / (1 + b s^2), accurate near the poles, where the textbook
// (sinh 2x + i sin 2y) / (cosh 2x + cos 2y) cancels.
GK_CMATH_FN gk_cvalue gk_ctanh(gk_cvalue z) {
    const double x = z.re, y = z.im;
    if (isnan(x))  // tanh(NaN + 0i) = NaN + 0i
        return gk_cvalue_new(x, y == 0 ? y : gk_quiet_nan());
    if (isinf(x)) {  // tanh(+-inf + iy) = +-1 + 0i sin(2y)
        const double im = isfinite(y) ? copysign(0.0, sin(y) * cos(y)) : copysign(0.0, y);
        return gk_cvalue_new(copysign(1.0, x), im);
    }
    if (!isfinite(y))
        return gk_cvalue_new(x == 0 ? x : gk_quiet_nan(), gk_quiet_nan());
    if (y == 0)  // the real function, accurate to its last bit
        return gk_cvalue_new(tanh(x), y);
    if (fabs(x) > 22) {
        // tanh x rounds to +-1 and s^2 could overflow; the imaginary part tends to
        // sin(2y) 2 e^(-2|x|) = 4 sin y cos y e^(-2|x|).
        double s, c;
        GK_SINCOS(y, s, c);
        return gk_cvalue_new(copysign(1.0, x), 4 * s * c * exp(-2 * fabs(x)));
    }
    const double t = tan(y), b = 1 + t * t, s = sinh(x), r = sqrt(1 + s * s), d = 1 + b * s * s;
    return gk_cvalue_new(b * r * s / d, t / d);
}

// sin z = -i sinh(iz), cos z = cosh(iz), tan z = -i tanh(iz).
GK_CMATH_FN gk_cvalue gk_csin(gk_cvalue z) {
    const gk_cvalue h = gk_csinh(gk_cvalue_new(-z.im, z.re));
    // Beside a NaN real part the infinite imaginary part's sign is unspecified (C99): + as the
    // C library gives it.
    return gk_cvalue_new(h.im, isnan(h.im) && isinf(h.re) ? gk_infinity() : -h.re);
}

GK_CMATH_FN gk_cvalue gk_ccos(gk_cvalue z) { return gk_ccosh(gk_cvalue_new(-z.im, z.re)); }

GK_CMATH_FN gk_cvalue gk_ctan(gk_cvalue z) {
    const gk_cvalue h = gk_ctanh(gk_cvalue_new(-z.im, z.re));
    return gk_cvalue_new(h.im, -h.re);
}

// ---- inverse functions

// -v with the sign bit flipped for NaNs too: PTX leaves the sign of a negated NaN unspecified
// (and sm_90 keeps it), but C99's asin, acos and atan of (+-inf + i NaN) take the sign of
// their results from that NaN, as the C library does. copysign only moves the bit.
GK_CMATH_SMALL double gk_negate(double v) { return copysign(v, signbit(v) ? 1.0 : -1.0); }

// asin and acos of x + iy for finite x, y >= 0 (the other quadrants follow by symmetry):
// the real part of asin, the real part of acos, and the imaginary part's magnitude.
typedef struct {
    double asin_re, acos_re, im;
} gk_asin_parts;

GK_CMATH_SMALL gk_asin_parts gk_asin_parts_new(double asin_re, double acos_re, double im) {
    gk_asin_parts p;
    p.asin_re = asin_re;
    p.acos_re = acos_re;
    p.im = im;
    return p;
}

// Hull, Fairgrieve and Tang, "Implementing the complex arcsine and arccosine functions using
// exception handling" (ACM TOMS 23, 1997): with R = |z + 1|, S = |z - 1|, A = (R + S) / 2 and
// B = x / A, asin z = asin B + i log(A + sqrt(A^2 - 1)); where B is near 1 or A near 1 those
// lose digits, and are rewritten into forms that do not.
GK_CMATH_FN gk_asin_parts gk_asin_parts_of(double x, double y) {
    if (x < gk_series_limit && y < gk_series_limit)  // asin z = z, acos z = pi/2 - z
        return gk_asin_parts_new(x, (gk_half_pi_hi - x) + gk_half_pi_lo, y);
    if (x > gk_asymptotic_limit || y > gk_asymptotic_limit)  // asin z = -i log(2iz)
        return gk_asin_parts_new(atan2(x, y), atan2(y, x), gk_log_abs(x, y) + gk_ln2_hi + gk_ln2_lo);
    if (y < 0x1p-500) {
        // y^2 would underflow where the result still depends on it: first-order forms in y.
        if (x < 1) {
            const double root = sqrt((1 - x) * (1 + x));
            return gk_asin_parts_new(asin(x), acos(x), y / root);
        }
        if (x == 1) {  // asin(1 + iy) = pi/2 - sqrt(y) + i sqrt(y)
            const double r = sqrt(y);
            return gk_asin_parts_new((gk_half_pi_hi - r) + gk_half_pi_lo, r, r);
        }
        const double root = sqrt((x - 1) * (x + 1));  // acosh x = log(x + root)
        return gk_asin_parts_new(gk_half_pi_hi + gk_half_pi_lo, y / root, log1p((x - 1) + root));
    }
    const double r = hypot(x + 1, y), s = hypot(x - 1, y), a = 0.5 * (r + s), b = x / a;
    const double y2 = y * y;
    gk_asin_parts p;
    if (b <= 0.6417) {
        p.asin_re = asin(b);
        p.acos_re = acos(b);
    } else {
        // Near B = 1, asin B = atan2(x, d) and acos B = atan2(d, x) with d = sqrt(A^2 - x^2)
        // written without the cancellation.
        const double d = x <= 1 ? sqrt(0.5 * (a + x) * (y2 / (r + x + 1) + (s + (1 - x))))
                                : y * sqrt(0.5 * ((a + x) / (r + x + 1) + (a + x) / (s + (x - 1))));
        p.asin_re = atan2(x, d);
        p.acos_re = atan2(d, x);
    }
    if (a <= 1.5) {
        // A - 1 without the cancellation, then log(A + sqrt(A^2 - 1)) = log1p(A - 1 + ...).
        const double am1 = x < 1 ? 0.5 * (y2 / (r + (x + 1)) + y2 / (s + (1 - x)))
                                 : 0.5 * (y2 / (r + (x + 1)) + (s + (x - 1)));
        p.im = log1p(am1 + sqrt(am1 * (a + 1)));
    } else {
        p.im = log(a + sqrt(a * a - 1));
    }
    return p;
}

// asinh(x + iy) for x or y infinite or NaN (C99 G.6.2.2).
GK_CMATH_FN gk_cvalue gk_casinh_special(double x, double y) {
    if (isinf(x)) {
        if (isnan(y))
            return gk_cvalue_new(x, y);
        const double im = isinf(y) ? copysign(gk_quarter_pi, y) : copysign(0.0, y);
        return gk_cvalue_new(x, im);
    }
    if (isinf(y))  // x finite or NaN
        return gk_cvalue_new(copysign(gk_infinity(), x), isnan(x) ? x : copysign(gk_half_pi_hi, y));
    if (isnan(x))  // asinh(NaN + 0i) = NaN + 0i
        return gk_cvalue_new(x, y == 0 ? y : gk_quiet_nan());
    return gk_cvalue_new(gk_quiet_nan(), gk_quiet_nan());  // y NaN, x finite
}

// asin z = -i asinh(iz) defines the special values; the finite ones by symmetry from the
// first quadrant.
GK_CMATH_FN gk_cvalue gk_casin(gk_cvalue z) {
    const double x = z.re, y = z.im;
    if (!isfinite(x) || !isfinite(y)) {
        const gk_cvalue h = gk_casinh_special(gk_negate(y), x);
        return gk_cvalue_new(h.im, -h.re);
    }
    const gk_asin_parts p = gk_asin_parts_of(fabs(x), fabs(y));
    return gk_cvalue_new(copysign(p.asin_re, x), copysign(p.im, y));
}

// acos z: Re is pi minus the first quadrant's for x < 0, Im has the sign opposite to y's.
GK_CMATH_FN gk_cvalue gk_cacos(gk_cvalue z) {
    const double x = z.re, y = z.im;
    if (!isfinite(x) || !isfinite(y)) {  // C99 G.6.1.1
        if (isnan(x)) {
            const double im = isinf(y) ? -y : gk_quiet_nan();
            return gk_cvalue_new(x, im);
        }
        if (isnan(y)) {  // acos(0 + i NaN) = pi/2 + i NaN, acos(+-inf + i NaN) = NaN + i inf
            if (x == 0)
                return gk_cvalue_new(gk_half_pi_hi, y);
            return gk_cvalue_new(gk_quiet_nan(), isinf(x) ? copysign(gk_infinity(), gk_negate(y)) : y);
        }
        if (isinf(x)) {
            const double re = isinf(y) ? (x > 0 ? gk_quarter_pi : 3 * gk_quarter_pi) : (x > 0 ? 0.0 : gk_pi_hi);
            return gk_cvalue_new(re, copysign(gk_infinity(), -y));
        }
        return gk_cvalue_new(gk_half_pi_hi, copysign(gk_infinity(), -y));  // y infinite, x finite
    }
    const gk_asin_parts p = gk_asin_parts_of(fabs(x), fabs(y));
    return gk_cvalue_new(signbit(x) ? gk_pi_minus(p.acos_re) : p.acos_re, copysign(p.im, -y));
}

// atanh(x + iy), by Kahan's formulas: Re = log1p(4x / ((1 - x)^2 + y^2)) / 4,
// Im = atan2(2y, (1 - x)(1 + x) - y^2) / 2, with the denominator of the first and the second
// argument of the second formed without cancellation.
GK_CMATH_FN gk_cvalue gk_catanh(gk_cvalue z) {
    const double x = z.re, y = z.im;
    if (!isfinite(x) || !isfinite(y)) {  // C99 G.6.2.3
        if (isinf(y))
            return gk_cvalue_new(copysign(0.0, x), copysign(gk_half_pi_hi, y));
        if (isinf(x))
            return gk_cvalue_new(copysign(0.0, x), isnan(y) ? y : copysign(gk_half_pi_hi, y));
        if (isnan(x))
            return gk_cvalue_new(x, gk_quiet_nan());
        return gk_cvalue_new(x == 0 ? x : gk_quiet_nan(), y);  // y NaN, x finite
    }
    const double ax = fabs(x), ay = fabs(y);
    double re, im;
    if (ax < gk_series_limit && ay < gk_series_limit) {  // atanh z = z
        re = ax;
        im = ay;
    } else if (ax > gk_asymptotic_limit || ay > gk_asymptotic_limit) {
        // atanh z = 1/z + i pi/2 to double precision in Re; Im = atan2(2y, 1 - |z|^2) / 2
        // with everything divided by m^2 (atan2 does not mind the scale).
        const double m = ax > ay ? ax : ay, xs = ax / m, ys = ay / m;
        re = ax >= ay ? 1 / (ax + ay * (ay / ax)) : (ax / ay) / (ay + ax * (ax / ay));
        im = 0.5 * atan2(2 * ys / m, -(xs * xs + ys * ys));
    } else if (ax == 1 && ay < gk_series_limit) {
        // (1 - x)^2 + y^2 = y^2 might underflow: Re = (ln 2 - log y) / 2 (inf at y = 0).
        // At y = 0 exactly, atanh(1 + 0i) = inf + 0i: Im is 0 there though it tends to pi/4.
        re = 0.5 * (gk_ln2_hi - log(ay) + gk_ln2_lo);
        im = ay == 0 ? 0.0 : 0.5 * atan2(2 * ay, -gk_norm_minus_one(ax, ay));
    } else {
        // (1 - x)^2 + y^2 as hi + lo: 1 - x is exact as a sum of two doubles, its square and
        // y^2 exact as products.
        const gk_double_double d = gk_two_sum(1.0, -ax);
        const gk_double_double d2 = gk_two_product(d.hi, d.hi), y2 = gk_two_product(ay, ay);
        const gk_double_double sum = gk_two_sum(d2.hi, y2.hi);
        const double lo = sum.lo + (d2.lo + 2 * d.hi * d.lo) + y2.lo;
        const double q = 4 * ax / sum.hi;
        re = 0.25 * log1p(q - q * (lo / sum.hi));
        im = 0.5 * atan2(2 * ay, -gk_norm_minus_one(ax, ay));
    }
    return gk_cvalue_new(copysign(re, x), copysign(im, y));
}

// atan z = -i atanh(iz).
GK_CMATH_FN gk_cvalue gk_catan(gk_cvalue z) {
    const gk_cvalue h = gk_catanh(gk_cvalue_new(gk_negate(z.im), z.re));
    return gk_cvalue_new(h.im, -h.re);
}

#undef GK_CMATH_FN
#undef GK_CMATH_SMALL
#undef GK_CMATH_CONSTANT
#undef GK_SINCOS

#endif  // GPUKIT_COMPLEX_MATH_CUH
