// pycuda::complex<T>: complex numbers in CUDA kernels, under the header name and the interface
// that PyCUDA programs use (#include <pycuda-complex.hpp>; SourceModule and compile() put this
// directory on the include path). Written for gpukit: PyCUDA's names, not its code.
//
// For T = float and double. Every function is __host__ __device__ and works with NVRTC, which
// has no standard headers: only CUDA's built-in maths functions are called. Numerics follow
// numpy (the tests compare with it): abs through hypot, division by Smith's algorithm (no
// overflow in |b|^2), sqrt and log on the principal branch with the sign of a zero imaginary
// part choosing the side of the cut, log accurate near |z| = 1, tanh/tan by Kahan's formula,
// pow with an integer-valued exponent below 100 by repeated squaring (as numpy).
// Where e^x or cosh x overflows (|x| above ~88 for float, ~709 for double), exp, sin, cos, sinh
// and cosh overflow too, as their formulas do.
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
// (they exist on the host too) and none for double; LARGEST is T's largest finite value.
// Called with :: because pycuda::sqrt and friends hide the global names in this namespace.
template <class T> struct math;

#define GPUKIT_COMPLEX_MATH(T, F, LARGEST)                                          \
template <> struct math<T> {                                                        \
    static GPUKIT_COMPLEX_FN T sqrt(T x) { return ::sqrt##F(x); }                   \
    static GPUKIT_COMPLEX_FN T hypot(T x, T y) { return ::hypot##F(x, y); }         \
    static GPUKIT_COMPLEX_FN T atan2(T y, T x) { return ::atan2##F(y, x); }         \
    static GPUKIT_COMPLEX_FN T exp(T x) { return ::exp##F(x); }                     \
    static GPUKIT_COMPLEX_FN T log(T x) { return ::log##F(x); }                     \
    static GPUKIT_COMPLEX_FN T log1p(T x) { return ::log1p##F(x); }                 \
    static GPUKIT_COMPLEX_FN void sincos(T x, T* s, T* c) { ::sincos##F(x, s, c); } \
    static GPUKIT_COMPLEX_FN T tan(T x) { return ::tan##F(x); }                     \
    static GPUKIT_COMPLEX_FN T sinh(T x) { return ::sinh##F(x); }                   \
    static GPUKIT_COMPLEX_FN T cosh(T x) { return ::cosh##F(x); }                   \
    static GPUKIT_COMPLEX_FN T fabs(T x) { return ::fabs##F(x); }                   \
    static GPUKIT_COMPLEX_FN T copysign(T x, T y) { return ::copysign##F(x, y); }   \
    static GPUKIT_COMPLEX_FN constexpr T largest() { return LARGEST; }              \
};
GPUKIT_COMPLEX_MATH(float, f, 3.40282347e+38f)
GPUKIT_COMPLEX_MATH(double, , 1.7976931348623157e+308)
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

template <class T> GPUKIT_COMPLEX_FN complex<T> exp(complex<T> z) {
    typedef detail::math<T> M;
    const T e = M::exp(z._M_re);
    T s, c;
    M::sincos(z._M_im, &s, &c);
    return complex<T>(e * c, e * s);
}

// Principal branch: the imaginary part is atan2(y, x), in [-pi, pi].
template <class T> GPUKIT_COMPLEX_FN complex<T> log(complex<T> z) {
    typedef detail::math<T> M;
    const T a = M::fabs(z._M_re), b = M::fabs(z._M_im);
    const T larger = a > b ? a : b, smaller = a > b ? b : a;
    // Near |z| = 1, log|z| = log1p(|z|^2 - 1) / 2 with |z|^2 - 1 = (l - 1)(l + 1) + s^2 keeps
    // the digits that log(hypot) rounds away; elsewhere log|z| is far enough from 0.
    const T log_abs = larger >= T(0.5) && larger <= T(2)
                          ? T(0.5) * M::log1p((larger - T(1)) * (larger + T(1)) + smaller * smaller)
                          : M::log(M::hypot(a, b));
    return complex<T>(log_abs, M::atan2(z._M_im, z._M_re));
}

template <class T> GPUKIT_COMPLEX_FN complex<T> log10(complex<T> z) {
    const T log10_e = T(0.434294481903251827651128918916605082);
    const complex<T> l = log(z);
    return complex<T>(l._M_re * log10_e, l._M_im * log10_e);
}

// Principal branch: the real part is >= 0 and the imaginary part has the sign of z's (so
// sqrt(-4 - 0i) = -2i).
template <class T> GPUKIT_COMPLEX_FN complex<T> sqrt(complex<T> z) {
    typedef detail::math<T> M;
    T x = z._M_re, y = z._M_im;
    if (x == T(0) && y == T(0))
        return complex<T>(T(0), y);
    // Near the top of the range |x| + |z| would overflow: take the root of z / 4, then double it.
    const bool huge = M::fabs(x) > M::largest() / T(4) || M::fabs(y) > M::largest() / T(4);
    if (huge) {
        x *= T(0.25);
        y *= T(0.25);
    }
    // t = sqrt((|x| + |z|) / 2) is the part of larger magnitude and the other is |y| / 2t: no
    // cancellation in either.
    T t = M::sqrt(T(0.5) * (M::fabs(x) + M::hypot(x, y)));
    T other = M::fabs(y) / (T(2) * t);
    if (huge) {
        t *= T(2);
        other *= T(2);
    }
    return x >= T(0) ? complex<T>(t, M::copysign(other, y)) : complex<T>(other, M::copysign(t, y));
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

template <class T> GPUKIT_COMPLEX_FN complex<T> sin(complex<T> z) {
    typedef detail::math<T> M;
    T s, c;
    M::sincos(z._M_re, &s, &c);
    return complex<T>(s * M::cosh(z._M_im), c * M::sinh(z._M_im));
}

template <class T> GPUKIT_COMPLEX_FN complex<T> cos(complex<T> z) {
    typedef detail::math<T> M;
    T s, c;
    M::sincos(z._M_re, &s, &c);
    return complex<T>(c * M::cosh(z._M_im), -s * M::sinh(z._M_im));
}

template <class T> GPUKIT_COMPLEX_FN complex<T> sinh(complex<T> z) {
    typedef detail::math<T> M;
    T s, c;
    M::sincos(z._M_im, &s, &c);
    return complex<T>(M::sinh(z._M_re) * c, M::cosh(z._M_re) * s);
}

template <class T> GPUKIT_COMPLEX_FN complex<T> cosh(complex<T> z) {
    typedef detail::math<T> M;
    T s, c;
    M::sincos(z._M_im, &s, &c);
    return complex<T>(M::cosh(z._M_re) * c, M::sinh(z._M_re) * s);
}

// Kahan's formula: with t = tan y, b = 1 + t^2, s = sinh x, r = cosh x = sqrt(1 + s^2),
// tanh z = (b r s + i t) / (1 + b s^2), accurate also near the poles where the textbook
// (sinh 2x + i sin 2y) / (cosh 2x + cos 2y) cancels.
template <class T> GPUKIT_COMPLEX_FN complex<T> tanh(complex<T> z) {
    typedef detail::math<T> M;
    const T x = z._M_re, y = z._M_im;
    if (M::fabs(x) > T(22)) {
        // tanh x rounds to +-1 here, and s^2 could overflow; the imaginary part tends to
        // 4 sin y cos y e^(-2|x|).
        T s, c;
        M::sincos(y, &s, &c);
        return complex<T>(M::copysign(T(1), x), T(4) * s * c * M::exp(T(-2) * M::fabs(x)));
    }
    const T t = M::tan(y), b = T(1) + t * t, s = M::sinh(x), r = M::sqrt(T(1) + s * s);
    const T d = T(1) + b * s * s;
    return complex<T>(b * r * s / d, t / d);
}

// tan z = -i tanh(iz).
template <class T> GPUKIT_COMPLEX_FN complex<T> tan(complex<T> z) {
    const complex<T> h = tanh(complex<T>(-z._M_im, z._M_re));
    return complex<T>(h._M_im, -h._M_re);
}

}  // namespace pycuda

#undef GPUKIT_COMPLEX_FN

}  // extern "C++"
