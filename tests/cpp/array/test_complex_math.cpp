// The complex functions of the cumath kernels (gpukit/complex_math.cuh), compiled for the
// host and compared with the C library's, which numpy calls: special values (infinite and NaN
// parts, signed zeros, branch cuts) with the double functions, finite values against long
// double results rounded to double. The host's real functions are more accurate than CUDA's
// (which may be 1 ulp further off), so this checks the formulas; tests/python/test_cumath.py
// checks the kernels on a GPU.
#include <gtest/gtest.h>

#include <math.h>

#include <cfloat>
#include <complex>
#include <cstring>
#include <random>
#include <string>
#include <vector>

// The header builds for a host compiler as plain inline functions.
#include GPUKIT_COMPLEX_MATH_FILE

namespace {

using cdouble = std::complex<double>;
using clong = std::complex<long double>;

struct function_case {
    const char* name;
    gk_cvalue (*ours)(gk_cvalue);
    cdouble (*library)(cdouble);
    clong (*exact)(clong);  // long double: accurate enough to round to the exact double
    double tolerance;       // ulp of the larger part of the result, on the random inputs below
};

// One row: gpukit's gk_c<f> with std::<f> in double and in long double.
#define COMPLEX_FUNCTION(f, tolerance)                                                                 \
    {                                                                                                  \
#f, gk_c##f, [](cdouble z) { return std::f(z); }, [](clong z) { return std::f(z); }, tolerance \
    }

// The tolerances hold the largest errors measured (the C library's own double functions are
// as far off: glibc's ctan and ctanh by up to 5 ulp), rounded up.
const function_case cases[] = {
    COMPLEX_FUNCTION(exp, 2.5),  COMPLEX_FUNCTION(log, 2),    COMPLEX_FUNCTION(log10, 3),  COMPLEX_FUNCTION(sqrt, 2),
    COMPLEX_FUNCTION(sin, 3.5),  COMPLEX_FUNCTION(cos, 3.5),  COMPLEX_FUNCTION(tan, 5.5),  COMPLEX_FUNCTION(asin, 3.5),
    COMPLEX_FUNCTION(acos, 3.5), COMPLEX_FUNCTION(atan, 3.5), COMPLEX_FUNCTION(sinh, 3.5), COMPLEX_FUNCTION(cosh, 3.5),
    COMPLEX_FUNCTION(tanh, 5.5),
};

#undef COMPLEX_FUNCTION

std::string text(double re, double im) {
    char buffer[80];
    std::snprintf(buffer, sizeof buffer, "(%.17g, %.17g)", re, im);
    return buffer;
}

// Two parts agree: the same value with the same sign (zeros and infinities included), any
// NaN matching any NaN; finite nonzero values within 4 ulp; subnormal or zero values within
// a few subnormal steps (the library flushes some to zero).
bool agrees(double ours, double library) {
    if (std::isnan(ours) || std::isnan(library))
        return std::isnan(ours) && std::isnan(library);
    if (std::fabs(ours) < DBL_MIN && std::fabs(library) < DBL_MIN && (ours != 0 || library != 0))
        return std::fabs(ours - library) <= 4 * DBL_TRUE_MIN;
    if (ours == 0 || library == 0 || std::isinf(ours) || std::isinf(library))
        return ours == library && std::signbit(ours) == std::signbit(library);
    return std::signbit(ours) == std::signbit(library) &&
           std::fabs(ours - library) <= 4 * std::fabs(std::nextafter(library, 0.0) - library);
}

TEST(ComplexMath, SpecialValuesAreTheCLibrarys) {
    const double inf = INFINITY, nan = NAN;
    const double values[] = {0.0,   -0.0,   1.0, -1.0, 0.5, -2.5, 1e-300,  5e-324,
                             1e300, -1e300, inf, -inf, nan, 3.0,  M_PI / 2};
    for (const function_case& c : cases)
        for (double re : values)
            for (double im : values) {
                const gk_cvalue ours = c.ours(gk_cvalue(re, im));
                const cdouble library = c.library(cdouble(re, im));
                EXPECT_TRUE(agrees(ours.re, library.real()) && agrees(ours.im, library.imag()))
                    << c.name << text(re, im) << " = " << text(ours.re, ours.im) << ", the C library gives "
                    << text(library.real(), library.imag());
            }
}

// Inputs where naive formulas fail: every scale, |z| near 1, near the branch points and
// poles, tiny and huge parts, and real parts past the overflow of e^x.
std::vector<cdouble> hard_inputs() {
    std::mt19937_64 random(20261);
    std::vector<cdouble> z;
    const auto uniform = [&](double low, double high) {
        return std::uniform_real_distribution<double>(low, high)(random);
    };
    const auto sign = [&] { return uniform(-1, 1) < 0 ? -1.0 : 1.0; };
    constexpr int n = 1500;
    for (double scale : {1e-8, 1e-3, 0.5, 1.0, 3.0, 30.0, 1e5, 1e20, 1e200})
        for (int k = 0; k < n; ++k)
            z.emplace_back(uniform(-scale, scale), uniform(-scale, scale));
    for (int k = 0; k < n; ++k) {
        const double t = uniform(0, 2 * M_PI), r = 1 + uniform(-1e-6, 1e-6);
        z.emplace_back(r * std::cos(t), r * std::sin(t));
        z.emplace_back(sign() * (1 + uniform(-1e-4, 1e-4)), uniform(-1e-4, 1e-4));
        z.emplace_back(uniform(-1e-4, 1e-4), sign() * (1 + uniform(-1e-4, 1e-4)));
        z.emplace_back(uniform(-3, 3), uniform(-1e-10, 1e-10));
        z.emplace_back(uniform(-3, 3), uniform(-1e-200, 1e-200));
        z.emplace_back(uniform(-1e-10, 1e-10), uniform(-3, 3));
        z.emplace_back(uniform(-1e-3, 1e-3), M_PI / 2 + uniform(-1e-3, 1e-3));
        z.emplace_back(uniform(-1450, 1450), uniform(-3, 3));
        z.emplace_back(uniform(-3, 3), uniform(-1450, 1450));
        z.emplace_back(sign(), std::pow(10.0, uniform(-320, -1)));
        z.emplace_back(std::pow(10.0, uniform(-320, -10)), std::pow(10.0, uniform(-320, -10)));
        z.emplace_back(std::pow(10.0, uniform(5, 308)), std::pow(10.0, uniform(-300, 308)));
    }
    return z;
}

// The error of `ours` in ulp of the exact result's larger part.
double error_in_ulp(gk_cvalue ours, clong exact) {
    const double re = static_cast<double>(exact.real()), im = static_cast<double>(exact.imag());
    const double larger = std::fmax(std::fabs(re), std::fabs(im));
    if (!std::isfinite(larger) || larger == 0 || larger >= DBL_MAX)
        return 0;  // the special values are checked above
    const double ulp = std::nextafter(larger, INFINITY) - larger;
    const long double error = std::fmax(std::fabs(ours.re - exact.real()), std::fabs(ours.im - exact.imag()));
    return static_cast<double>(error / ulp);
}

TEST(ComplexMath, FiniteValuesAreWithinAFewUlp) {
    const std::vector<cdouble> inputs = hard_inputs();
    for (const function_case& c : cases) {
        double worst = 0;
        cdouble worst_input;
        for (const cdouble& z : inputs) {
            const clong exact = c.exact(clong(z.real(), z.imag()));
            const gk_cvalue ours = c.ours(gk_cvalue(z.real(), z.imag()));
            // Overflow and underflow must agree with the exact result's.
            const bool exact_finite =
                std::isfinite(static_cast<double>(exact.real())) && std::isfinite(static_cast<double>(exact.imag()));
            EXPECT_EQ(std::isfinite(ours.re) && std::isfinite(ours.im), exact_finite)
                << c.name << text(z.real(), z.imag()) << " = " << text(ours.re, ours.im);
            const double error = error_in_ulp(ours, exact);
            if (error > worst) {
                worst = error;
                worst_input = z;
            }
        }
        EXPECT_LE(worst, c.tolerance) << c.name << text(worst_input.real(), worst_input.imag());
    }
}

}  // namespace
