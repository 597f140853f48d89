// pycuda::complex<T>: complex numbers in CUDA kernels, under the header name and the interface
// that PyCUDA programs use (#include <pycuda-complex.hpp>; SourceModule and compile() put this
// directory on the include path). Written for gpukit: PyCUDA's names, not its code.
//
// For T = float and double. Every function is __host__ __device__ and works with NVRTC, which
// has no standard headers: only CUDA's built-in maths functions are called. Numerics follow
// numpy (the tests compare with it): abs through hypot, division by Smith's algorithm (no
// overflow in |b|^2), pow with an integer-valued exponent below 100 by repeated squaring (as
// numpy). exp, log, log10, sqrt and the trigonometric and hyperbolic functions are gpukit's
// complex maths (gpukit/complex_math.cuh, the functions of the array engine's cumath too):
// computed in double, complex<float> rounded once, special values, signed zeros and branch
// cuts as C99 and numpy have them.
//
// Differences from PyCUDA: complex numbers and scalars are passed by value; a scalar operand
// of another arithmetic type converts to T (z * 2 and pow(z, 3) compile, where PyCUDA needs
// 2.0f); log10 works (PyCUDA declares it but never defines it), and so does pow(z, n) with an
// int n (commented out in PyCUDA); assignments to a volatile complex return nothing; PyCUDA's
// internals (_Self, the static _div) are not offered.
#pragma once

// Templates cannot have C linkage: this keeps the header usable inside the extern "C" { }
// that gpukit wraps kernel sources in (unless no_extern_c=True).
extern "C++" {

#include <gpukit/complex_math.cuh>

#define GPUKIT_COMPLEX_FN __host__ __device__ inline

namespace pycuda {

template <class T> struct complex;

namespace detail {

// A parameter of type identity<T>::type takes part in no deduction: `z * 2` deduces T from z
// alone and converts 2 to T.
template <class T> struct identity { typedef T type; };

template <bool Condition> struct enable_if {};
template <> struct enable_if<true> { typedef int type; };

template <class A, class B> struct is_same { static const bool value = false; };
template <class A> struct is_same<A, A> { static const bool value = true; };

// CUDA's maths functions by precision: math<T> calls the ones with the suffix F, f for float
// (they exist on the host too) and none for double.
// Called with :: because pycuda::sqrt and friends hide the global names in this namespace.
template <class T> struct math;

#define GPUKIT_COMPLEX_MATH(T, F)                                          \
template <> struct math<T> {                                                        \
    static GPUKIT_COMPLEX_FN T hypot(T x, T y) { return ::hypot##F(x, y); }         \
    static GPUKIT_COMPLEX_FN T atan2(T y, T x) { return ::atan2##F(y, x); }         \
    static GPUKIT_COMPLEX_FN void sincos(T x, T* s, T* c) { ::sincos##F(x, s, c); } \
    static GPUKIT_COMPLEX_FN T fabs(T x) { return ::fabs##F(x); }                   \
};
GPUKIT_COMPLEX_MATH(float, f)
GPUKIT_COMPLEX_MATH(double, )
#undef GPUKIT_COMPLEX_MATH

}  // namespace detail

// numpy's layout (real part, then imaginary part) and CUDA's float2/double2 alignment, so
// complex64/complex128 arrays can be read as pycuda::complex<float>/<double>. The members keep
// PyCUDA's names: some kernels (and PyCUDA's helpers) use them directly.
template <class T> struct alignas(2 * sizeof(T)) complex {
    typedef T value_type;

    T _M_re;
    T _M_im;

    // Zero by default, as in PyCUDA. constexpr: a __shared__ or __constant__ complex needs no
    // dynamic initialisation.
    GPUKIT_COMPLEX_FN constexpr complex(T re = T(), T im = T()) : _M_re(re), _M_im(im) {}

    // Between precisions: widening is implicit, narrowing explicit (as for std::complex).
    template <class U, typename detail::enable_if<(sizeof(U) <= sizeof(T))>::type = 0>
    GPUKIT_COMPLEX_FN constexpr complex(complex<U> z) : _M_re(T(z._M_re)), _M_im(T(z._M_im)) {}
    template <class U, typename detail::enable_if<(sizeof(U) > sizeof(T))>::type = 0>
    GPUKIT_COMPLEX_FN explicit constexpr complex(complex<U> z) : _M_re(T(z._M_re)), _M_im(T(z._M_im)) {}

    // Reads a volatile complex (shared memory in warp-synchronous code), so every function
    // below, taking its arguments by value, accepts volatile operands. A template, hence not a
    // copy constructor: copying stays trivial.
    template <class U, typename detail::enable_if<detail::is_same<U, T>::value>::type = 0>
    GPUKIT_COMPLEX_FN complex(const volatile complex<U>& z) : _M_re(z._M_re), _M_im(z._M_im) {}

    GPUKIT_COMPLEX_FN constexpr T real() const { return _M_re; }
    GPUKIT_COMPLEX_FN constexpr T imag() const { return _M_im; }

    // Assigning another precision converts, as in PyCUDA.
    template <class U> GPUKIT_COMPLEX_FN complex& operator=(complex<U> z) {
        _M_re = T(z._M_re);
        _M_im = T(z._M_im);
        return *this;
    }
    // (Without it, `z = x` would be ambiguous with the volatile version below.)
    GPUKIT_COMPLEX_FN complex& operator=(T x) {
        _M_re = x;
        _M_im = T(0);
        return *this;
    }
    // Writes to a volatile complex. They return nothing: returning the volatile reference makes
    // GCC warn, at every `v[i] = z;` in host code, that the discarded reference is not read.
    template <class U> GPUKIT_COMPLEX_FN void operator=(complex<U> z) volatile {
        _M_re = T(z._M_re);
        _M_im = T(z._M_im);
    }
    GPUKIT_COMPLEX_FN void operator=(T x) volatile {
        _M_re = x;
        _M_im = T(0);
    }

    GPUKIT_COMPLEX_FN complex& operator+=(T x) {
        _M_re += x;
        return *this;
    }
    GPUKIT_COMPLEX_FN complex& operator-=(T x) {
        _M_re -= x;
        return *this;
    }
    GPUKIT_COMPLEX_FN complex& operator*=(T x) {
        _M_re *= x;
        _M_im *= x;
        return *this;
    }
    GPUKIT_COMPLEX_FN complex& operator/=(T x) {
        _M_re /= x;
        _M_im /= x;
        return *this;
    }
    template <class U> GPUKIT_COMPLEX_FN complex& operator+=(complex<U> z) {
        _M_re += T(z._M_re);
        _M_im += T(z._M_im);
        return *this;
    }
    template <class U> GPUKIT_COMPLEX_FN complex& operator-=(complex<U> z) {
        _M_re -= T(z._M_re);
        _M_im -= T(z._M_im);
        return *this;
    }
    template <class U> GPUKIT_COMPLEX_FN complex& operator*=(complex<U> z) { return *this = *this * complex(z); }
    template <class U> GPUKIT_COMPLEX_FN complex& operator/=(complex<U> z) { return *this = *this / complex(z); }
};

// --- Arithmetic: complex with complex, and with a real scalar on either side ----------------

template <class T> GPUKIT_COMPLEX_FN complex<T> operator+(complex<T> z) { return z; }
template <class T> GPUKIT_COMPLEX_FN complex<T> operator-(complex<T> z) { return complex<T>(-z._M_re, -z._M_im); }

template <class T> GPUKIT_COMPLEX_FN complex<T> operator+(complex<T> a, complex<T> b) {
    return complex<T>(a._M_re + b._M_re, a._M_im + b._M_im);
}
template <class T> GPUKIT_COMPLEX_FN complex<T> operator+(complex<T> a, typename detail::identity<T>::type x) {
    return complex<T>(a._M_re + x, a._M_im);
}
template <class T> GPUKIT_COMPLEX_FN complex<T> operator+(typename detail::identity<T>::type x, complex<T> b) {
    return complex<T>(x + b._M_re, b._M_im);
}

template <class T> GPUKIT_COMPLEX_FN complex<T> operator-(complex<T> a, complex<T> b) {
    return complex<T>(a._M_re - b._M_re, a._M_im - b._M_im);
}
template <class T> GPUKIT_COMPLEX_FN complex<T> operator-(complex<T> a, typename detail::identity<T>::type x) {
    return complex<T>(a._M_re - x, a._M_im);
}
template <class T> GPUKIT_COMPLEX_FN complex<T> operator-(typename detail::identity<T>::type x, complex<T> b) {
    return complex<T>(x - b._M_re, -b._M_im);
}

template <class T> GPUKIT_COMPLEX_FN complex<T> operator*(complex<T> a, complex<T> b) {
    return complex<T>(a._M_re * b._M_re - a._M_im * b._M_im, a._M_re * b._M_im + a._M_im * b._M_re);
}
template <class T> GPUKIT_COMPLEX_FN complex<T> operator*(complex<T> a, typename detail::identity<T>::type x) {
    return complex<T>(a._M_re * x, a._M_im * x);
}
template <class T> GPUKIT_COMPLEX_FN complex<T> operator*(typename detail::identity<T>::type x, complex<T> b) {
    return complex<T>(x * b._M_re, x * b._M_im);
}

// Smith's algorithm: dividing through by the larger part of b never forms |b|^2, which would
// overflow (or underflow) long before the quotient does. A zero divisor gives inf or nan
// parts, as in numpy.
template <class T> GPUKIT_COMPLEX_FN complex<T> operator/(complex<T> a, complex<T> b) {
    typedef detail::math<T> M;
    if (M::fabs(b._M_re) >= M::fabs(b._M_im)) {
        if (b._M_re == T(0) && b._M_im == T(0))
            return complex<T>(a._M_re / M::fabs(b._M_re), a._M_im / M::fabs(b._M_im));
        const T r = b._M_im / b._M_re, d = b._M_re + b._M_im * r;
        return complex<T>((a._M_re + a._M_im * r) / d, (a._M_im - a._M_re * r) / d);
    }
    const T r = b._M_re / b._M_im, d = b._M_re * r + b._M_im;
    return complex<T>((a._M_re * r + a._M_im) / d, (a._M_im * r - a._M_re) / d);
}
template <class T> GPUKIT_COMPLEX_FN complex<T> operator/(complex<T> a, typename detail::identity<T>::type x) {
    return complex<T>(a._M_re / x, a._M_im / x);
}
template <class T> GPUKIT_COMPLEX_FN complex<T> operator/(typename detail::identity<T>::type x, complex<T> b) {
    return complex<T>(x) / b;
}

template <class T> GPUKIT_COMPLEX_FN bool operator==(complex<T> a, complex<T> b) {
    return a._M_re == b._M_re && a._M_im == b._M_im;
}
template <class T> GPUKIT_COMPLEX_FN bool operator==(complex<T> a, typename detail::identity<T>::type x) {
    return a._M_re == x && a._M_im == T(0);
}
template <class T> GPUKIT_COMPLEX_FN bool operator==(typename detail::identity<T>::type x, complex<T> b) {
    return b == x;
}
template <class T> GPUKIT_COMPLEX_FN bool operator!=(complex<T> a, complex<T> b) { return !(a == b); }
template <class T> GPUKIT_COMPLEX_FN bool operator!=(complex<T> a, typename detail::identity<T>::type x) {
    return !(a == x);
}
template <class T> GPUKIT_COMPLEX_FN bool operator!=(typename detail::identity<T>::type x, complex<T> b) {
    return !(b == x);
}

// --- Parts, magnitude, phase ------------------------------------------------------------------

template <class T> GPUKIT_COMPLEX_FN T real(complex<T> z) { return z._M_re; }
template <class T> GPUKIT_COMPLEX_FN T imag(complex<T> z) { return z._M_im; }
template <class T> GPUKIT_COMPLEX_FN complex<T> conj(complex<T> z) { return complex<T>(z._M_re, -z._M_im); }
template <class T> GPUKIT_COMPLEX_FN T abs(complex<T> z) { return detail::math<T>::hypot(z._M_re, z._M_im); }
template <class T> GPUKIT_COMPLEX_FN T arg(complex<T> z) { return detail::math<T>::atan2(z._M_im, z._M_re); }
// |z|^2 (std::complex's name).
template <class T> GPUKIT_COMPLEX_FN T norm(complex<T> z) { return z._M_re * z._M_re + z._M_im * z._M_im; }

// rho * e^(i theta).
template <class T>
GPUKIT_COMPLEX_FN complex<T> polar(T rho, typename detail::identity<T>::type theta = T(0)) {
    T s, c;
    detail::math<T>::sincos(theta, &s, &c);
    return complex<T>(rho * c, rho * s);
}

// --- Exponential, logarithms, powers, roots ---------------------------------------------------

namespace detail {

// z for gpukit's complex maths, and its result back in T (rounded once for float).
template <class T> GPUKIT_COMPLEX_FN gk_cvalue cvalue(complex<T> z) { return gk_cvalue(z._M_re, z._M_im); }
template <class T> GPUKIT_COMPLEX_FN complex<T> of_cvalue(gk_cvalue z) { return complex<T>(T(z.re), T(z.im)); }

}  // namespace detail

template <class T> GPUKIT_COMPLEX_FN complex<T> exp(complex<T> z) { return detail::of_cvalue<T>(gk_cexp(detail::cvalue(z))); }

// Principal branch: the imaginary part is atan2(y, x), in [-pi, pi].
template <class T> GPUKIT_COMPLEX_FN complex<T> log(complex<T> z) { return detail::of_cvalue<T>(gk_clog(detail::cvalue(z))); }

template <class T> GPUKIT_COMPLEX_FN complex<T> log10(complex<T> z) {
    return detail::of_cvalue<T>(gk_clog10(detail::cvalue(z)));
}

// Principal branch: the real part is >= 0 and the imaginary part has the sign of z's (so
// sqrt(-4 - 0i) = -2i).
template <class T> GPUKIT_COMPLEX_FN complex<T> sqrt(complex<T> z) {
    return detail::of_cvalue<T>(gk_csqrt(detail::cvalue(z)));
}

// numpy's rules: z^0 = 1; 0^w = 0 for Re w > 0 (for other w it is inf or nan); an exponent
// that is an integer n with |n| < 100 multiplies by repeated squaring (exact for small powers,
// z^-n = 1 / z^n); any other is exp(w log z) on the principal branch.
template <class T> GPUKIT_COMPLEX_FN complex<T> pow(complex<T> z, complex<T> w) {
    if (w._M_re == T(0) && w._M_im == T(0))
        return complex<T>(T(1));
    if (z._M_re == T(0) && z._M_im == T(0) && w._M_re > T(0))
        return complex<T>();
    if (w._M_im == T(0) && detail::math<T>::fabs(w._M_re) < T(100) && T(int(w._M_re)) == w._M_re) {
        const int n = int(w._M_re);
        unsigned int bits = n < 0 ? 0u - unsigned(n) : unsigned(n);
        complex<T> result(T(1)), square = z;
        for (;;) {
            if (bits & 1u)
                result *= square;
            bits >>= 1;
            if (bits == 0)
                break;
            square *= square;
        }
        return n < 0 ? T(1) / result : result;
    }
    return exp(w * log(z));
}
template <class T> GPUKIT_COMPLEX_FN complex<T> pow(complex<T> z, typename detail::identity<T>::type x) {
    return pow(z, complex<T>(x));
}
template <class T> GPUKIT_COMPLEX_FN complex<T> pow(typename detail::identity<T>::type x, complex<T> w) {
    return pow(complex<T>(x), w);
}

// --- Trigonometric and hyperbolic functions ---------------------------------------------------

template <class T> GPUKIT_COMPLEX_FN complex<T> sin(complex<T> z) { return detail::of_cvalue<T>(gk_csin(detail::cvalue(z))); }
template <class T> GPUKIT_COMPLEX_FN complex<T> cos(complex<T> z) { return detail::of_cvalue<T>(gk_ccos(detail::cvalue(z))); }
template <class T> GPUKIT_COMPLEX_FN complex<T> tan(complex<T> z) { return detail::of_cvalue<T>(gk_ctan(detail::cvalue(z))); }
template <class T> GPUKIT_COMPLEX_FN complex<T> sinh(complex<T> z) {
    return detail::of_cvalue<T>(gk_csinh(detail::cvalue(z)));
}
template <class T> GPUKIT_COMPLEX_FN complex<T> cosh(complex<T> z) {
    return detail::of_cvalue<T>(gk_ccosh(detail::cvalue(z)));
}
template <class T> GPUKIT_COMPLEX_FN complex<T> tanh(complex<T> z) {
    return detail::of_cvalue<T>(gk_ctanh(detail::cvalue(z)));
}

}  // namespace pycuda

#undef GPUKIT_COMPLEX_FN

}  // extern "C++"
