// The types of a binary operator's result and computation, as numpy 2 gives them: one table
// of operators (their symbols and which ufunc loop numpy picks for each kind of type), numpy's
// type promotion (dtype.hpp) with NEP 50 for Python scalars, and numpy's checks of Python
// integers. resolve_binary allocates nothing unless it throws (a few table lookups and
// branches), so operators may call it each time. A cache keyed by (operator, operand types,
// scalar kind) is right for arrays and Python floats and complex numbers, not for Python ints,
// whose value decides range errors, constant comparisons, negative powers and bool ** 2.
//
// Errors (Python sees the exception in parentheses), each with numpy's message:
//   gpukit::type_error    (TypeError)      no loop for the types (bool - bool)
//   std::overflow_error   (OverflowError)  a Python int that the operation's integer type
//                                           cannot hold ("Python integer 1000 out of bounds
//                                           for uint8"), or one beyond a C long where numpy
//                                           converts it to one (logical_and, where)
//   std::invalid_argument (ValueError)     an integer raised to a negative Python int; two
//                                           Python scalars (one operand must be typed)
#pragma once

#include "gpukit/array/dtype.hpp"

#include <cstdint>
#include <optional>
#include <string_view>

namespace gpukit::array {

// The operators of the table. New ones (floor_divide, remainder, bitwise, ...) are one entry
// each in promotion.cpp's table. Complex numbers are ordered as numpy orders them: by real
// part, then imaginary part (a NaN in either operand makes every ordering false).
enum class binary_op : std::uint8_t {
    add,
    subtract,
    multiply,
    true_divide,
    power,
    equal,
    not_equal,
    less,
    less_equal,
    greater,
    greater_equal,
    // numpy's functions of two arrays: minimum and maximum propagate NaN; logical_and and
    // logical_or test each operand for non-zero and give bool.
    minimum,
    maximum,
    logical_and,
    logical_or,
    // Integers and bool only, as numpy's.
    bitwise_and,
    bitwise_or,
    bitwise_xor,
};

// Python's operator: "+", "-", "*", "/", "**", "==", "!=", "<", "<=", ">", ">=", "&", "|", "^"; the
// function's name for the others ("minimum", "logical_and", ...).
std::string_view symbol(binary_op op) noexcept;
// Whether the result is bool (==, !=, <, <=, >, >=).
bool is_comparison(binary_op op) noexcept;
// The operator written as `s` (symbol()'s inverse), or nullopt.
std::optional<binary_op> binary_op_from_symbol(std::string_view s) noexcept;

// A Python int's value as far as type resolution needs it: its sign and magnitude, or only
// its sign when the magnitude is 2**64 or more. Zero is not negative.
struct python_int {
    bool negative = false;        // whether the value is below zero
    std::uint64_t magnitude = 0;  // the absolute value, when below 2^64
    bool beyond_64_bits = false;  // whether the absolute value is 2^64 or more (magnitude unused)
};

// An operand: an array or numpy scalar of a dtype ("strong"), or a Python scalar ("weak",
// NEP 50), which adopts the other operand's type unless its kind is higher. A Python bool
// is a strong bool: the caller passes it as `typed` with dtype::bool_.
struct operand {
    // What the operand is: typed (an array or a numpy scalar), or a Python int, float or complex.
    enum class kind : std::uint8_t { typed, python_int, python_float, python_complex };
    // Which of those this operand is.
    kind k = kind::typed;
    dtype type{};        // for `typed`
    python_int value{};  // for `python_int`
};

// The types of `a op b` that resolve_binary() gives: the result's, the one it is computed in,
// and numpy's two exceptions for comparisons.
struct binary_types {
    dtype result;   // the result array's dtype
    dtype compute;  // both operands are converted to this before the operation, except when
                    // signed_with_uint64 is set
    // Comparisons with a Python int outside the range of the integer array's type: every
    // element's answer (numpy 2 compares the values exactly; uint8_array < 1000 is all true).
    std::optional<bool> constant;
    // A comparison of a signed integer type with uint64, which numpy makes exactly (its
    // int64-with-uint64 loops) rather than in float64: the signed operand is converted to
    // `compute` (int64), the uint64 one is left as it is, and the two are compared by value
    // (a negative number is below every uint64).
    bool signed_with_uint64 = false;
};

// `a op b` as numpy 2.4's ndarray operators type it (with their one quirk: bool_array ** 2
// is numpy.square, int8, where other exponents give int64). The Python scalar may be on
// either side (a reflected operator passes it as `a`). numpy raises "Integers to negative
// integer powers are not allowed." from its loop, so not for an empty array; here it is
// raised for every array. A Python int beyond float64's range meets a float type only when
// the scalar is converted for the kernel (Python's float() raises OverflowError then, as
// numpy does).
binary_types resolve_binary(binary_op op, const operand& a, const operand& b);

// numpy.result_type of two operands, as numpy.where types its two choices: numpy's promotion
// with NEP 50 for a Python scalar; two Python scalars promote their default types (int64,
// float64, complex128). A Python int is then converted as check_wrapped() allows.
dtype result_type(const operand& a, const operand& b) noexcept;
// numpy.where's result type of its two choices (result_type), a Python int among them
// checked as check_wrapped() allows (std::overflow_error beyond).
dtype select_type(const operand& then, const operand& otherwise);

// numpy.can_cast(from, to, casting="same_kind"): any cast within a kind or to a higher kind
// (bool < unsigned < signed < floating < complex), the rule for writing an operation's result
// into an existing array (out=, +=).
bool can_cast_same_kind(dtype from, dtype to) noexcept;
// type_error, worded as numpy's, unless a result of `from` may be written into an array of
// `to` (can_cast_same_kind); `what` names the operation ("add", "+").
void require_same_kind_output(std::string_view what, dtype from, dtype to);

// numpy.where's conversion of a Python int to an integer type: any value a C long or unsigned
// long holds (-2**63 to 2**64 - 1), wrapped into the type (where(c, uint8_array, -1) gives
// 255); std::overflow_error beyond.
void check_wrapped(const python_int& v);
// numpy's conversion of a Python int to integer type `t` (an assignment, a fill): through a C
// long or unsigned long, then into t; std::overflow_error, worded as numpy's, where it fails.
void check_conversion(const python_int& v, dtype t);

}  // namespace gpukit::array
