// PyCUDA's ElementwiseKernel source (gpukit::array::elementwise_kernel_source): its text,
// its checks, and NVRTC compiling it for sm_90 with the shipped pycuda-complex.hpp (no GPU
// needed).
#include "gpukit/array/elementwise_kernel.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/rtc/program.hpp"
#include "array_test.hpp"
#include "nvrtc_test.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>

namespace {

using namespace gpukit;
using namespace gpukit::array;
using test::contains;

elementwise_kernel_spec spec(std::vector<kernel_parameter> params, std::string operation = "y[i] = x[n - 1 - i]") {
    return {"k",
            std::move(params),
            std::move(operation),
            "__device__ float twice(float v) { return 2 * v; }",
            "float acc = 0",
            "(void)acc"};
}

const std::vector<kernel_parameter> xy = {{"const float *__restrict__ x", "x", true}, {"float *y", "y", true}};

TEST(ElementwiseKernelSource, PyCudasKernelWithTheDeclarationsAsWritten) {
    const std::string source = elementwise_kernel_source(spec(xy), false);
    EXPECT_TRUE(contains(source, "#include <pycuda-complex.hpp>"));
    EXPECT_TRUE(
        contains(source, "extern \"C\" __global__ void k(const float *__restrict__ x, float *y, unsigned long n)"));
    EXPECT_TRUE(contains(source, "for (i = cta_start + tid; i < n; i += total_threads)"));
    EXPECT_TRUE(contains(source, "float acc = 0"));
    EXPECT_TRUE(contains(source, "(void)acc"));
}

TEST(ElementwiseKernelSource, RangeFormTakesStartStopStep) {
    const std::string source = elementwise_kernel_source(spec(xy, "y[i] = x[i]"), true);
    EXPECT_TRUE(contains(source, "float *y, long start, long stop, long step)"));
    EXPECT_FALSE(contains(source, "unsigned long n"));
}

TEST(ElementwiseKernelSource, ADeclaredNReplacesGpukitsOwn) {
    auto params = xy;
    params.push_back({"int n", "n", false});
    const std::string source = elementwise_kernel_source(spec(params), false);
    EXPECT_TRUE(contains(source, "float *y, int n)"));
    EXPECT_FALSE(contains(source, "unsigned long n"));
}

TEST(ElementwiseKernelSource, BadSpecsAreRefused) {
    EXPECT_THROW(elementwise_kernel_source(spec({{"float a", "a", false}}), false), logic_error);  // no array
    EXPECT_THROW(elementwise_kernel_source(spec({{"float *x", "x", true}, {"float *x", "x", true}}), false),
                 logic_error);  // twice
    for (const char* taken : {"i", "tid", "total_threads", "cta_start"})
        EXPECT_THROW(elementwise_kernel_source(spec({{"float *x", "x", true}, {"int v", taken, false}}), false),
                     logic_error)
            << taken;
    EXPECT_THROW(elementwise_kernel_source(spec({{"float *n", "n", true}}), false), logic_error);
    auto with_start = xy;
    with_start.push_back({"int start", "start", false});
    EXPECT_NO_THROW(elementwise_kernel_source(spec(with_start), false));
    EXPECT_THROW(elementwise_kernel_source(spec(with_start), true), logic_error);
    elementwise_kernel_spec bad_name = spec(xy);
    bad_name.name = "two words";
    EXPECT_THROW(elementwise_kernel_source(bad_name, false), logic_error);
}

// A keyword as a name compiles into a kernel NVRTC refuses at the first launch: refused when
// the source is made, naming it.
TEST(ElementwiseKernelSource, KeywordsAreNoNames) {
    for (const char* keyword : {"if", "float", "class", "new", "__shared__", "threadIdx"}) {
        try {
            const kernel_parameter named_by_keyword{std::string("float ") + keyword, keyword, false};
            elementwise_kernel_source(spec({{"float *x", "x", true}, named_by_keyword}), false);
            ADD_FAILURE() << keyword << " accepted as a parameter name";
        } catch (const logic_error& e) {
            EXPECT_TRUE(contains(e.what(), std::string("parameter name '") + keyword + "' is a")) << e.what();
        }
        elementwise_kernel_spec named = spec(xy);
        named.name = keyword;
        EXPECT_THROW(elementwise_kernel_source(named, false), logic_error) << keyword;
    }
}

// A NUL in the kernel's text or compile settings would cut it short when the first launch
// compiles it: the kernel refuses it when made (no GPU needed for that).
TEST(ElementwiseKernel, TextHoldingANulIsRefusedWhenMade) {
    using namespace std::string_literals;
    rtc::compile_request options;
    options.options = {"-DX=1\0junk"s};
    EXPECT_THROW(elementwise_kernel(spec(xy), options, std::nullopt), std::invalid_argument);
    rtc::compile_request include;
    include.options.include_dirs = {"/usr\0/include"s};
    EXPECT_THROW(elementwise_kernel(spec(xy), include, std::nullopt), std::invalid_argument);
    EXPECT_THROW(elementwise_kernel(spec(xy, "y[i] = x[i]\0junk"s), rtc::compile_request{}, std::nullopt),
                 std::invalid_argument);
    EXPECT_NO_THROW(elementwise_kernel(spec(xy), rtc::compile_request{}, std::nullopt));
}

TEST(ElementwiseKernelSource, BothFormsCompile) {
    GPUKIT_REQUIRE_NVRTC();
    auto params = xy;
    params.push_back({"pycuda::complex<double> *z", "z", true});
    params.push_back({"float3 v", "v", false});
    const elementwise_kernel_spec s = spec(params, "y[i] = twice(x[n - 1 - i]) + v.x; z[i] = pycuda::conj(z[i])");
    test::expect_user_kernel_compiles(elementwise_kernel_source(s, false));
    test::expect_user_kernel_compiles(elementwise_kernel_source(spec(params, "y[i] = x[i]; z[i] *= 2"), true));
}

}  // namespace
