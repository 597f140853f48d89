#include "gpukit/array/promotion.hpp"

#include "gpukit/core/error.hpp"

#include <array>
#include <limits>
#include <stdexcept>
#include <string>

namespace gpukit::array {
namespace {

// Which of its loops numpy's ufunc runs once the operands' common type is known, by the
// kind of that type (numpy's `ufunc.types` lists them).
enum class loop : std::uint8_t {
    same,     // a loop for the common type itself
    int8,     // no bool loop: numpy takes the first one bool casts to safely, int8's
    float64,  // no integer loops: numpy divides integers in double
    none,     // no loop: numpy raises TypeError (the entry's message)
    boolean,  // each operand tested for non-zero: numpy's logical functions
};

struct op_entry {
    binary_op op;
    std::string_view symbol;
    // Indexed by dtype_kind: boolean, signed_int, unsigned_int, floating, complex.
    std::array<loop, 5> loops;
    // Comparisons only (the result is bool): the answer when the left operand is below,
    // equal to or above the right one.
    std::optional<std::array<bool, 3>> answers;
    std::string_view no_loop_message = {};
};

using enum loop;
// numpy's refusal of a bitwise operation of floating or complex operands.
#define GK_NO_BITWISE_LOOP(name)                                                          \
    "ufunc '" name                                                                        \
    "' not supported for the input types, and the inputs could not be safely coerced to " \
    "any supported types according to the casting rule ''safe''"

constexpr std::array<op_entry, 18> operator_table{{
    {binary_op::add, "+", {same, same, same, same, same}, std::nullopt},
    {binary_op::subtract,
     "-",
     {none, same, same, same, same},
     std::nullopt,
     "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` operator, or the "
     "logical_xor function instead."},
    {binary_op::multiply, "*", {same, same, same, same, same}, std::nullopt},
    {binary_op::true_divide, "/", {float64, float64, float64, same, same}, std::nullopt},
    {binary_op::power, "**", {int8, same, same, same, same}, std::nullopt},
    {binary_op::equal, "==", {same, same, same, same, same}, std::array{false, true, false}},
    {binary_op::not_equal, "!=", {same, same, same, same, same}, std::array{true, false, true}},
    {binary_op::less, "<", {same, same, same, same, same}, std::array{true, false, false}},
    {binary_op::less_equal, "<=", {same, same, same, same, same}, std::array{true, true, false}},
    {binary_op::greater, ">", {same, same, same, same, same}, std::array{false, false, true}},
    {binary_op::greater_equal, ">=", {same, same, same, same, same}, std::array{false, true, true}},
    {binary_op::minimum, "minimum", {same, same, same, same, same}, std::nullopt},
    {binary_op::maximum, "maximum", {same, same, same, same, same}, std::nullopt},
    {binary_op::logical_and, "logical_and", {boolean, boolean, boolean, boolean, boolean}, std::nullopt},
    {binary_op::logical_or, "logical_or", {boolean, boolean, boolean, boolean, boolean}, std::nullopt},
    {binary_op::bitwise_and, "&", {same, same, same, none, none}, std::nullopt, GK_NO_BITWISE_LOOP("bitwise_and")},
    {binary_op::bitwise_or, "|", {same, same, same, none, none}, std::nullopt, GK_NO_BITWISE_LOOP("bitwise_or")},
    {binary_op::bitwise_xor, "^", {same, same, same, none, none}, std::nullopt, GK_NO_BITWISE_LOOP("bitwise_xor")},
}};
#undef GK_NO_BITWISE_LOOP

constexpr bool table_in_enum_order() {
    for (std::size_t k = 0; k < operator_table.size(); ++k)
        if (static_cast<std::size_t>(operator_table[k].op) != k)
            return false;
    return true;
}
static_assert(table_in_enum_order(), "the operator table is indexed by binary_op");

const op_entry& entry(binary_op op) noexcept { return operator_table[static_cast<std::size_t>(op)]; }

bool is_integer(dtype t) noexcept { return kind(t) == dtype_kind::signed_int || kind(t) == dtype_kind::unsigned_int; }

python_scalar scalar_kind(operand::kind k) noexcept {
    switch (k) {
    case operand::kind::python_float:
        return python_scalar::floating;
    case operand::kind::python_complex:
        return python_scalar::complex;
    default:
        return python_scalar::integer;
    }
}

constexpr std::uint64_t two_to_63 = std::uint64_t{1} << 63;

// Whether integer type `t` holds `v`.
bool holds(dtype t, const python_int& v) noexcept {
    if (v.beyond_64_bits)
        return false;
    const unsigned bits = 8 * static_cast<unsigned>(size_of(t));
    if (kind(t) == dtype_kind::unsigned_int)
        return !v.negative && (bits == 64 || v.magnitude < std::uint64_t{1} << bits);
    const std::uint64_t half = std::uint64_t{1} << (bits - 1);  // |min|; max is half - 1
    return v.negative ? v.magnitude <= half : v.magnitude < half;
}

std::string text(const python_int& v) { return (v.negative ? "-" : "") + std::to_string(v.magnitude); }

// Whether numpy's conversion of a Python int to a C long succeeds.
bool fits_c_long(const python_int& v) noexcept {
    return !v.beyond_64_bits && (v.negative ? v.magnitude <= two_to_63 : v.magnitude < two_to_63);
}

// Every element's answer to a comparison of an integer array with a Python int its type
// cannot hold, which lies beyond all of the type's values on the side of its sign.
bool constant_answer(const op_entry& e, const python_int& v, bool scalar_on_left) noexcept {
    const bool scalar_above = !v.negative;
    const bool left_below = scalar_on_left ? !scalar_above : scalar_above;
    return (*e.answers)[left_below ? 0 : 2];
}

}  // namespace

// numpy converts a Python int to integer type `t` through a C long, or for uint32 and uint64
// a C unsigned long (which takes negative longs too) (on LP64 systems), then checks that the
// value fits `t`; each step has its own OverflowError.
void check_conversion(const python_int& v, dtype t) {
    const bool through_unsigned_long = kind(t) == dtype_kind::unsigned_int && size_of(t) >= 4;
    const bool fits_c_type = fits_c_long(v) || (through_unsigned_long && !v.beyond_64_bits && !v.negative);
    if (!fits_c_type)
        throw std::overflow_error("Python int too large to convert to C long");
    if (!holds(t, v))
        throw std::overflow_error("Python integer " + text(v) + " out of bounds for " + std::string(name(t)));
}

std::string_view symbol(binary_op op) noexcept { return entry(op).symbol; }

bool is_comparison(binary_op op) noexcept { return entry(op).answers.has_value(); }

std::optional<binary_op> binary_op_from_symbol(std::string_view s) noexcept {
    for (const op_entry& e : operator_table)
        if (e.symbol == s)
            return e.op;
    return std::nullopt;
}

binary_types resolve_binary(binary_op op, const operand& a, const operand& b) {
    const op_entry& e = entry(op);
    const bool a_typed = a.k == operand::kind::typed, b_typed = b.k == operand::kind::typed;
    if (!a_typed && !b_typed)
        throw std::invalid_argument(std::string("resolve_binary: ") + std::string(e.symbol) +
                                    " of two Python scalars; one operand must be an array or numpy scalar");

    // The common type: numpy's promotion, where a Python scalar adopts the typed operand's type
    // unless its kind is higher (NEP 50).
    const operand& typed = a_typed ? a : b;
    const operand& other = a_typed ? b : a;
    const dtype common =
        a_typed && b_typed ? promote(a.type, b.type) : promote_with_scalar(typed.type, scalar_kind(other.k));

    binary_types types{common, common, std::nullopt, false};
    switch (e.loops[static_cast<std::size_t>(kind(common))]) {
    case loop::same:
        break;
    case loop::int8:
        types.compute = dtype::int8;
        break;
    case loop::float64:
        types.compute = dtype::float64;
        break;
    case loop::none:
        throw type_error(std::string(e.no_loop_message));
    case loop::boolean:
        // numpy tests a Python scalar's own value for non-zero (logical_and(float32_array,
        // 1e-50) is true where the array is), an int only if it is a C long.
        if (other.k == operand::kind::python_int && !fits_c_long(other.value))
            throw std::overflow_error("Python int too large to convert to C long");
        types.compute = dtype::bool_;
        break;
    }
    types.result = e.answers ? dtype::bool_ : types.compute;

    if (a_typed && b_typed) {
        // numpy compares a signed integer with a uint64 in its mixed loops, exactly.
        const bool signed_a = kind(a.type) == dtype_kind::signed_int, signed_b = kind(b.type) == dtype_kind::signed_int;
        if (e.answers && signed_a != signed_b && (signed_a ? b.type : a.type) == dtype::uint64) {
            types.compute = dtype::int64;
            types.signed_with_uint64 = true;
        }
        return types;
    }
    if (other.k != operand::kind::python_int || !is_integer(types.compute))
        return types;  // a Python float or complex, or an int converted to a float type: no checks
    const python_int& value = other.value;
    // numpy 2 compares an integer array with any Python int by value: one out of the array
    // type's range gives every element the same answer.
    if (e.answers && is_integer(typed.type) && !holds(typed.type, value)) {
        types.constant = constant_answer(e, value, !a_typed);
        return types;
    }
    check_conversion(value, types.compute);
    if (op == binary_op::power && a_typed) {  // the int is the exponent
        if (value.negative)
            throw std::invalid_argument("Integers to negative integer powers are not allowed.");
        // numpy's ndarray ** 2 is numpy.square, whose bool loop is int8's (numpy.power's is int64's).
        if (a.type == dtype::bool_ && value.magnitude == 2)
            types.result = types.compute = dtype::int8;
    }
    return types;
}

dtype result_type(const operand& a, const operand& b) noexcept {
    const auto default_type = [](const operand& o) {
        switch (o.k) {
        case operand::kind::typed:
            return o.type;
        case operand::kind::python_int:
            return dtype::int64;
        case operand::kind::python_float:
            return dtype::float64;
        case operand::kind::python_complex:
            return dtype::complex128;
        }
        return o.type;
    };
    const bool a_typed = a.k == operand::kind::typed, b_typed = b.k == operand::kind::typed;
    if (a_typed == b_typed)
        return promote(default_type(a), default_type(b));
    const operand& typed = a_typed ? a : b;
    return promote_with_scalar(typed.type, scalar_kind((a_typed ? b : a).k));
}

void check_wrapped(const python_int& v) {
    if (v.beyond_64_bits || (v.negative && v.magnitude > two_to_63))
        throw std::overflow_error("Python int too large to convert to C long");
}

dtype select_type(const operand& then, const operand& otherwise) {
    const dtype type = result_type(then, otherwise);
    for (const operand* o : {&then, &otherwise})
        if (o->k == operand::kind::python_int)
            check_wrapped(o->value);
    return type;
}

bool can_cast_same_kind(dtype from, dtype to) noexcept {
    const auto rank = [](dtype t) {
        switch (kind(t)) {
        case dtype_kind::boolean:
            return 0;
        case dtype_kind::unsigned_int:
            return 1;
        case dtype_kind::signed_int:
            return 2;
        case dtype_kind::floating:
            return 3;
        case dtype_kind::complex:
            return 4;
        }
        return 5;
    };
    return rank(from) <= rank(to);
}

void require_same_kind_output(std::string_view what, dtype from, dtype to) {
    if (!can_cast_same_kind(from, to))
        throw type_error("Cannot cast ufunc '" + std::string(what) + "' output from dtype('" + std::string(name(from)) +
                         "') to dtype('" + std::string(name(to)) + "') with casting rule 'same_kind'");
}

}  // namespace gpukit::array
