// gpukit's generated array kernels, compiled by NVRTC for sm_90 (no GPU needed).
#include "gpukit/array/elementwise.hpp"
#include "gpukit/array/reduction.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/rtc/api.hpp"
#include "gpukit/rtc/program.hpp"
#include "nvrtc_test.hpp"

#include <gtest/gtest.h>

#include <set>

namespace {

using namespace gpukit;
using namespace gpukit::array;

void compile_for_sm90(const std::string& source) {
    rtc::compile_options options;
    options.arch = "sm_90";
    options.options = {"--std=c++17", "-default-device"};
    options.no_extern_c = true;
    try {
        const auto program = rtc::compile(source, options);
        EXPECT_FALSE(program.cubin.empty());
    } catch (const compile_error& e) {
        ADD_FAILURE() << e.what() << "\n" << e.log() << "\n" << source;
    }
}

const dtype kernel_types[] = {dtype::bool_,  dtype::int8,   dtype::int16,  dtype::int32,   dtype::int64,
                              dtype::uint8,  dtype::uint16, dtype::uint32, dtype::uint64,  dtype::float32,
                              dtype::float64, dtype::complex64, dtype::complex128};
// numpy's reductions have no complex kernels.
const dtype real_types[] = {dtype::bool_,  dtype::int8,   dtype::int16,  dtype::int32,  dtype::int64, dtype::uint8,
                            dtype::uint16, dtype::uint32, dtype::uint64, dtype::float32, dtype::float64};

TEST(ElementwiseSource, EveryVariantAndTypeCompiles) {
    GPUKIT_REQUIRE_NVRTC();
    for (dtype t : kernel_types) {
        // Mixed widths: the output is float64, the inputs of type t.
        elementwise_spec spec{"axpb",
                              {{"x", t, param_kind::input},
                               {"a", dtype::float64, param_kind::scalar},
                               {"y", dtype::float64, param_kind::output}},
                              "y[i] = a * (double)x[i]",
                              ""};
        compile_for_sm90(elementwise_source(spec, elementwise_variant::vectorized));
        compile_for_sm90(elementwise_source(spec, elementwise_variant::contiguous));
        compile_for_sm90(elementwise_source(spec, elementwise_variant::strided, 3));
        compile_for_sm90(elementwise_source(spec, elementwise_variant::rows, 3));
        compile_for_sm90(elementwise_source(spec, elementwise_variant::rows, 1));
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
        compile_for_sm90(elementwise_source(spec, elementwise_variant::vectorized));
        compile_for_sm90(elementwise_source(spec, elementwise_variant::contiguous));
        compile_for_sm90(elementwise_source(spec, elementwise_variant::strided, 2));
    }
}

const reduction_variant reduction_variants[] = {reduction_variant::vectorized, reduction_variant::contiguous};

TEST(ReductionSource, EverySpecOfEveryDtypeCompiles) {
    GPUKIT_REQUIRE_NVRTC();
    for (dtype t : real_types)
        for (reduction_variant v : reduction_variants) {
            compile_for_sm90(reduction_source(sum_spec(t), v));
            compile_for_sm90(reduction_source(min_spec(t), v));
            compile_for_sm90(reduction_source(max_spec(t), v));
        }
    // dot of each dtype with itself, and with the narrowest and the widest partner (bool
    // first, float64 second: the output and accumulator types of a pair come from promotion).
    for (dtype t : real_types) {
        for (reduction_variant v : reduction_variants)
            compile_for_sm90(reduction_source(dot_spec(t, t), v));
        compile_for_sm90(reduction_source(dot_spec(dtype::bool_, t), reduction_variant::vectorized));
        compile_for_sm90(reduction_source(dot_spec(t, dtype::float64), reduction_variant::vectorized));
    }
}

// A spec of the user's: a preamble, the index i, two inputs of different types and an output
// type unlike the accumulator's.
const reduction_spec weighted_dot{"weighted_dot",
                                  {dtype::int16, dtype::float32},
                                  dtype::float64,
                                  dtype::float32,
                                  "0.0",
                                  "weight(i) * a[i] * b[i]",
                                  "x + y",
                                  "__device__ double weight(long long i) { return (double)(i % 7); }"};

TEST(ReductionSource, UserSpecCompiles) {
    GPUKIT_REQUIRE_NVRTC();
    for (reduction_variant v : reduction_variants)
        compile_for_sm90(reduction_source(weighted_dot, v));
}

TEST(ReductionSource, VectorizedLoadsSixteenBytesOfTheNarrowestInput) {
    const std::string source = reduction_source(dot_spec(dtype::int8, dtype::float64), reduction_variant::vectorized);
    EXPECT_NE(source.find("constexpr int V = 16;"), std::string::npos);
    EXPECT_NE(source.find("gk_load(gk_va, gk_pa + gk_base);"), std::string::npos);
    EXPECT_NE(source.find("gk_load(gk_vb, gk_pb + gk_base);"), std::string::npos);
    EXPECT_NE(source.find("dot_stage1(const signed char* gk_pa, const double* gk_pb, gk_acc* gk_partial"),
              std::string::npos);
    EXPECT_NE(source.find("dot_stage2(const gk_acc* gk_partial, double* gk_out"), std::string::npos);
    EXPECT_NE(reduction_source(sum_spec(dtype::float32), reduction_variant::vectorized).find("constexpr int V = 4;"),
              std::string::npos);
}

// The contiguous variant has no vector loop: its one loop covers every element.
TEST(ReductionSource, ContiguousVariantReadsEveryElement) {
    const std::string source = reduction_source(sum_spec(dtype::float32), reduction_variant::contiguous);
    EXPECT_EQ(source.find("gk_load(gk_v"), std::string::npos);
    EXPECT_NE(source.find("for (long long i = gk_thread; i < n; i += gk_threads)"), std::string::npos);
}

TEST(ReductionSpecs, FollowNumpy) {
    // sum: numpy's sum() type; floating sums accumulate in float64, integer ones in 64 bits.
    EXPECT_EQ(sum_spec(dtype::int8).output(), dtype::int64);
    EXPECT_EQ(sum_spec(dtype::int8).accumulator(), dtype::int64);
    EXPECT_EQ(sum_spec(dtype::bool_).output(), dtype::int64);
    EXPECT_EQ(sum_spec(dtype::uint16).output(), dtype::uint64);
    EXPECT_EQ(sum_spec(dtype::uint64).output(), dtype::uint64);
    EXPECT_EQ(sum_spec(dtype::float32).output(), dtype::float32);
    EXPECT_EQ(sum_spec(dtype::float32).accumulator(), dtype::float64);
    EXPECT_EQ(sum_spec(dtype::float32).empty(), empty_reduction::identity);
    EXPECT_EQ(sum_spec(dtype::int32).inputs(), std::vector<dtype>{dtype::int32});
    // min and max: the input's type, accumulated in at least 32 bits; empty is an error.
    EXPECT_EQ(min_spec(dtype::int8).output(), dtype::int8);
    EXPECT_EQ(min_spec(dtype::int8).accumulator(), dtype::int32);
    EXPECT_EQ(max_spec(dtype::uint16).accumulator(), dtype::uint32);
    EXPECT_EQ(max_spec(dtype::bool_).accumulator(), dtype::uint32);
    EXPECT_EQ(max_spec(dtype::bool_).output(), dtype::bool_);
    EXPECT_EQ(max_spec(dtype::int64).accumulator(), dtype::int64);
    EXPECT_EQ(min_spec(dtype::float64).empty(), empty_reduction::error);
    EXPECT_EQ(max_spec(dtype::float32).empty(), empty_reduction::error);
    // dot: the promoted type, accumulated as sum() does.
    EXPECT_EQ(dot_spec(dtype::int32, dtype::float32).output(), dtype::float64);
    EXPECT_EQ(dot_spec(dtype::int8, dtype::uint8).output(), dtype::int16);
    EXPECT_EQ(dot_spec(dtype::int8, dtype::uint8).accumulator(), dtype::int64);
    EXPECT_EQ(dot_spec(dtype::int64, dtype::uint64).output(), dtype::float64);
    EXPECT_EQ(dot_spec(dtype::float32, dtype::float32).accumulator(), dtype::float64);
    EXPECT_EQ(dot_spec(dtype::int8, dtype::float64).inputs(), (std::vector<dtype>{dtype::int8, dtype::float64}));
    // Complex inputs are refused.
    for (dtype c : {dtype::complex64, dtype::complex128}) {
        EXPECT_THROW(sum_spec(c), logic_error);
        EXPECT_THROW(min_spec(c), logic_error);
        EXPECT_THROW(max_spec(c), logic_error);
        EXPECT_THROW(dot_spec(c, dtype::float32), logic_error);
        EXPECT_THROW(dot_spec(dtype::float32, c), logic_error);
    }
}

// Each spec is made once per dtype (combination), with its own key.
TEST(ReductionSpecs, AreMadeOnceWithDistinctKeys) {
    EXPECT_EQ(&sum_spec(dtype::float32), &sum_spec(dtype::float32));
    EXPECT_EQ(&dot_spec(dtype::int8, dtype::float32), &dot_spec(dtype::int8, dtype::float32));
    EXPECT_NE(&dot_spec(dtype::int8, dtype::float32), &dot_spec(dtype::float32, dtype::int8));
    std::set<std::uint64_t> keys{weighted_dot.key()};
    std::size_t specs = 1;
    for (dtype t : real_types) {
        keys.insert({sum_spec(t).key(), min_spec(t).key(), max_spec(t).key()});
        specs += 3;
        for (dtype other : real_types) {
            keys.insert(dot_spec(t, other).key());
            ++specs;
        }
    }
    EXPECT_EQ(keys.size(), specs);
}

TEST(ReductionSpecs, BadSpecsAreRefused) {
    const auto make = [](std::string name, std::vector<dtype> inputs, dtype accumulator, std::string identity,
                         std::string map, std::string combine) {
        return reduction_spec(std::move(name), std::move(inputs), accumulator, dtype::float64, std::move(identity),
                              std::move(map), std::move(combine));
    };
    EXPECT_NO_THROW(make("ok", {dtype::float32}, dtype::float64, "0", "a[i]", "x + y"));
    EXPECT_THROW(make("bad name", {dtype::float32}, dtype::float64, "0", "a[i]", "x + y"), logic_error);
    EXPECT_THROW(make("k", {}, dtype::float64, "0", "a[i]", "x + y"), logic_error);
    EXPECT_THROW(make("k", {dtype::float32, dtype::float32, dtype::float32}, dtype::float64, "0", "a[i]", "x + y"),
                 logic_error);
    for (dtype narrow_or_complex : {dtype::bool_, dtype::int8, dtype::uint16, dtype::complex64, dtype::complex128})
        EXPECT_THROW(make("k", {dtype::float32}, narrow_or_complex, "0", "a[i]", "x + y"), logic_error);
    EXPECT_THROW(make("k", {dtype::float32}, dtype::float64, "", "a[i]", "x + y"), logic_error);
    EXPECT_THROW(make("k", {dtype::float32}, dtype::float64, "0", "", "x + y"), logic_error);
    EXPECT_THROW(make("k", {dtype::float32}, dtype::float64, "0", "a[i]", ""), logic_error);
}

}  // namespace
