// Elementwise expressions over arrays and scalars, and the kernels that compute them.
//
// An expression is a list of steps in postfix order: `x + y` is (x, y, +); a fused
// `a * x + b` is (a, x, *, b, +). Each step is four bytes: what it is, its operator or
// operand number, the type of its value and the type its operator computes in. The steps
// alone name the kernel (operand values and addresses are arguments), so the kernels of
// all expressions are found by these few bytes: expression_kernel() makes each spec once
// and caches it (one crossing, no source text on the hot path).
//
// Types are decided before the steps are made (array/promotion.hpp); an expression only
// records them, and every step casts its operands to its compute type and its result to
// its value type, as separate numpy operations would.
#pragma once

#include "gpukit/array/dtype.hpp"
#include "gpukit/array/elementwise.hpp"
#include "gpukit/array/promotion.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gpukit::array {

// The operators of one operand an expression applies (numpy's unary ufuncs, and the cast).
enum class unary_op : std::uint8_t {
    negative,     // -x
    absolute,     // abs(x); of a complex number its magnitude, a real number
    cast,         // x converted to the step's type (astype, assignment between types)
    conjugate,    // the complex conjugate
    real,         // the real part of a complex number, a real number
    imag,         // the imaginary part of a complex number, a real number
    logical_not,  // !x, computed in bool
    invert,       // ~x of an integer; of a bool, !x (numpy's invert)
};

// The types of a unary operation, as numpy's ufuncs give them (resolve_unary).
struct unary_types {
    dtype compute;  // the type the operand is converted to
    dtype result;   // the result's type
};
// The types of `op` applied to an array of type `t`: abs of a complex number is real, and so
// are real and imag of one (of a real type they keep it); logical_not computes in and gives
// bool; the others keep t. type_error for numpy's refusal of the negative of a bool array;
// logic_error for cast, whose types are the caller's.
unary_types resolve_unary(unary_op op, dtype t);

// One step of an expression (see the top of this file): four bytes, so that an expression's
// steps are its kernel's cache key.
struct expression_step {
    // What a step is: an array or scalar operand, an operator of two or one operands, a
    // constant, or a select of three operands (condition, then, else), as numpy.where.
    enum class kind : std::uint8_t { array, scalar, binary, unary, constant, select };
    kind what;          // what the step is
    std::uint8_t code;  // binary_op (| exact_mixed_sign) or unary_op; the operand number of array and scalar
                        // steps (operand k is the kernel's parameter p<k>); 0 or 1 for a
                        // constant bool
    dtype type;         // the type of the step's value
    dtype compute;      // operators: the type their operands are converted to
};
static_assert(sizeof(expression_step) == 4, "steps are packed into cache keys byte by byte");

// Set in a binary step's code for a comparison of a signed integer with a uint64, made by value.
inline constexpr std::uint8_t exact_mixed_sign = 0x80;

// An elementwise expression over numbered operands (arrays and scalars): its steps in postfix
// order, with their types (see the top of this file). A value; equal key()s mean equal kernels.
class expression {
public:
    // The expression of array operand `number` alone: its element i, of type t.
    static expression array(int number, dtype t);
    // The expression of scalar operand `number` alone: a kernel parameter of type t, passed by
    // value.
    static expression scalar(int number, dtype t);
    // An expression whose every element is the bool `value` (a comparison numpy answers
    // from the types alone, such as uint8 < 1000).
    static expression constant(bool value);

    // `left <op> right`, computed in `compute`, of type `result`. Operand numbers are kept:
    // the caller numbers operands so that one array used twice has one number.
    static expression binary(binary_op op, const expression& left, const expression& right, dtype compute,
                             dtype result);
    // The expression of `left <op> right` with the types resolve_binary() gave (a comparison
    // of a signed type with uint64 is made exactly, by value; see binary_types).
    static expression binary(binary_op op, const expression& left, const expression& right, const binary_types& t);
    // `op(operand)`, computed in `compute`, of type `result`.
    static expression unary(unary_op op, const expression& operand, dtype compute, dtype result);
    // `condition ? then : otherwise` of type `result` (numpy.where): the condition is tested
    // for non-zero, the chosen value converted to `result`.
    static expression select(const expression& condition, const expression& then, const expression& otherwise,
                             dtype result);

    // The same expression with operand k renumbered numbers[k] (to merge the operands of
    // two expressions into one list).
    expression renumbered(const std::vector<int>& numbers) const;

    // The type of the expression's value: its last step's (the output array's type).
    dtype type() const noexcept;
    // The steps' bytes: equal keys mean equal kernels.
    std::string_view key() const noexcept { return steps_; }
    // The number of steps.
    std::size_t size() const noexcept { return steps_.size() / sizeof(expression_step); }
    // Step k (below size()), in postfix order: the steps, for reading.
    expression_step step(std::size_t k) const noexcept;
    // One more than the highest operand number (the kernel's operand parameters).
    int operand_count() const noexcept;

    // The C of element i in `language`: "p0[i] + p1" etc. (OpenCL C: its type names, and
    // per-type helpers for integer powers, minimum and maximum; complex numbers are CUDA's).
    std::string text(kernel_language language = kernel_language::cuda) const;

private:
    void push(expression_step s);

    std::string steps_;  // expression_step after expression_step
};

// The elementwise kernel computing `e` into an output array `z` of e.type(): parameters
// p0, p1, ... (operand k is an input array or a scalar, of the type its steps give) and z.
// Made on first use and kept for the life of the process; the cache is keyed by e.key()
// and thread safe. logic_error when an operand number is missing or used with two types.
// `language` OpenCL: the spec for an opencl_backend (run() there refuses complex elements).
const elementwise_spec& expression_kernel(const expression& e, kernel_language language = kernel_language::cuda);

}  // namespace gpukit::array
