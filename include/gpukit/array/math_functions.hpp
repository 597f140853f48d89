// PyCUDA's cumath functions as elementwise kernels (gpukit.cumath runs them).
//
// Each (function, operand types) has one elementwise_spec, made on first use and kept for the
// life of the process, so a call finds its compiled kernels by the spec's key. Parameters:
// the inputs x (and y), then the outputs z (and w), in numpy's result types:
//  - float32 and float64 keep their type; bool and integers up to 16 bits give float32
//    (numpy gives float16 for bool and 8-bit integers: gpukit has no float16), wider ones
//    float64; complex types keep theirs. ceil and floor of bool and integers return them
//    unchanged, in their own type, as numpy 2 does.
//  - fmod(x, y): numpy's promotion of the two (bool with bool gives int8); integers take C's
//    remainder (the sign of x), 0 for a zero divisor as numpy gives.
//  - ldexp(x, y): x's floating type; y may be bool, an integer or, as PyCUDA allows, a float
//    (truncated toward zero; NaN gives NaN). Exponents beyond +-100000 act as +-100000.
//  - frexp(x) = (significand, exponent) and modf(x) = (fractional part, integral part), both
//    in x's floating type (PyCUDA's exponents are floats too; numpy's are int32).
// Real functions call CUDA's maths library (float32: the f-suffixed functions, except tan and
// sinh, computed in double because CUDA's tanf and sinhf may be 3 to 4 ulp off); complex ones
// the functions of complex_math.cuh (complex64 through complex128, rounded once).
#pragma once

#include "gpukit/array/dtype.hpp"
#include "gpukit/array/elementwise.hpp"

#include <cstdint>
#include <optional>
#include <string_view>

namespace gpukit::array {

// The functions of the elements math_spec makes kernels of (PyCUDA's cumath, numpy's ufuncs).
enum class math_function : std::uint8_t {
    // z = f(x)
    fabs,
    ceil,
    floor,
    exp,
    log,
    log10,
    sqrt,
    sin,
    cos,
    tan,
    asin,
    acos,
    atan,
    sinh,
    cosh,
    tanh,
    // z = f(x, y)
    fmod,
    ldexp,
    // (z, w) = f(x)
    frexp,
    modf,
};
// How many math_functions there are: each is below this as a number.
inline constexpr int math_function_count = 20;

// PyCUDA's name of the function ("fabs", "sin", ...).
std::string_view name(math_function f) noexcept;
// How many arrays its kernel reads: 2 for fmod and ldexp (x, y), else 1 (x).
int input_count(math_function f) noexcept;
// How many arrays its kernel writes: 2 for frexp and modf (z, w), else 1 (z).
int output_count(math_function f) noexcept;

// The kernel of `f` for inputs of types x (and y, for fmod and ldexp). type_error where numpy
// has no loop for the types (fabs, ceil, floor, fmod, ldexp, frexp and modf of complex
// numbers; a complex exponent); logic_error when y is given to a function of one input or
// missing for one of two. `language` OpenCL gives the kernel in OpenCL C (its overloaded
// functions; float32 tan and sinh in float, where CUDA C computes them in double; complex
// ones through complex_math.cuh as in CUDA C, on devices with double precision: elsewhere
// their kernel's build fails with a message that says so).
const elementwise_spec& math_spec(math_function f, dtype x, std::optional<dtype> y = std::nullopt,
                                  kernel_language language = kernel_language::cuda);

}  // namespace gpukit::array
