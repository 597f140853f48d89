// The kernels of gpuarray's functions, compiled by NVRTC for sm_90 (no GPU needed): gathers and
// scatters (array/indexing.hpp), record fills (array/element_copy.hpp), and the expressions of
// numpy's functions (minimum, maximum, logical_and, where, conj, complex powers and ordering).
#include "gpukit/array/element_copy.hpp"
#include "gpukit/array/expression.hpp"
#include "gpukit/array/indexing.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/rtc/program.hpp"
#include "array_test.hpp"
#include "nvrtc_test.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace gpukit;
using namespace gpukit::array;

void compile_every_variant(const elementwise_spec& spec) {
    for (const auto variant : {elementwise_variant::vectorized, elementwise_variant::contiguous})
        test::expect_generated_kernel_compiles(elementwise_source(spec, variant));
    test::expect_generated_kernel_compiles(elementwise_source(spec, elementwise_variant::strided, 3));
    test::expect_generated_kernel_compiles(elementwise_source(spec, elementwise_variant::rows, 2));
}

const dtype index_types[] = {dtype::bool_, dtype::int8,   dtype::int16,  dtype::int32, dtype::int64,
                             dtype::uint8, dtype::uint16, dtype::uint32, dtype::uint64};

binary_types same(dtype t, dtype result) { return binary_types{result, t, std::nullopt, false}; }

TEST(IndexedCopySource, TakeCompilesForEveryIndexTypeAndWord) {
    GPUKIT_REQUIRE_NVRTC();
    for (dtype index : index_types) {
        indexed_copy_spec spec;
        spec.source_index = index;
        test::expect_generated_kernel_compiles(indexed_copy_source(spec));
    }
    for (int word : {1, 2, 4, 8, 16})
        for (int words : {1, 3}) {
            indexed_copy_spec spec;
            spec.word = word;
            spec.words = words;
            spec.source_index = dtype::int64;
            spec.source_ndim = 3;  // numpy's take of a strided source
            test::expect_generated_kernel_compiles(indexed_copy_source(spec));
        }
}

TEST(IndexedCopySource, MultiTakePutCompile) {
    GPUKIT_REQUIRE_NVRTC();
    for (int arrays : {2, max_indexed_arrays}) {
        indexed_copy_spec take, put, take_put;
        take.arrays = put.arrays = take_put.arrays = arrays;
        take.source_index = dtype::uint32;
        put.dest_index = dtype::int32;
        put.word = 8;
        take_put.source_index = dtype::uint32;
        take_put.dest_index = dtype::int16;
        take_put.offsets = true;
        take_put.word = 4;
        take_put.words = 3;
        for (const auto& spec : {take, put, take_put})
            test::expect_generated_kernel_compiles(indexed_copy_source(spec));
    }
}

TEST(IndexedCopySource, TextAndRefusals) {
    indexed_copy_spec spec;
    spec.source_index = dtype::uint64;
    spec.dest_index = dtype::int8;
    spec.offsets = true;
    spec.word = 16;
    spec.words = 2;
    const std::string source = indexed_copy_source(spec);
    EXPECT_NE(source.find("struct gk_element { uint4 w[2]; };"), std::string::npos);
    EXPECT_NE(source.find("const unsigned long long* gk_si"), std::string::npos);
    EXPECT_NE(source.find("const signed char* gk_di"), std::string::npos);
    EXPECT_NE(source.find("gk_off.e[gk_k]"), std::string::npos);
    // An unsigned index beyond the signed range is out of every array.
    EXPECT_NE(source.find("gk_raw_src > 0x7fffffffffffffffull ? -1 - gk_src_n.e[gk_k]"), std::string::npos);
    EXPECT_NE(source.find("gk_src_ok ? *gk_from : gk_element{}"), std::string::npos);
    EXPECT_NE(source.find("if (gk_write[gk_u][gk_k])"), std::string::npos);

    indexed_copy_spec bad = spec;
    bad.source_index = dtype::float32;
    EXPECT_THROW(indexed_copy_source(bad), logic_error);
    bad = spec;
    bad.source_index = bad.dest_index = std::nullopt;
    EXPECT_THROW(indexed_copy_source(bad), logic_error);
    bad = spec;
    bad.word = 3;
    EXPECT_THROW(indexed_copy_source(bad), logic_error);
    bad = spec;
    bad.arrays = max_indexed_arrays + 1;
    EXPECT_THROW(indexed_copy_source(bad), logic_error);
    bad = spec;
    bad.arrays = 2;
    bad.source_ndim = 2;  // a strided source is take's alone
    EXPECT_THROW(indexed_copy_source(bad), logic_error);
}

TEST(FillWords, SpecsCompileAndAreMadeOnce) {
    GPUKIT_REQUIRE_NVRTC();
    for (dtype word : {dtype::uint8, dtype::uint16, dtype::uint32, dtype::uint64})
        for (int words : {1, 3})
            test::expect_generated_kernel_compiles(
                elementwise_source(fill_words_spec(word, words), elementwise_variant::vectorized));
    compile_every_variant(fill_words_spec(dtype::uint32, 3));
    EXPECT_EQ(&fill_words_spec(dtype::uint32, 3), &fill_words_spec(dtype::uint32, 3));
    EXPECT_NE(fill_words_spec(dtype::uint32, 3).operation().find("gk_w[i % 3]"), std::string::npos);
    EXPECT_THROW(fill_words_spec(dtype::float32, 1), logic_error);
    EXPECT_THROW(fill_words_spec(dtype::uint8, max_fill_words + 1), logic_error);
    EXPECT_THROW(fill_words_spec(dtype::uint8, 0), logic_error);
}

// One expression using every new step for arrays of type t:
//   where(logical_or(logical_and(p0 < p1, p0 >= p2), logical_not(p0)), minimum(p0, p1), maximum(p0, p2))
expression every_function(dtype t) {
    const expression a = expression::array(0, t), b = expression::array(1, t), s = expression::scalar(2, t);
    const binary_types to_bool = same(t, dtype::bool_), logical = same(dtype::bool_, dtype::bool_);
    const expression both =
        expression::binary(binary_op::logical_and, expression::binary(binary_op::less, a, b, to_bool),
                           expression::binary(binary_op::greater_equal, a, s, to_bool), logical);
    const expression condition =
        expression::binary(binary_op::logical_or, both,
                           expression::unary(unary_op::logical_not, a, dtype::bool_, dtype::bool_), logical);
    return expression::select(condition, expression::binary(binary_op::minimum, a, b, same(t, t)),
                              expression::binary(binary_op::maximum, a, s, same(t, t)), t);
}

TEST(FunctionExpressions, EveryStepCompilesForEveryType) {
    GPUKIT_REQUIRE_NVRTC();
    for (dtype t : test::every_dtype)
        test::expect_generated_kernel_compiles(
            elementwise_source(expression_kernel(every_function(t)), elementwise_variant::vectorized));
    compile_every_variant(expression_kernel(every_function(dtype::float32)));
    compile_every_variant(expression_kernel(every_function(dtype::complex128)));
}

// (~p0 & p1) ^ (p0 | s) of integer and bool arrays, as CUDA C and as OpenCL C's text.
TEST(FunctionExpressions, BitwiseOperatorsCompileForEveryIntegerType) {
    GPUKIT_REQUIRE_NVRTC();
    for (dtype t : test::every_dtype) {
        if (kind(t) == dtype_kind::floating || kind(t) == dtype_kind::complex)
            continue;
        const expression a = expression::array(0, t), b = expression::array(1, t), s = expression::scalar(2, t);
        const expression inverted = expression::unary(unary_op::invert, a, t, t);
        const expression e =
            expression::binary(binary_op::bitwise_xor,
                               expression::binary(binary_op::bitwise_and, inverted, b, same(t, t)),
                               expression::binary(binary_op::bitwise_or, a, s, same(t, t)), same(t, t));
        test::expect_generated_kernel_compiles(
            elementwise_source(expression_kernel(e), elementwise_variant::vectorized));
        EXPECT_NE(e.text().find(t == dtype::bool_ ? "(!" : "(~"), std::string::npos) << name(t);
    }
}

TEST(FunctionExpressions, ComplexPartsAndPowersCompile) {
    GPUKIT_REQUIRE_NVRTC();
    for (dtype t : {dtype::complex64, dtype::complex128}) {
        // real(conj(p0) ** p1) + imag(p0)
        const dtype part = t == dtype::complex64 ? dtype::float32 : dtype::float64;
        const expression power =
            expression::binary(binary_op::power, expression::unary(unary_op::conjugate, expression::array(0, t), t, t),
                               expression::array(1, t), same(t, t));
        const expression e =
            expression::binary(binary_op::add, expression::unary(unary_op::real, power, t, part),
                               expression::unary(unary_op::imag, expression::array(0, t), t, part), same(part, part));
        test::expect_generated_kernel_compiles(
            elementwise_source(expression_kernel(e), elementwise_variant::vectorized));
    }
}

TEST(FunctionExpressions, TextOfTheNewSteps) {
    const expression chosen = expression::select(expression::array(0, dtype::int8), expression::array(1, dtype::int16),
                                                 expression::scalar(2, dtype::int16), dtype::int32);
    EXPECT_EQ(chosen.text(), "((int)((((bool)(p0[i])) ? ((int)(p1[i])) : ((int)(p2)))))");
    EXPECT_EQ(chosen.operand_count(), 3);
    const expression larger =
        expression::binary(binary_op::maximum, expression::array(0, dtype::float32),
                           expression::array(1, dtype::float32), same(dtype::float32, dtype::float32));
    EXPECT_EQ(larger.text(), "((float)(gk_maximum(((float)(p0[i])), ((float)(p1[i])))))");
    EXPECT_NE(expression_kernel(larger).preamble().find("gk_maximum"), std::string::npos);
    const expression either = expression::binary(binary_op::logical_or, expression::array(0, dtype::float64),
                                                 expression::scalar(1, dtype::bool_), same(dtype::bool_, dtype::bool_));
    EXPECT_EQ(either.text(), "((bool)((((bool)(p0[i])) || ((bool)(p1)))))");
    EXPECT_EQ(expression_kernel(either).preamble(), "");
    const expression power =
        expression::binary(binary_op::power, expression::array(0, dtype::complex64),
                           expression::scalar(1, dtype::complex64), same(dtype::complex64, dtype::complex64));
    EXPECT_NE(power.text().find("gk_cpow("), std::string::npos);
    EXPECT_NE(expression_kernel(power).preamble().find("gk_cpow"), std::string::npos);
    // An ordering of complex numbers needs numpy's comparison operators; of real numbers none.
    const auto less = [](dtype t) {
        return expression::binary(binary_op::less, expression::array(0, t), expression::array(1, t),
                                  same(t, dtype::bool_));
    };
    EXPECT_NE(expression_kernel(less(dtype::complex128)).preamble().find("operator<("), std::string::npos);
    EXPECT_EQ(expression_kernel(less(dtype::float64)).preamble(), "");
    EXPECT_THROW((void)expression::select(expression::array(0, dtype::int8), expression::array(1, dtype::int8),
                                          expression(), dtype::int8)
                     .text(),
                 logic_error);
}

TEST(ArangeSource, CompilesForEveryRealTypeAndIsMadeOnce) {
    GPUKIT_REQUIRE_NVRTC();
    for (dtype t : {dtype::int8, dtype::uint16, dtype::int32, dtype::int64, dtype::uint64, dtype::float32,
                    dtype::float64, dtype::complex64}) {
        const elementwise_spec& spec = arange_spec(t);
        EXPECT_EQ(&spec, &arange_spec(t));
        ASSERT_EQ(spec.params().size(), 3u);
        EXPECT_EQ(spec.params()[0].type, t);
        test::expect_generated_kernel_compiles(elementwise_source(spec, elementwise_variant::contiguous));
    }
}

}  // namespace
