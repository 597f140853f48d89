// Complex numbers in OpenCL C, gpukit's one library of them: the array engine's OpenCL kernels
// carry it (the build embeds this file after complex_math.cuh, src/CMakeLists.txt) and user
// programs include it as <pyopencl-complex.h>, PyOpenCL's header name.
//
// OpenCL C has no complex type and no operator overloading, so complex64 and complex128 are
// cfloat_t and cdouble_t (a union of {x, y} and {real, imag}: numpy's layout) and every
// operation is a function:
//  - PyOpenCL's names, cfloat_<op> and cdouble_<op>: new, fromreal, real, imag, abs,
//    abs_squared, neg, conj, add, addr (complex + real), radd (real + complex), sub, mul, mulr,
//    rmul, divide, divider, rdivide, fma (a * b + c), pow, powr, rpow, exp, log, sqrt, sin,
//    cos, tan, sinh, cosh, tanh; cfloat_cast(z) converts either type to cfloat_t.
//  - The engine's, gk_cfloat_<op> and gk_cdouble_<op>, with numpy's numerics: Smith's division
//    (a zero divisor gives numpy's infinities and NaNs), numpy's ordering, minimum and maximum,
//    hypot for the magnitude, numpy's power (complex64's in double where there is double).
// The elementary functions (exp ... tanh, and the engine's asin, acos, atan, log10) are
// complex_math.cuh's, in double and rounded once: they exist where the device has double
// precision (cl_khr_fp64), as does cdouble_t. Without it cfloat_t has its arithmetic and pow.
#ifndef GPUKIT_OPENCL_COMPLEX_H
#define GPUKIT_OPENCL_COMPLEX_H

#if defined(cl_khr_fp64) || defined(__opencl_c_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define GK_COMPLEX_HAS_DOUBLE 1
#endif

// The type C of parts T, with the engine's helpers P_* and PyOpenCL's PY_*.
#define GK_DECLARE_COMPLEX(T, C, P, PY)                                                                     \
    typedef union {                                                                                        \
        struct { T x, y; };                                                                                \
        struct { T real, imag; };                                                                          \
    } C;                                                                                                   \
    inline C P##_new(T re, T im) { C z; z.real = re; z.imag = im; return z; }                              \
    inline C P##_add(C a, C b) { return P##_new(a.real + b.real, a.imag + b.imag); }                       \
    inline C P##_sub(C a, C b) { return P##_new(a.real - b.real, a.imag - b.imag); }                       \
    inline C P##_mul(C a, C b) {                                                                           \
        return P##_new(a.real * b.real - a.imag * b.imag, a.real * b.imag + a.imag * b.real);              \
    }                                                                                                      \
    /* Smith's division; a zero divisor divides each part by a zero, as numpy does. */                     \
    inline C P##_div(C a, C b) {                                                                           \
        if (fabs(b.real) >= fabs(b.imag)) {                                                                \
            if (b.real == (T)0 && b.imag == (T)0)                                                          \
                return P##_new(a.real / fabs(b.real), a.imag / fabs(b.imag));                              \
            const T r = b.imag / b.real, d = b.real + b.imag * r;                                          \
            return P##_new((a.real + a.imag * r) / d, (a.imag - a.real * r) / d);                          \
        }                                                                                                  \
        const T r = b.real / b.imag, d = b.real * r + b.imag;                                              \
        return P##_new((a.real * r + a.imag) / d, (a.imag * r - a.real) / d);                              \
    }                                                                                                      \
    inline C P##_neg(C a) { return P##_new(-a.real, -a.imag); }                                            \
    inline C P##_conj(C a) { return P##_new(a.real, -a.imag); }                                           \
    inline T P##_abs(C a) { return hypot(a.real, a.imag); }                                                \
    inline int P##_nonzero(C a) { return a.real != (T)0 || a.imag != (T)0; }                              \
    inline int P##_eq(C a, C b) { return a.real == b.real && a.imag == b.imag; }                           \
    inline int P##_ne(C a, C b) { return !P##_eq(a, b); }                                                  \
    /* numpy's order: by real part, then imaginary part; NaN parts are unordered. */                       \
    inline int P##_unordered(C a, C b) { return a.imag != a.imag || b.imag != b.imag; }                    \
    inline int P##_lt(C a, C b) {                                                                          \
        return (a.real < b.real && !P##_unordered(a, b)) || (a.real == b.real && a.imag < b.imag);         \
    }                                                                                                      \
    inline int P##_le(C a, C b) {                                                                          \
        return (a.real < b.real && !P##_unordered(a, b)) || (a.real == b.real && a.imag <= b.imag);        \
    }                                                                                                      \
    inline int P##_gt(C a, C b) {                                                                          \
        return (a.real > b.real && !P##_unordered(a, b)) || (a.real == b.real && a.imag > b.imag);         \
    }                                                                                                      \
    inline int P##_ge(C a, C b) {                                                                          \
        return (a.real > b.real && !P##_unordered(a, b)) || (a.real == b.real && a.imag >= b.imag);        \
    }                                                                                                      \
    /* numpy's maximum and minimum: a NaN in the first argument wins. */                                   \
    inline C P##_max(C a, C b) { return (a.real != a.real || a.imag != a.imag || P##_ge(a, b)) ? a : b; }  \
    inline C P##_min(C a, C b) { return (a.real != a.real || a.imag != a.imag || P##_le(a, b)) ? a : b; }  \
    /* numpy's power in T: 1 for a zero exponent, 0 or NaN for a zero base, repeated squaring */           \
    /* for small integer exponents, exp(b log a) otherwise. */                                             \
    inline C P##_pow_here(C a, C b) {                                                                      \
        if (b.real == (T)0 && b.imag == (T)0)                                                              \
            return P##_new(1, 0);                                                                          \
        if (a.real == (T)0 && a.imag == (T)0) {                                                            \
            if (b.real > (T)0)                                                                             \
                return P##_new(0, 0);                                                                      \
            const T nan = (T)0 / (T)0;                                                                     \
            return P##_new(nan, nan);                                                                      \
        }                                                                                                  \
        const long n = b.real > (T)-100 && b.real < (T)100 ? (long)b.real : 0;                             \
        if (b.imag == (T)0 && n != 0 && (T)n == b.real) {                                                  \
            if (n == 1)                                                                                    \
                return a;                                                                                  \
            if (n == 2)                                                                                    \
                return P##_mul(a, a);                                                                      \
            if (n == 3)                                                                                    \
                return P##_mul(a, P##_mul(a, a));                                                          \
            const long m = n < 0 ? -n : n;                                                                 \
            C result = P##_new(1, 0), power = a;                                                           \
            for (long mask = 1;; mask <<= 1) {                                                             \
                if (m & mask)                                                                              \
                    result = P##_mul(result, power);                                                       \
                if (m < (mask << 1))                                                                       \
                    break;                                                                                 \
                power = P##_mul(power, power);                                                             \
            }                                                                                              \
            return n < 0 ? P##_div(P##_new(1, 0), result) : result;                                        \
        }                                                                                                  \
        const T log_abs = log(hypot(a.real, a.imag)), arg = atan2(a.imag, a.real);                         \
        const T re = b.real * log_abs - b.imag * arg, im = b.real * arg + b.imag * log_abs;                \
        const T magnitude = exp(re);                                                                       \
        return P##_new(magnitude * cos(im), magnitude * sin(im));                                          \
    }                                                                                                      \
    inline C PY##_new(T re, T im) { return P##_new(re, im); }                                              \
    inline C PY##_fromreal(T re) { return P##_new(re, 0); }                                                \
    inline T PY##_real(C a) { return a.real; }                                                             \
    inline T PY##_imag(C a) { return a.imag; }                                                             \
    inline T PY##_abs(C a) { return P##_abs(a); }                                                          \
    inline T PY##_abs_squared(C a) { return a.real * a.real + a.imag * a.imag; }                           \
    inline C PY##_neg(C a) { return P##_neg(a); }                                                          \
    inline C PY##_conj(C a) { return P##_conj(a); }                                                        \
    inline C PY##_add(C a, C b) { return P##_add(a, b); }                                                  \
    inline C PY##_addr(C a, T b) { return P##_new(a.real + b, a.imag); }                                   \
    inline C PY##_radd(T a, C b) { return P##_new(a + b.real, b.imag); }                                   \
    inline C PY##_sub(C a, C b) { return P##_sub(a, b); }                                                  \
    inline C PY##_mul(C a, C b) { return P##_mul(a, b); }                                                  \
    inline C PY##_mulr(C a, T b) { return P##_new(a.real * b, a.imag * b); }                               \
    inline C PY##_rmul(T a, C b) { return P##_new(a * b.real, a * b.imag); }                               \
    inline C PY##_divide(C a, C b) { return P##_div(a, b); }                                               \
    inline C PY##_divider(C a, T b) { return P##_new(a.real / b, a.imag / b); }                            \
    inline C PY##_rdivide(T a, C b) { return P##_div(P##_new(a, 0), b); }                                  \
    /* a * b + c with the products' roundings fused into the sums. */                                      \
    inline C PY##_fma(C a, C b, C c) {                                                                     \
        return P##_new(fma(-a.imag, b.imag, fma(a.real, b.real, c.real)),                                  \
                       fma(a.imag, b.real, fma(a.real, b.imag, c.imag)));                                  \
    }

// The elementary functions of C through complex_math.cuh's gk_cvalue, rounded once to T.
#define GK_DECLARE_COMPLEX_MATH(T, C, P, PY)                                                               \
    inline gk_cvalue P##_to_cvalue(C a) { return gk_cvalue_new(a.real, a.imag); }                          \
    inline C P##_of_cvalue(gk_cvalue a) { return P##_new((T)a.re, (T)a.im); }                              \
    inline C PY##_exp(C a) { return P##_of_cvalue(gk_cexp(P##_to_cvalue(a))); }                           \
    inline C PY##_log(C a) { return P##_of_cvalue(gk_clog(P##_to_cvalue(a))); }                           \
    inline C PY##_sqrt(C a) { return P##_of_cvalue(gk_csqrt(P##_to_cvalue(a))); }                          \
    inline C PY##_sin(C a) { return P##_of_cvalue(gk_csin(P##_to_cvalue(a))); }                            \
    inline C PY##_cos(C a) { return P##_of_cvalue(gk_ccos(P##_to_cvalue(a))); }                            \
    inline C PY##_tan(C a) { return P##_of_cvalue(gk_ctan(P##_to_cvalue(a))); }                            \
    inline C PY##_sinh(C a) { return P##_of_cvalue(gk_csinh(P##_to_cvalue(a))); }                          \
    inline C PY##_cosh(C a) { return P##_of_cvalue(gk_ccosh(P##_to_cvalue(a))); }                          \
    inline C PY##_tanh(C a) { return P##_of_cvalue(gk_ctanh(P##_to_cvalue(a))); }

// PyOpenCL's powers, through the engine's P_pow.
#define GK_DECLARE_COMPLEX_POWERS(T, C, P, PY)                                                             \
    inline C PY##_pow(C a, C b) { return P##_pow(a, b); }                                                  \
    inline C PY##_powr(C a, T b) { return P##_pow(a, P##_new(b, 0)); }                                    \
    inline C PY##_rpow(T a, C b) { return P##_pow(P##_new(a, 0), b); }

GK_DECLARE_COMPLEX(float, cfloat_t, gk_cfloat, cfloat)

#ifdef GK_COMPLEX_HAS_DOUBLE
#ifndef GPUKIT_COMPLEX_MATH_CUH
#include "complex_math.cuh"
#endif
GK_DECLARE_COMPLEX(double, cdouble_t, gk_cdouble, cdouble)
inline cdouble_t gk_cdouble_from_cfloat_t(cfloat_t a) { return gk_cdouble_new(a.real, a.imag); }
inline cfloat_t gk_cfloat_from_cdouble_t(cdouble_t a) { return gk_cfloat_new((float)a.real, (float)a.imag); }
// complex64's power through complex128, as the CUDA kernels compute it: exp(b log a) in float
// carries |b| times the rounding of arg a.
inline cdouble_t gk_cdouble_pow(cdouble_t a, cdouble_t b) { return gk_cdouble_pow_here(a, b); }
inline cfloat_t gk_cfloat_pow(cfloat_t a, cfloat_t b) {
    return gk_cfloat_from_cdouble_t(gk_cdouble_pow(gk_cdouble_from_cfloat_t(a), gk_cdouble_from_cfloat_t(b)));
}
GK_DECLARE_COMPLEX_MATH(float, cfloat_t, gk_cfloat, cfloat)
GK_DECLARE_COMPLEX_MATH(double, cdouble_t, gk_cdouble, cdouble)
GK_DECLARE_COMPLEX_POWERS(double, cdouble_t, gk_cdouble, cdouble)
#define cdouble_cast(a) cdouble_new((a).real, (a).imag)
#else
inline cfloat_t gk_cfloat_pow(cfloat_t a, cfloat_t b) { return gk_cfloat_pow_here(a, b); }
#endif
GK_DECLARE_COMPLEX_POWERS(float, cfloat_t, gk_cfloat, cfloat)

#define cfloat_cast(a) cfloat_new((a).real, (a).imag)

#undef GK_DECLARE_COMPLEX
#undef GK_DECLARE_COMPLEX_MATH
#undef GK_DECLARE_COMPLEX_POWERS

#endif  // GPUKIT_OPENCL_COMPLEX_H
