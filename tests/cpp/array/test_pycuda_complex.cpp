// pycuda-complex.hpp built for the host: its elementary functions are gpukit's complex maths
// (gpukit/complex_math.cuh) for double, and the same rounded once for float; its arithmetic
// follows numpy. tests/python/test_pycuda_headers.py checks the header in kernels on a GPU.
#include <gtest/gtest.h>

#include <math.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <random>

// What a host compiler lacks of CUDA's function qualifiers.
#define __host__
#define __device__
#define __forceinline__ inline
#include <pycuda-complex.hpp>
#undef __host__
#undef __device__
#undef __forceinline__

namespace {

using cd = pycuda::complex<double>;
using cf = pycuda::complex<float>;

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b)); }
bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b)); }

struct delegated {
    const char* name;
    cd (*of_double)(cd);
    cf (*of_float)(cf);
    gk_cvalue (*gpukit)(gk_cvalue);
};

#define DELEGATED(f)                                                                      \
    {                                                                                     \
#f, [](cd z) { return pycuda::f(z); }, [](cf z) { return pycuda::f(z); }, gk_c##f \
    }

const delegated functions[] = {DELEGATED(exp), DELEGATED(log), DELEGATED(log10), DELEGATED(sqrt), DELEGATED(sin),
                               DELEGATED(cos), DELEGATED(tan), DELEGATED(sinh),  DELEGATED(cosh), DELEGATED(tanh)};

#undef DELEGATED

TEST(pycuda_complex, elementary_functions_are_gpukits_and_float_is_rounded_once) {
    std::mt19937_64 random(30);
    std::uniform_real_distribution<float> part(-4.0f, 4.0f);
    const float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, INFINITY, -INFINITY, NAN, 1e30f, -1e-30f};
    for (const delegated& f : functions) {
        for (int k = 0; k < 300; ++k) {
            const float re = k < 81 ? specials[k % 9] : part(random);
            const float im = k < 81 ? specials[k / 9] : part(random);
            const gk_cvalue expected = f.gpukit(gk_cvalue(re, im));
            const cd d = f.of_double(cd(re, im));
            EXPECT_TRUE(same_bits(d.real(), expected.re) && same_bits(d.imag(), expected.im))
                << f.name << "(" << re << ", " << im << ")";
            const cf s = f.of_float(cf(re, im));
            EXPECT_TRUE(same_bits(s.real(), static_cast<float>(expected.re)) &&
                        same_bits(s.imag(), static_cast<float>(expected.im)))
                << f.name << "(" << re << ", " << im << ") in float";
        }
    }
}

TEST(pycuda_complex, branch_cuts_and_special_values_are_numpys) {
    const double pi = 3.141592653589793;
    // The sign of a zero imaginary part picks the side of the cut along the negative axis.
    EXPECT_EQ(pycuda::sqrt(cd(-4.0, -0.0)).imag(), -2.0);
    EXPECT_EQ(pycuda::sqrt(cd(-4.0, 0.0)).imag(), 2.0);
    EXPECT_EQ(pycuda::log(cd(-1.0, 0.0)).imag(), pi);
    EXPECT_EQ(pycuda::log(cd(-1.0, -0.0)).imag(), -pi);
    EXPECT_EQ(pycuda::log(cd(0.0, 0.0)).real(), -INFINITY);
    EXPECT_EQ(pycuda::exp(cd(-INFINITY, 0.0)).real(), 0.0);
    // log near |z| = 1 keeps its digits: log|1e-10 i + 1| = 5e-21.
    EXPECT_NEAR(pycuda::log(cd(1.0, 1e-10)).real(), 5e-21, 1e-35);
    const std::complex<double> z(0.3, -1.7), w(2.5, 0.25);
    const cd ours = pycuda::pow(cd(z.real(), z.imag()), cd(w.real(), w.imag()));
    const std::complex<double> theirs = std::pow(z, w);
    EXPECT_NEAR(ours.real(), theirs.real(), 1e-14);
    EXPECT_NEAR(ours.imag(), theirs.imag(), 1e-14);
    // An integer exponent multiplies: exact for small powers of small integers.
    const cd cube = pycuda::pow(cd(1.0, 2.0), 3.0);
    EXPECT_EQ(cube.real(), -11.0);
    EXPECT_EQ(cube.imag(), -2.0);
    const cd quotient = cd(1e300, 1e300) / cd(1e300, 1e300);  // Smith's division: no overflow
    EXPECT_EQ(quotient.real(), 1.0);
    EXPECT_EQ(quotient.imag(), 0.0);
}

}  // namespace
