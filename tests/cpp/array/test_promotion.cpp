// The binary-operator type table: numpy 2.4's answers on the cases where its rules differ
// (tests/python/test_promotion.py compares every case with numpy itself).
#include "gpukit/array/expression.hpp"
#include "gpukit/array/promotion.hpp"
#include "gpukit/core/error.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace {

using namespace gpukit::array;
using op = binary_op;

operand typed(dtype t) { return {operand::kind::typed, t, {}}; }
operand python_integer(long long v) {
    const auto magnitude = static_cast<std::uint64_t>(v);
    return {operand::kind::python_int, {}, {v < 0, v < 0 ? 0 - magnitude : magnitude, false}};
}
operand python_integer(bool negative, std::uint64_t magnitude) {
    return {operand::kind::python_int, {}, {negative, magnitude, false}};
}
operand python_beyond_64_bits(bool negative) { return {operand::kind::python_int, {}, {negative, 0, true}}; }
const operand python_float{operand::kind::python_float, {}, {}};
const operand python_complex{operand::kind::python_complex, {}, {}};

// `call()` throws E with exactly `message`.
template <class E, class F>
void expect_error(F call, const std::string& message) {
    try {
        call();
        ADD_FAILURE() << "no exception, expected: " << message;
    } catch (const E& e) {
        EXPECT_EQ(e.what(), message);
    }
}

TEST(Promotion, SymbolsAndComparisons) {
    EXPECT_EQ(symbol(op::power), "**");
    EXPECT_EQ(symbol(op::greater_equal), ">=");
    EXPECT_TRUE(is_comparison(op::not_equal));
    EXPECT_FALSE(is_comparison(op::true_divide));
    for (auto o : {op::add, op::subtract, op::multiply, op::true_divide, op::power, op::equal, op::not_equal, op::less,
                   op::less_equal, op::greater, op::greater_equal})
        EXPECT_EQ(binary_op_from_symbol(symbol(o)), o);
    EXPECT_EQ(binary_op_from_symbol("//"), std::nullopt);
}

TEST(Promotion, ArraysPromoteAsNumpy) {
    auto types = resolve_binary(op::add, typed(dtype::int8), typed(dtype::uint8));
    EXPECT_EQ(types.result, dtype::int16);
    EXPECT_EQ(types.compute, dtype::int16);
    EXPECT_FALSE(types.constant);
    EXPECT_EQ(resolve_binary(op::multiply, typed(dtype::int64), typed(dtype::uint64)).result, dtype::float64);
    EXPECT_EQ(resolve_binary(op::add, typed(dtype::bool_), typed(dtype::bool_)).result, dtype::bool_);
    // Integers divide in double, whatever their size.
    types = resolve_binary(op::true_divide, typed(dtype::int8), typed(dtype::int8));
    EXPECT_EQ(types.result, dtype::float64);
    EXPECT_EQ(types.compute, dtype::float64);
    EXPECT_EQ(resolve_binary(op::true_divide, typed(dtype::int16), typed(dtype::float32)).result, dtype::float32);
    // power has no bool loop: bool ** bool is int8.
    EXPECT_EQ(resolve_binary(op::power, typed(dtype::bool_), typed(dtype::bool_)).result, dtype::int8);
    // Comparisons compute in the promoted type and give bool.
    types = resolve_binary(op::less, typed(dtype::uint8), typed(dtype::int8));
    EXPECT_EQ(types.result, dtype::bool_);
    EXPECT_EQ(types.compute, dtype::int16);
    EXPECT_FALSE(types.signed_with_uint64);
}

TEST(Promotion, SignedAgainstUint64ComparesExactly) {
    for (auto [a, b] : {std::pair{dtype::int8, dtype::uint64}, std::pair{dtype::uint64, dtype::int64}}) {
        const auto types = resolve_binary(op::equal, typed(a), typed(b));
        EXPECT_TRUE(types.signed_with_uint64);
        EXPECT_EQ(types.compute, dtype::int64);
        EXPECT_EQ(types.result, dtype::bool_);
    }
    EXPECT_FALSE(resolve_binary(op::less, typed(dtype::uint32), typed(dtype::int64)).signed_with_uint64);
    EXPECT_FALSE(resolve_binary(op::less, typed(dtype::bool_), typed(dtype::uint64)).signed_with_uint64);
    EXPECT_FALSE(resolve_binary(op::subtract, typed(dtype::int8), typed(dtype::uint64)).signed_with_uint64);
}

TEST(Promotion, PythonScalarsAreWeak) {
    EXPECT_EQ(resolve_binary(op::add, typed(dtype::int8), python_integer(100)).result, dtype::int8);
    EXPECT_EQ(resolve_binary(op::add, python_integer(3), typed(dtype::uint16)).result, dtype::uint16);
    EXPECT_EQ(resolve_binary(op::add, typed(dtype::bool_), python_integer(1)).result, dtype::int64);
    EXPECT_EQ(resolve_binary(op::multiply, typed(dtype::int32), python_float).result, dtype::float64);
    EXPECT_EQ(resolve_binary(op::multiply, typed(dtype::float32), python_float).result, dtype::float32);
    EXPECT_EQ(resolve_binary(op::subtract, python_complex, typed(dtype::float32)).result, dtype::complex64);
    EXPECT_EQ(resolve_binary(op::subtract, typed(dtype::int8), python_complex).result, dtype::complex128);
    // Dividing converts the int to float64, so any int will do.
    EXPECT_EQ(resolve_binary(op::true_divide, typed(dtype::int8), python_integer(1000)).result, dtype::float64);
    EXPECT_EQ(resolve_binary(op::true_divide, python_beyond_64_bits(true), typed(dtype::uint8)).result, dtype::float64);
    EXPECT_EQ(resolve_binary(op::add, typed(dtype::float32), python_beyond_64_bits(false)).result, dtype::float32);
    auto types = resolve_binary(op::less, typed(dtype::int16), python_float);
    EXPECT_EQ(types.compute, dtype::float64);
    EXPECT_EQ(types.result, dtype::bool_);
}

TEST(Promotion, PythonIntsOutOfRangeOverflow) {
    expect_error<std::overflow_error>([] { resolve_binary(op::add, typed(dtype::uint8), python_integer(1000)); },
                                      "Python integer 1000 out of bounds for uint8");
    expect_error<std::overflow_error>([] { resolve_binary(op::power, python_integer(-1), typed(dtype::uint32)); },
                                      "Python integer -1 out of bounds for uint32");
    expect_error<std::overflow_error>([] { resolve_binary(op::subtract, typed(dtype::int8), python_integer(-129)); },
                                      "Python integer -129 out of bounds for int8");
    EXPECT_EQ(resolve_binary(op::subtract, typed(dtype::int8), python_integer(-128)).result, dtype::int8);
    // Beyond a C long numpy's conversion fails first (uint32 and uint64 go through an
    // unsigned long, which takes up to 2**64 - 1 and negative longs).
    const std::string too_large = "Python int too large to convert to C long";
    const operand two_to_63 = python_integer(false, 1ULL << 63), minus_two_to_63 = python_integer(true, 1ULL << 63);
    const operand two_to_64_minus_1 = python_integer(false, ~0ULL);
    expect_error<std::overflow_error>([&] { resolve_binary(op::add, typed(dtype::int64), two_to_63); }, too_large);
    expect_error<std::overflow_error>([&] { resolve_binary(op::add, typed(dtype::uint8), two_to_63); }, too_large);
    expect_error<std::overflow_error>([&] { resolve_binary(op::add, typed(dtype::uint32), two_to_64_minus_1); },
                                      "Python integer 18446744073709551615 out of bounds for uint32");
    expect_error<std::overflow_error>([&] { resolve_binary(op::add, typed(dtype::uint64), minus_two_to_63); },
                                      "Python integer -9223372036854775808 out of bounds for uint64");
    expect_error<std::overflow_error>(
        [&] { resolve_binary(op::add, typed(dtype::uint64), python_beyond_64_bits(false)); }, too_large);
    EXPECT_EQ(resolve_binary(op::add, typed(dtype::uint64), two_to_64_minus_1).result, dtype::uint64);
    // bool with an int computes in int64, comparisons too.
    expect_error<std::overflow_error>(
        [&] { resolve_binary(op::less, typed(dtype::bool_), python_beyond_64_bits(true)); }, too_large);
    EXPECT_EQ(resolve_binary(op::less, typed(dtype::bool_), python_integer(1000)).compute, dtype::int64);
}

TEST(Promotion, ComparisonsWithOutOfRangeIntsAreConstant) {
    // uint8_array < 1000: every element is below.
    auto types = resolve_binary(op::less, typed(dtype::uint8), python_integer(1000));
    EXPECT_EQ(types.result, dtype::bool_);
    EXPECT_EQ(types.constant, true);
    EXPECT_EQ(resolve_binary(op::greater_equal, typed(dtype::uint8), python_integer(1000)).constant, false);
    EXPECT_EQ(resolve_binary(op::equal, typed(dtype::uint8), python_integer(-1)).constant, false);
    EXPECT_EQ(resolve_binary(op::not_equal, typed(dtype::uint8), python_integer(-1)).constant, true);
    // -1 < uint8_array, and 2**64 > int8_array: the scalar on the left.
    EXPECT_EQ(resolve_binary(op::less, python_integer(-1), typed(dtype::uint8)).constant, true);
    EXPECT_EQ(resolve_binary(op::less_equal, python_beyond_64_bits(false), typed(dtype::int8)).constant, false);
    EXPECT_EQ(resolve_binary(op::greater, python_beyond_64_bits(false), typed(dtype::int64)).constant, true);
    EXPECT_EQ(resolve_binary(op::greater, typed(dtype::int64), python_integer(false, 1ULL << 63)).constant, false);
    // In range: computed, not constant.
    types = resolve_binary(op::less, typed(dtype::int8), python_integer(-128));
    EXPECT_EQ(types.constant, std::nullopt);
    EXPECT_EQ(types.compute, dtype::int8);
}

TEST(Promotion, NumpysOtherErrors) {
    expect_error<gpukit::type_error>(
        [] { resolve_binary(op::subtract, typed(dtype::bool_), typed(dtype::bool_)); },
        "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` operator, or the "
        "logical_xor function instead.");
    EXPECT_EQ(resolve_binary(op::subtract, typed(dtype::bool_), python_integer(1)).result, dtype::int64);
    expect_error<std::invalid_argument>([] { resolve_binary(op::power, typed(dtype::int16), python_integer(-1)); },
                                        "Integers to negative integer powers are not allowed.");
    expect_error<std::invalid_argument>([] { resolve_binary(op::power, typed(dtype::bool_), python_integer(-2)); },
                                        "Integers to negative integer powers are not allowed.");
    // Out of range is checked first; a negative base is fine.
    expect_error<std::overflow_error>([] { resolve_binary(op::power, typed(dtype::int8), python_integer(-1000)); },
                                      "Python integer -1000 out of bounds for int8");
    EXPECT_EQ(resolve_binary(op::power, python_integer(-2), typed(dtype::int8)).result, dtype::int8);
    EXPECT_EQ(resolve_binary(op::power, typed(dtype::float32), python_integer(-1)).result, dtype::float32);
    // ndarray ** 2 is numpy.square, whose bool loop is int8's; other exponents take power's int64.
    EXPECT_EQ(resolve_binary(op::power, typed(dtype::bool_), python_integer(2)).compute, dtype::int8);
    EXPECT_EQ(resolve_binary(op::power, typed(dtype::bool_), python_integer(3)).result, dtype::int64);
    EXPECT_EQ(resolve_binary(op::power, python_integer(2), typed(dtype::bool_)).result, dtype::int64);
    EXPECT_THROW(resolve_binary(op::add, python_integer(1), python_float), std::invalid_argument);
}

TEST(Promotion, ComplexNumbersOrderAndPower) {
    const binary_types less = resolve_binary(op::less, typed(dtype::complex64), python_float);
    EXPECT_EQ(less.compute, dtype::complex64);
    EXPECT_EQ(less.result, dtype::bool_);
    EXPECT_EQ(resolve_binary(op::power, typed(dtype::int8), python_complex).result, dtype::complex128);
    EXPECT_EQ(resolve_binary(op::greater_equal, typed(dtype::float32), python_complex).compute, dtype::complex64);
    EXPECT_EQ(resolve_binary(op::less, typed(dtype::complex128), typed(dtype::bool_)).compute, dtype::complex128);
    // A negative int exponent is refused for integer types only.
    EXPECT_EQ(resolve_binary(op::power, typed(dtype::complex64), python_integer(-3)).result, dtype::complex64);
    EXPECT_EQ(resolve_binary(op::equal, typed(dtype::complex64), typed(dtype::float64)).compute, dtype::complex128);
    EXPECT_EQ(resolve_binary(op::true_divide, typed(dtype::complex64), python_integer(3)).result, dtype::complex64);
}

// &, | and ^: numpy's integer and bool loops, none for floating or complex operands.
TEST(Promotion, BitwiseOperatorsTakeIntegersAndBools) {
    const std::string no_safe_cast =
        ", and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''";
    for (auto o : {op::bitwise_and, op::bitwise_or, op::bitwise_xor})
        EXPECT_EQ(binary_op_from_symbol(symbol(o)), o);
    EXPECT_EQ(symbol(op::bitwise_xor), "^");
    EXPECT_EQ(resolve_binary(op::bitwise_and, typed(dtype::bool_), typed(dtype::bool_)).result, dtype::bool_);
    EXPECT_EQ(resolve_binary(op::bitwise_or, typed(dtype::int8), typed(dtype::uint8)).result, dtype::int16);
    EXPECT_EQ(resolve_binary(op::bitwise_xor, typed(dtype::uint32), python_integer(255)).result, dtype::uint32);
    expect_error<gpukit::type_error>([] { resolve_binary(op::bitwise_and, typed(dtype::float32), typed(dtype::int8)); },
                                     "ufunc 'bitwise_and' not supported for the input types" + no_safe_cast);
    // uint64 with int64 is float64 for numpy: no loop.
    expect_error<gpukit::type_error>([] { resolve_binary(op::bitwise_or, typed(dtype::uint64), typed(dtype::int64)); },
                                     "ufunc 'bitwise_or' not supported for the input types" + no_safe_cast);
    expect_error<std::overflow_error>([] { resolve_binary(op::bitwise_xor, typed(dtype::int8), python_integer(300)); },
                                      "Python integer 300 out of bounds for int8");
    EXPECT_EQ(resolve_unary(unary_op::invert, dtype::uint16).result, dtype::uint16);
    expect_error<gpukit::type_error>([] { resolve_unary(unary_op::invert, dtype::complex64); },
                                     "ufunc 'invert' not supported for the input types" + no_safe_cast);
}

TEST(Promotion, FunctionsOfTwoOperands) {
    for (auto o : {op::minimum, op::maximum, op::logical_and, op::logical_or})
        EXPECT_EQ(binary_op_from_symbol(symbol(o)), o);
    EXPECT_EQ(symbol(op::logical_or), "logical_or");
    EXPECT_FALSE(is_comparison(op::maximum));
    // minimum and maximum type as arithmetic does, Python ints checked against the type.
    EXPECT_EQ(resolve_binary(op::maximum, typed(dtype::int64), typed(dtype::uint64)).result, dtype::float64);
    EXPECT_EQ(resolve_binary(op::minimum, typed(dtype::bool_), typed(dtype::bool_)).result, dtype::bool_);
    EXPECT_EQ(resolve_binary(op::minimum, python_integer(0), typed(dtype::float32)).result, dtype::float32);
    expect_error<std::overflow_error>([] { resolve_binary(op::minimum, typed(dtype::uint8), python_integer(1000)); },
                                      "Python integer 1000 out of bounds for uint8");
    // The logical functions test each operand for non-zero: any C long will do.
    const binary_types both = resolve_binary(op::logical_and, typed(dtype::uint8), python_integer(1000));
    EXPECT_EQ(both.compute, dtype::bool_);
    EXPECT_EQ(both.result, dtype::bool_);
    EXPECT_EQ(resolve_binary(op::logical_or, typed(dtype::float32), python_complex).compute, dtype::bool_);
    EXPECT_EQ(resolve_binary(op::logical_or, typed(dtype::int8), python_integer(true, std::uint64_t{1} << 63)).result,
              dtype::bool_);
    expect_error<std::overflow_error>(
        [] { resolve_binary(op::logical_and, typed(dtype::uint64), python_integer(false, std::uint64_t{1} << 63)); },
        "Python int too large to convert to C long");
    expect_error<std::overflow_error>(
        [] { resolve_binary(op::logical_or, python_beyond_64_bits(true), typed(dtype::int8)); },
        "Python int too large to convert to C long");
}

TEST(Promotion, ResultTypeOfWhere) {
    EXPECT_EQ(result_type(typed(dtype::uint8), typed(dtype::int8)), dtype::int16);
    EXPECT_EQ(result_type(typed(dtype::int8), python_integer(1000)), dtype::int8);
    EXPECT_EQ(result_type(python_float, typed(dtype::int32)), dtype::float64);
    EXPECT_EQ(result_type(typed(dtype::float32), python_complex), dtype::complex64);
    EXPECT_EQ(result_type(python_integer(5), python_float), dtype::float64);
    EXPECT_EQ(result_type(python_integer(5), python_integer(-1)), dtype::int64);
    EXPECT_EQ(result_type(typed(dtype::bool_), python_integer(5)), dtype::int64);
    // Python ints wrap into the type from -2**63 to 2**64 - 1.
    EXPECT_NO_THROW(check_wrapped(python_integer(false, ~std::uint64_t{0}).value));
    EXPECT_NO_THROW(check_wrapped(python_integer(true, std::uint64_t{1} << 63).value));
    EXPECT_THROW(check_wrapped(python_integer(true, (std::uint64_t{1} << 63) + 1).value), std::overflow_error);
    EXPECT_THROW(check_wrapped(python_beyond_64_bits(false).value), std::overflow_error);
}

TEST(Promotion, SameKindCastsAreNumpys) {
    EXPECT_TRUE(can_cast_same_kind(dtype::bool_, dtype::uint8));
    EXPECT_TRUE(can_cast_same_kind(dtype::uint64, dtype::int8));  // a higher kind, whatever the size
    EXPECT_TRUE(can_cast_same_kind(dtype::int64, dtype::int8));   // within a kind
    EXPECT_TRUE(can_cast_same_kind(dtype::float64, dtype::complex64));
    EXPECT_FALSE(can_cast_same_kind(dtype::int8, dtype::uint64));
    EXPECT_FALSE(can_cast_same_kind(dtype::float32, dtype::int64));
    EXPECT_FALSE(can_cast_same_kind(dtype::complex64, dtype::float64));
    EXPECT_NO_THROW(require_same_kind_output("add", dtype::float64, dtype::float32));
    try {
        require_same_kind_output("add", dtype::float64, dtype::int32);
        ADD_FAILURE() << "float64 written into int32";
    } catch (const gpukit::type_error& e) {
        EXPECT_STREQ(
            e.what(),
            "Cannot cast ufunc 'add' output from dtype('float64') to dtype('int32') with casting rule 'same_kind'");
    }
}

TEST(Promotion, WhereTypesItsChoicesAsNumpy) {
    const operand uint8_array{operand::kind::typed, dtype::uint8, {}};
    const operand minus_one{operand::kind::python_int, dtype::int64, {true, 1, false}};
    const operand half{operand::kind::python_float, dtype::float64, {}};
    EXPECT_EQ(select_type(uint8_array, minus_one), dtype::uint8);  // -1 wraps to 255, as numpy.where
    EXPECT_EQ(select_type(uint8_array, half), dtype::float64);
    EXPECT_EQ(select_type(half, half), dtype::float64);
    EXPECT_EQ(select_type({operand::kind::typed, dtype::float32, {}}, minus_one), dtype::float32);
    const operand huge{operand::kind::python_int, dtype::int64, {false, 0, true}};
    EXPECT_THROW(select_type(uint8_array, huge), std::overflow_error);
}

}  // namespace
