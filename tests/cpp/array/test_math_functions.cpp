// The cumath kernels (array/math_functions.hpp): numpy's result types, what numpy refuses, and
// NVRTC compiling the kernel of every function for every dtype (and dtype pair) for sm_90.
#include "gpukit/array/math_functions.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/rtc/program.hpp"
#include "array_test.hpp"
#include "expect_error.hpp"
#include "nvrtc_test.hpp"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace gpukit;
using namespace gpukit::array;

const math_function all_functions[] = {math_function::fabs,  math_function::ceil, math_function::floor,
                                       math_function::exp,   math_function::log,  math_function::log10,
                                       math_function::sqrt,  math_function::sin,  math_function::cos,
                                       math_function::tan,   math_function::asin, math_function::acos,
                                       math_function::atan,  math_function::sinh, math_function::cosh,
                                       math_function::tanh,  math_function::fmod, math_function::ldexp,
                                       math_function::frexp, math_function::modf};

bool is_complex(dtype t) { return kind(t) == dtype_kind::complex; }

// Whether numpy has a loop for f over these types (the others must be refused).
bool numpy_defines(math_function f, dtype x, std::optional<dtype> y) {
    switch (f) {
    case math_function::fabs:
    case math_function::ceil:
    case math_function::floor:
    case math_function::frexp:
    case math_function::modf:
        return !is_complex(x);
    case math_function::fmod:
    case math_function::ldexp:
        return !is_complex(x) && !is_complex(*y);
    default:
        return true;
    }
}

std::vector<dtype> output_types(math_function f, dtype x, std::optional<dtype> y = std::nullopt) {
    std::vector<dtype> types;
    for (const param& p : math_spec(f, x, y).params())
        if (p.kind == param_kind::output)
            types.push_back(p.type);
    return types;
}

TEST(MathFunctions, NamesAndArity) {
    EXPECT_EQ(name(math_function::sin), "sin");
    EXPECT_EQ(name(math_function::log10), "log10");
    EXPECT_EQ(name(math_function::modf), "modf");
    EXPECT_EQ(input_count(math_function::fmod), 2);
    EXPECT_EQ(input_count(math_function::ldexp), 2);
    EXPECT_EQ(input_count(math_function::frexp), 1);
    EXPECT_EQ(output_count(math_function::frexp), 2);
    EXPECT_EQ(output_count(math_function::modf), 2);
    EXPECT_EQ(output_count(math_function::tanh), 1);
}

TEST(MathFunctions, ResultTypesAreNumpys) {
    using v = std::vector<dtype>;
    EXPECT_EQ(output_types(math_function::sin, dtype::float32), v{dtype::float32});
    EXPECT_EQ(output_types(math_function::sin, dtype::float64), v{dtype::float64});
    EXPECT_EQ(output_types(math_function::exp, dtype::complex64), v{dtype::complex64});
    EXPECT_EQ(output_types(math_function::sqrt, dtype::int16), v{dtype::float32});
    EXPECT_EQ(output_types(math_function::sqrt, dtype::uint16), v{dtype::float32});
    EXPECT_EQ(output_types(math_function::sqrt, dtype::int32), v{dtype::float64});
    EXPECT_EQ(output_types(math_function::sqrt, dtype::uint64), v{dtype::float64});
    // numpy gives float16 for these; gpukit has no float16.
    EXPECT_EQ(output_types(math_function::log, dtype::bool_), v{dtype::float32});
    EXPECT_EQ(output_types(math_function::fabs, dtype::int8), v{dtype::float32});
    // numpy 2: an integer is its own ceiling and floor.
    EXPECT_EQ(output_types(math_function::ceil, dtype::int8), v{dtype::int8});
    EXPECT_EQ(output_types(math_function::floor, dtype::uint64), v{dtype::uint64});
    EXPECT_EQ(output_types(math_function::ceil, dtype::bool_), v{dtype::bool_});
    EXPECT_EQ(output_types(math_function::fmod, dtype::int32, dtype::int32), v{dtype::int32});
    EXPECT_EQ(output_types(math_function::fmod, dtype::bool_, dtype::bool_), v{dtype::int8});
    EXPECT_EQ(output_types(math_function::fmod, dtype::float32, dtype::int32), v{dtype::float64});
    EXPECT_EQ(output_types(math_function::fmod, dtype::int64, dtype::uint64), v{dtype::float64});
    EXPECT_EQ(output_types(math_function::ldexp, dtype::float32, dtype::int64), v{dtype::float32});
    EXPECT_EQ(output_types(math_function::ldexp, dtype::int32, dtype::int8), v{dtype::float64});
    EXPECT_EQ(output_types(math_function::ldexp, dtype::float32, dtype::float32), v{dtype::float32});
    EXPECT_EQ(output_types(math_function::frexp, dtype::float32), (v{dtype::float32, dtype::float32}));
    EXPECT_EQ(output_types(math_function::modf, dtype::int32), (v{dtype::float64, dtype::float64}));
}

TEST(MathFunctions, WhatNumpyLacksIsATypeError) {
    for (math_function f :
         {math_function::fabs, math_function::ceil, math_function::floor, math_function::frexp, math_function::modf})
        for (dtype t : {dtype::complex64, dtype::complex128})
            EXPECT_THROW(math_spec(f, t), type_error) << name(f);
    EXPECT_THROW(math_spec(math_function::fmod, dtype::complex64, dtype::float32), type_error);
    EXPECT_THROW(math_spec(math_function::fmod, dtype::float32, dtype::complex128), type_error);
    EXPECT_THROW(math_spec(math_function::ldexp, dtype::complex64, dtype::int32), type_error);
    EXPECT_THROW(math_spec(math_function::ldexp, dtype::float32, dtype::complex64), type_error);
    test::expect_error<type_error>([] { math_spec(math_function::fabs, dtype::complex64); },
                                   "fabs is not supported for complex64");
}

TEST(MathFunctions, ArgumentCountsAreChecked) {
    EXPECT_THROW(math_spec(math_function::sin, dtype::float32, dtype::float32), logic_error);
    EXPECT_THROW(math_spec(math_function::fmod, dtype::float32), logic_error);
    EXPECT_THROW(math_spec(math_function::ldexp, dtype::float32), logic_error);
    EXPECT_THROW(math_spec(static_cast<math_function>(math_function_count), dtype::float32), logic_error);
}

TEST(MathFunctions, EachSpecIsMadeOnceAndHasItsOwnKey) {
    const elementwise_spec& a = math_spec(math_function::sin, dtype::float32);
    EXPECT_EQ(&a, &math_spec(math_function::sin, dtype::float32));
    EXPECT_NE(a.key(), math_spec(math_function::sin, dtype::float64).key());
    EXPECT_NE(a.key(), math_spec(math_function::cos, dtype::float32).key());
    EXPECT_NE(math_spec(math_function::fmod, dtype::int32, dtype::float32).key(),
              math_spec(math_function::fmod, dtype::float32, dtype::int32).key());
    EXPECT_EQ(a.name(), "cumath_sin_float32");
    EXPECT_EQ(math_spec(math_function::fmod, dtype::int32, dtype::float32).name(), "cumath_fmod_int32_float32");
}

// The kernels of many specs, compiled together: specs whose sources share everything before
// the kernels (the common definitions and the preamble) go into one program, each adding
// its kernel (their names differ), so NVRTC runs a few times instead of once per spec. The
// contiguous variant carries the operation once; the variants differ only in indexing, which
// test_kernel_source.cpp compiles for every type.
class kernel_batches {
public:
    void add(const elementwise_spec& spec) {
        const std::string source = elementwise_source(spec, elementwise_variant::contiguous);
        const std::size_t kernel = source.find("extern \"C\"");
        ASSERT_NE(kernel, std::string::npos) << source;
        batches_[source.substr(0, kernel)] += source.substr(kernel);
        ++specs_;
    }

    void compile_for_sm90() const {
        const rtc::compile_options options = test::generated_kernel_options();
        for (const auto& [prefix, kernels] : batches_) {
            try {
                EXPECT_FALSE(rtc::compile(prefix + kernels, options).cubin.empty());
            } catch (const compile_error& e) {
                ADD_FAILURE() << e.what() << "\n" << e.log();
            }
        }
    }

    int specs() const { return specs_; }

private:
    std::map<std::string, std::string> batches_;  // by the text before the kernels
    int specs_ = 0;
};

TEST(MathFunctions, EveryKernelCompiles) {
    GPUKIT_REQUIRE_NVRTC();
    kernel_batches batches;
    int refused = 0;
    for (math_function f : all_functions)
        for (dtype x : test::every_dtype) {
            std::vector<std::optional<dtype>> seconds{std::nullopt};
            if (input_count(f) == 2)
                seconds.assign(std::begin(test::every_dtype), std::end(test::every_dtype));
            for (const std::optional<dtype>& y : seconds) {
                if (!numpy_defines(f, x, y)) {
                    EXPECT_THROW(math_spec(f, x, y), type_error) << name(f) << " " << name(x);
                    ++refused;
                    continue;
                }
                batches.add(math_spec(f, x, y));
            }
        }
    // 16 one-input functions x 13 types (less 3 x 2 complex), frexp and modf x 11 real types,
    // fmod and ldexp x 11 x 11 real pairs.
    EXPECT_EQ(batches.specs(), 16 * 13 - 6 + 2 * 11 + 2 * 121);
    EXPECT_EQ(refused, 6 + 2 * 2 + 2 * (169 - 121));
    batches.compile_for_sm90();
}

}  // namespace
