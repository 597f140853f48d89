// gpukit's generated elementwise kernels, compiled by NVRTC for sm_90 (no GPU needed).
#include "gpukit/array/elementwise.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/rtc/api.hpp"
#include "gpukit/rtc/program.hpp"
#include "array_test.hpp"
#include "nvrtc_test.hpp"

#include <gtest/gtest.h>

namespace {

using namespace gpukit;
using namespace gpukit::array;

TEST(ElementwiseSource, EveryVariantAndTypeCompiles) {
    GPUKIT_REQUIRE_NVRTC();
    for (dtype t : test::every_dtype) {
        // Mixed widths: the output is float64, the inputs of type t.
        elementwise_spec spec{"axpb",
                              {{"x", t, param_kind::input},
                               {"a", dtype::float64, param_kind::scalar},
                               {"y", dtype::float64, param_kind::output}},
                              "y[i] = a * (double)x[i]",
                              ""};
        test::expect_generated_kernel_compiles(elementwise_source(spec, elementwise_variant::vectorized));
        test::expect_generated_kernel_compiles(elementwise_source(spec, elementwise_variant::contiguous));
        test::expect_generated_kernel_compiles(elementwise_source(spec, elementwise_variant::strided, 3));
        test::expect_generated_kernel_compiles(elementwise_source(spec, elementwise_variant::rows, 3));
        test::expect_generated_kernel_compiles(elementwise_source(spec, elementwise_variant::rows, 1));
    }
}

TEST(ElementwiseSource, VectorizedUsesSixteenByteWords) {
    elementwise_spec spec{"scale",
                          {{"x", dtype::float32, param_kind::inout}, {"a", dtype::float32, param_kind::scalar}},
                          "x[i] *= a",
                          ""};
    const std::string source = elementwise_source(spec, elementwise_variant::vectorized);
    EXPECT_NE(source.find("constexpr int V = 4;"), std::string::npos);
    EXPECT_NE(source.find("gk_load(gk_b_x"), std::string::npos);
    EXPECT_NE(source.find("gk_store(gk_p_x"), std::string::npos);
}

TEST(ElementwiseSource, OutputsAreNotLoaded) {
    elementwise_spec spec{"fill", {{"y", dtype::int8, param_kind::output}}, "y[i] = 1", ""};
    const std::string source = elementwise_source(spec, elementwise_variant::vectorized);
    EXPECT_EQ(source.find("gk_load(gk_b_y"), std::string::npos);
    EXPECT_NE(source.find("constexpr int V = 16;"), std::string::npos);
}

TEST(ElementwiseSource, BadSpecsAreRefused) {
    EXPECT_THROW(elementwise_source({"bad name", {{"x", dtype::float32, param_kind::inout}}, "", ""},
                                    elementwise_variant::contiguous),
                 logic_error);
    EXPECT_THROW(elementwise_source({"k", {{"a", dtype::float32, param_kind::scalar}}, "", ""},
                                    elementwise_variant::contiguous),
                 logic_error);
    EXPECT_THROW(elementwise_source({"k", {{"i", dtype::float32, param_kind::inout}}, "", ""},
                                    elementwise_variant::contiguous),
                 logic_error);
}

// Complex elements: every operator of gk_complex, mixed with a real array and a real scalar
// converted to complex, and the conversions back (real part, magnitude, non-zero test).
TEST(ElementwiseSource, ComplexOperatorsCompile) {
    GPUKIT_REQUIRE_NVRTC();
    for (dtype c : {dtype::complex64, dtype::complex128}) {
        elementwise_spec spec{"cplx",
                              {{"x", c, param_kind::input},
                               {"y", dtype::float32, param_kind::input},
                               {"a", c, param_kind::scalar},
                               {"z", c, param_kind::output},
                               {"r", dtype::float64, param_kind::output},
                               {"b", dtype::bool_, param_kind::output}},
                              "z[i] = -(a * x[i] + (decltype(a))y[i] / x[i] - x[i]);"
                              "r[i] = (double)x[i] + abs(x[i]) + real(x[i]) + x[i].imag();"
                              "b[i] = x[i] == a || x[i] != conj(a) || (bool)x[i]",
                              ""};
        test::expect_generated_kernel_compiles(elementwise_source(spec, elementwise_variant::vectorized));
        test::expect_generated_kernel_compiles(elementwise_source(spec, elementwise_variant::contiguous));
        test::expect_generated_kernel_compiles(elementwise_source(spec, elementwise_variant::strided, 2));
    }
}

}  // namespace
