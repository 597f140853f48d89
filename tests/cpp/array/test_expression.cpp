// Elementwise expressions (array/expression.hpp): their steps, keys, renumbering, the CUDA C
// they write, the spec cache, and the kernels compiled by NVRTC for sm_90 (no GPU needed).
#include "gpukit/array/expression.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/rtc/program.hpp"
#include "nvrtc_test.hpp"

#include <gtest/gtest.h>

#include <utility>

namespace {

using namespace gpukit;
using namespace gpukit::array;

binary_types types(dtype compute, dtype result) { return binary_types{result, compute, std::nullopt, false}; }

TEST(Expression, StepsKeyAndText) {
    const expression x = expression::array(0, dtype::float32), a = expression::scalar(1, dtype::float32);
    const expression ax = expression::binary(binary_op::multiply, a, x, types(dtype::float32, dtype::float32));
    const expression axpy = expression::binary(binary_op::add, ax, expression::array(2, dtype::float64),
                                               types(dtype::float64, dtype::float64));
    EXPECT_EQ(axpy.size(), 5u);
    EXPECT_EQ(axpy.key().size(), 5 * sizeof(expression_step));
    EXPECT_EQ(axpy.type(), dtype::float64);
    EXPECT_EQ(axpy.operand_count(), 3);
    EXPECT_EQ(axpy.text(),
              "((double)((((double)(((float)((((float)(p1)) * ((float)(p0[i]))))))) + "
              "((double)(p2[i])))))");
    // The same operation on other types or operands is another key.
    const expression other = expression::binary(binary_op::add, ax, expression::array(2, dtype::float32),
                                                types(dtype::float64, dtype::float64));
    EXPECT_NE(axpy.key(), other.key());
}

TEST(Expression, RenumberedOperandsAndErrors) {
    const expression xy = expression::binary(binary_op::subtract, expression::array(0, dtype::int32),
                                             expression::array(1, dtype::int32), types(dtype::int32, dtype::int32));
    const expression yx = xy.renumbered({1, 0});
    EXPECT_EQ(yx.text(), "((int)((((int)(p1[i])) - ((int)(p0[i])))))");
    EXPECT_THROW((void)xy.renumbered({0}), logic_error);  // no number for operand 1
    EXPECT_THROW((void)expression::array(255, dtype::int8), logic_error);
    EXPECT_THROW((void)expression::array(-1, dtype::int8), logic_error);
    // Operand 0 used with two types, and an operand number left unused, are refused.
    const expression two_types =
        expression::binary(binary_op::add, expression::array(0, dtype::int8), expression::array(0, dtype::int16),
                           types(dtype::int16, dtype::int16));
    EXPECT_THROW((void)expression_kernel(two_types), logic_error);
    const expression gap = expression::binary(binary_op::add, expression::array(0, dtype::int8),
                                              expression::array(2, dtype::int8), types(dtype::int8, dtype::int8));
    EXPECT_THROW((void)expression_kernel(gap), logic_error);
}

TEST(Expression, MixedSignComparisonsAreExact) {
    binary_types t{dtype::bool_, dtype::int64, std::nullopt, true};
    const expression less =
        expression::binary(binary_op::less, expression::array(0, dtype::int32), expression::array(1, dtype::uint64), t);
    // A negative signed value is below every uint64; otherwise both compare unsigned.
    EXPECT_EQ(less.text(),
              "((bool)((((long long)(p0[i])) < 0 ? true : ((unsigned long long)((long long)(p0[i])) < "
              "((unsigned long long)(p1[i]))))))");
    const expression greater = expression::binary(binary_op::greater, expression::array(0, dtype::uint64),
                                                  expression::array(1, dtype::int8), t);
    EXPECT_NE(greater.text().find("((long long)(p1[i])) < 0 ? true"), std::string::npos);
    EXPECT_NE(less.key(), expression::binary(binary_op::less, expression::array(0, dtype::int32),
                                             expression::array(1, dtype::uint64), types(dtype::int64, dtype::bool_))
                              .key());
}

TEST(Expression, SpecsAreMadeOnceAndCompile) {
    GPUKIT_REQUIRE_NVRTC();
    const expression e =
        expression::unary(unary_op::absolute,
                          expression::binary(binary_op::power, expression::array(0, dtype::int16),
                                             expression::scalar(1, dtype::int16), types(dtype::int16, dtype::int16)),
                          dtype::int16, dtype::int16);
    const elementwise_spec& spec = expression_kernel(e);
    EXPECT_EQ(&spec, &expression_kernel(e));  // cached by the key
    ASSERT_EQ(spec.params().size(), 3u);
    EXPECT_EQ(spec.params()[1].kind, param_kind::scalar);
    EXPECT_EQ(spec.params()[2].type, dtype::int16);
    EXPECT_NE(spec.preamble().find("gk_ipow"), std::string::npos);
    const rtc::compile_options options = test::generated_kernel_options();
    for (const auto variant :
         {elementwise_variant::vectorized, elementwise_variant::strided, elementwise_variant::rows})
        EXPECT_FALSE(rtc::compile(elementwise_source(spec, variant, 2), options).cubin.empty());
    const elementwise_spec& constant = expression_kernel(expression::constant(true));
    EXPECT_EQ(constant.params().size(), 1u);  // the output only
    EXPECT_FALSE(rtc::compile(elementwise_source(constant, elementwise_variant::contiguous), options).cubin.empty());
}

TEST(Expression, UnaryTypesAreNumpys) {
    const auto types = [](unary_op op, dtype t) {
        const unary_types u = resolve_unary(op, t);
        return std::pair{u.compute, u.result};
    };
    EXPECT_EQ(types(unary_op::negative, dtype::int8), std::pair(dtype::int8, dtype::int8));
    EXPECT_EQ(types(unary_op::absolute, dtype::complex64), std::pair(dtype::complex64, dtype::float32));
    EXPECT_EQ(types(unary_op::absolute, dtype::float64), std::pair(dtype::float64, dtype::float64));
    EXPECT_EQ(types(unary_op::real, dtype::complex128), std::pair(dtype::complex128, dtype::float64));
    EXPECT_EQ(types(unary_op::imag, dtype::int32), std::pair(dtype::int32, dtype::int32));
    EXPECT_EQ(types(unary_op::conjugate, dtype::complex64), std::pair(dtype::complex64, dtype::complex64));
    EXPECT_EQ(types(unary_op::logical_not, dtype::float32), std::pair(dtype::bool_, dtype::bool_));
    EXPECT_THROW(resolve_unary(unary_op::negative, dtype::bool_), type_error);
    EXPECT_THROW(resolve_unary(unary_op::cast, dtype::int8), logic_error);
}

}  // namespace
