#include "gpukit/array/expression.hpp"

#include "kernel_text.hpp"
#include "opencl_complex.hpp"

#include "gpukit/core/error.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

namespace gpukit::array {

namespace {

using detail::c_cast;
using detail::element_type;

// The integer power of gpukit's kernels (numpy's for integer types: repeated squaring, in
// the operands' type, wrapping on overflow). numpy refuses negative exponents; a Python int
// one is refused before the launch (resolve_binary), but finding one in an exponent array
// would cost a reduction and a wait, so there the result is 1 / base^-n truncated to an
// integer, as C's integer division gives it: 0 unless the base is 1 or -1.
constexpr const char* integer_power = R"(
template <class T> __device__ __forceinline__ T gk_ipow(T base, T exponent) {
    if constexpr (T(-1) < T(0)) {
        if (exponent < 0)
            return base == 1 ? T(1) : base == T(-1) ? T((exponent & 1) ? -1 : 1) : T(0);
    }
    T result = 1;
    for (; exponent > 0; exponent >>= 1, base *= base)
        if (exponent & 1) result *= base;
    return result;
}
)";

// numpy's ordering of complex numbers (by real part, then imaginary part; a NaN anywhere
// makes every ordering false), and numpy's minimum and maximum: a NaN operand wins (the first
// when both are), otherwise the second on a tie.
constexpr const char* ordering = R"(
template <class T> __device__ __forceinline__ bool gk_unordered(gk_complex<T> a, gk_complex<T> b) {
    return a.im != a.im || b.im != b.im;
}
template <class T> __device__ __forceinline__ bool operator<(gk_complex<T> a, gk_complex<T> b) {
    return (a.re < b.re && !gk_unordered(a, b)) || (a.re == b.re && a.im < b.im);
}
template <class T> __device__ __forceinline__ bool operator<=(gk_complex<T> a, gk_complex<T> b) {
    return (a.re < b.re && !gk_unordered(a, b)) || (a.re == b.re && a.im <= b.im);
}
template <class T> __device__ __forceinline__ bool operator>(gk_complex<T> a, gk_complex<T> b) {
    return (a.re > b.re && !gk_unordered(a, b)) || (a.re == b.re && a.im > b.im);
}
template <class T> __device__ __forceinline__ bool operator>=(gk_complex<T> a, gk_complex<T> b) {
    return (a.re > b.re && !gk_unordered(a, b)) || (a.re == b.re && a.im >= b.im);
}
template <class T> __device__ __forceinline__ T gk_maximum(T a, T b) { return (a > b || a != a) ? a : b; }
template <class T> __device__ __forceinline__ T gk_minimum(T a, T b) { return (a < b || a != a) ? a : b; }
template <class T> __device__ __forceinline__ gk_complex<T> gk_maximum(gk_complex<T> a, gk_complex<T> b) {
    return (a.re != a.re || a.im != a.im || a >= b) ? a : b;
}
template <class T> __device__ __forceinline__ gk_complex<T> gk_minimum(gk_complex<T> a, gk_complex<T> b) {
    return (a.re != a.re || a.im != a.im || a <= b) ? a : b;
}
)";

// numpy's complex power: a zero exponent gives 1 and a zero base 0 (NaN unless the exponent's
// real part is positive); whole exponents of magnitude below 100 multiply by repeated squaring
// (a negative one divides 1 by the result), others are exp(b log a), as the C library's cpow;
// complex64 is computed in double, more accurate than numpy's complex64 power.
constexpr const char* complex_power = R"(
template <class T> __device__ gk_complex<T> gk_cpow(gk_complex<T> a, gk_complex<T> b) {
    // complex64 through complex128: in float, exp(b log a) carries |b| times the rounding of
    // arg a into the phase (2e-5 relative at b = 100); in double the result is rounded once.
    if constexpr (sizeof(T) < sizeof(double))
        return gk_complex<T>(gk_cpow(gk_complex<double>(a), gk_complex<double>(b)));
    if (b.re == T(0) && b.im == T(0))
        return {T(1), T(0)};
    if (a.re == T(0) && a.im == T(0)) {
        if (b.re > T(0))
            return {T(0), T(0)};
        const T nan = T(0) / T(0);
        return {nan, nan};
    }
    const long long n = b.re > T(-100) && b.re < T(100) ? (long long)b.re : 0;
    if (b.im == T(0) && n != 0 && T(n) == b.re) {
        if (n == 1)
            return a;
        if (n == 2)
            return a * a;
        if (n == 3)
            return a * (a * a);
        const long long m = n < 0 ? -n : n;
        gk_complex<T> result{T(1), T(0)}, power = a;
        for (long long mask = 1;; mask <<= 1) {
            if (m & mask)
                result = result * power;
            if (m < (mask << 1))
                break;
            power = power * power;
        }
        return n < 0 ? gk_complex<T>{T(1), T(0)} / result : result;
    }
    const T log_abs = log(hypot(a.re, a.im)), arg = atan2(a.im, a.re);
    const T re = b.re * log_abs - b.im * arg, im = b.re * arg + b.im * log_abs;
    const T magnitude = exp(re);
    return {magnitude * cos(im), magnitude * sin(im)};
}
)";

// OpenCL C has no templates: its helpers are written per compute type, named gk_<helper>_<type>
// (numpy's integer power, minimum and maximum, with the semantics of the CUDA C ones above).
std::string opencl_integer_power(const std::string& t, bool is_signed) {
    std::string f = t + " gk_ipow_" + t + "(" + t + " base, " + t + " exponent) {\n";
    if (is_signed)
        f += "    if (exponent < 0)\n"
             "        return base == 1 ? (" +
             t + ")1 : base == (" + t + ")(-1) ? (" + t + ")((exponent & 1) ? -1 : 1) : (" + t + ")0;\n";
    f += "    " + t +
         " result = 1;\n"
         "    for (; exponent > 0; exponent >>= 1, base *= base)\n"
         "        if (exponent & 1) result *= base;\n"
         "    return result;\n}\n";
    return f;
}

std::string opencl_extremum(const std::string& t, bool is_min) {
    const std::string name = std::string(is_min ? "gk_minimum_" : "gk_maximum_") + t;
    return t + " " + name + "(" + t + " a, " + t + " b) { return (a " + (is_min ? "<" : ">") +
           " b || a != a) ? a : b; }\n";
}

// The kernel parameter of operand `code`: p0, p1, ... Built by appending: GCC 12 warns
// (-Wrestrict, a false positive) where a short literal is prepended to a temporary string.
std::string operand_name(int code) {
    std::string name = "p";
    name += std::to_string(code);
    return name;
}

// The OpenCL C name of `t`, for the names of per-type helpers (bool's: "bool").
std::string opencl_helper_suffix(dtype t) { return t == dtype::bool_ ? "bool" : std::string(opencl_element_type(t)); }

// A value of the expression being written out: its C text and its type.
struct value {
    std::string text;
    dtype type;
};

// `left <op> right` for a signed integer and a uint64, compared by value: a negative number
// is below every uint64, otherwise both compare as unsigned 64-bit numbers.
std::string mixed_sign_comparison(binary_op op, const value& left, const value& right, kernel_language language) {
    const bool signed_left = kind(left.type) == dtype_kind::signed_int;
    const std::string wide = element_type(dtype::int64, language), uwide = element_type(dtype::uint64, language);
    const std::string s = "((" + wide + ")(" + (signed_left ? left : right).text + "))";
    const std::string u = "((" + uwide + ")(" + (signed_left ? right : left).text + "))";
    const std::string l = signed_left ? "(" + uwide + ")" + s : u, r = signed_left ? u : "(" + uwide + ")" + s;
    const std::string compare = "(" + l + " " + std::string(symbol(op)) + " " + r + ")";
    // When the signed value is negative the answer is known: it is below the unsigned one.
    bool negative_answer = false;
    switch (op) {
    case binary_op::not_equal:
        negative_answer = true;
        break;
    case binary_op::less:
    case binary_op::less_equal:
        negative_answer = signed_left;
        break;
    case binary_op::greater:
    case binary_op::greater_equal:
        negative_answer = !signed_left;
        break;
    default:
        break;
    }
    return "(" + s + " < 0 ? " + (negative_answer ? "true" : "false") + " : " + compare + ")";
}

// A binary step of complex numbers in OpenCL C: calls of the type's helpers (opencl_complex.hpp).
std::string opencl_complex_binary_text(const expression_step& s, binary_op op, const value& left, const value& right) {
    using detail::opencl_complex_function, detail::opencl_convert;
    const std::string l = opencl_convert(s.compute, left.type, left.text);
    const std::string r = opencl_convert(s.compute, right.type, right.text);
    const auto call = [&](const char* operation) {
        return opencl_complex_function(s.compute, operation) + "(" + l + ", " + r + ")";
    };
    const auto complex_result = [&](const std::string& text) { return opencl_convert(s.type, s.compute, text); };
    const auto truth = [&](const std::string& text) { return opencl_convert(s.type, dtype::bool_, text); };
    const std::string nonzero = opencl_complex_function(s.compute, "nonzero");
    switch (op) {
    case binary_op::add:
        return complex_result(call("add"));
    case binary_op::subtract:
        return complex_result(call("sub"));
    case binary_op::multiply:
        return complex_result(call("mul"));
    case binary_op::true_divide:
        return complex_result(call("div"));
    case binary_op::power:
        return complex_result(call("pow"));
    case binary_op::minimum:
        return complex_result(call("min"));
    case binary_op::maximum:
        return complex_result(call("max"));
    case binary_op::equal:
        return truth(call("eq"));
    case binary_op::not_equal:
        return truth(call("ne"));
    case binary_op::less:
        return truth(call("lt"));
    case binary_op::less_equal:
        return truth(call("le"));
    case binary_op::greater:
        return truth(call("gt"));
    case binary_op::greater_equal:
        return truth(call("ge"));
    case binary_op::logical_and:
        return truth("(" + nonzero + "(" + l + ") && " + nonzero + "(" + r + "))");
    case binary_op::logical_or:
        return truth("(" + nonzero + "(" + l + ") || " + nonzero + "(" + r + "))");
    case binary_op::bitwise_and:
    case binary_op::bitwise_or:
    case binary_op::bitwise_xor:
        break;  // resolve_binary refuses complex operands first
    }
    throw logic_error("elementwise expression: an unknown operator");
}

std::string binary_text(const expression_step& s, const value& left, const value& right, kernel_language language) {
    const auto op = static_cast<binary_op>(s.code & ~exact_mixed_sign);
    if (s.code & exact_mixed_sign)
        return c_cast(s.type, mixed_sign_comparison(op, left, right, language), language);
    const bool cuda = language == kernel_language::cuda;
    if (!cuda && kind(s.compute) == dtype_kind::complex)
        return opencl_complex_binary_text(s, op, left, right);
    const std::string l = c_cast(s.compute, left.text, language), r = c_cast(s.compute, right.text, language);
    const auto call = [&](const std::string& function) {
        return c_cast(s.type, function + "(" + l + ", " + r + ")", language);
    };
    // OpenCL C's helpers are named per type (opencl_integer_power, opencl_extremum).
    const auto helper = [&](const std::string& function) {
        return cuda ? function : function + "_" + opencl_helper_suffix(s.compute);
    };
    switch (op) {
    case binary_op::power:
        switch (kind(s.compute)) {
        case dtype_kind::floating:
            return call(s.compute == dtype::float32 && cuda ? "powf" : "pow");
        case dtype_kind::complex:
            return call("gk_cpow");
        default:
            return call(helper("gk_ipow"));
        }
    case binary_op::minimum:
        return call(helper("gk_minimum"));
    case binary_op::maximum:
        return call(helper("gk_maximum"));
    case binary_op::logical_and:
        return c_cast(s.type, "(" + l + " && " + r + ")", language);
    case binary_op::logical_or:
        return c_cast(s.type, "(" + l + " || " + r + ")", language);
    default:
        return c_cast(s.type, "(" + l + " " + std::string(symbol(op)) + " " + r + ")", language);
    }
}

// A unary step in OpenCL C where a complex type takes part (opencl_complex.hpp's helpers).
std::string opencl_complex_unary_text(const expression_step& s, const value& operand) {
    using detail::opencl_complex_function, detail::opencl_convert;
    const std::string x = opencl_convert(s.compute, operand.type, operand.text);
    if (kind(s.compute) != dtype_kind::complex)  // a real value converted to a complex type
        return opencl_convert(s.type, s.compute, x);
    const dtype part = s.compute == dtype::complex64 ? dtype::float32 : dtype::float64;
    const auto call = [&](const char* operation) {
        return opencl_complex_function(s.compute, operation) + "(" + x + ")";
    };
    switch (static_cast<unary_op>(s.code)) {
    case unary_op::negative:
        return opencl_convert(s.type, s.compute, call("neg"));
    case unary_op::absolute:
        return opencl_convert(s.type, part, call("abs"));
    case unary_op::cast:
        return opencl_convert(s.type, s.compute, x);
    case unary_op::conjugate:
        return opencl_convert(s.type, s.compute, call("conj"));
    case unary_op::real:
        return opencl_convert(s.type, part, "(" + x + ").real");
    case unary_op::imag:
        return opencl_convert(s.type, part, "(" + x + ").imag");
    case unary_op::logical_not:
        return opencl_convert(s.type, dtype::bool_, "(!" + call("nonzero") + ")");
    case unary_op::invert:
        break;  // resolve_unary refuses complex operands first
    }
    throw logic_error("elementwise expression: an unknown unary operation");
}

std::string unary_text(const expression_step& s, const value& operand_value, kernel_language language) {
    if (language == kernel_language::opencl &&
        (kind(s.compute) == dtype_kind::complex || kind(s.type) == dtype_kind::complex ||
         kind(operand_value.type) == dtype_kind::complex))
        return opencl_complex_unary_text(s, operand_value);
    const std::string& operand = operand_value.text;
    const auto convert = [language](dtype t, const std::string& value) { return detail::c_cast(t, value, language); };
    const std::string x = convert(s.compute, operand);
    switch (static_cast<unary_op>(s.code)) {
    case unary_op::negative:
        return convert(s.type, "(-" + x + ")");
    case unary_op::absolute:
        switch (kind(s.compute)) {
        case dtype_kind::complex:
            return convert(s.type, "abs(" + x + ")");  // the magnitude (kernel_text.hpp)
        case dtype_kind::floating:                     // not x < 0 ? -x : x, which keeps -0.0; numpy gives 0.0
            return convert(s.type,
                           std::string(s.compute == dtype::float32 && language == kernel_language::cuda ? "fabsf("
                                                                                                        : "fabs(") +
                               x + ")");
        case dtype_kind::signed_int:
            return convert(s.type, "(" + x + " < 0 ? -" + x + " : " + x + ")");
        default:
            return convert(s.type, x);
        }
    case unary_op::cast:
        return convert(s.type, x);
    // conj, real and imag of gk_complex (kernel_text.hpp); a real number is its own conjugate
    // and real part.
    case unary_op::conjugate:
        return convert(s.type, kind(s.compute) == dtype_kind::complex ? "conj(" + x + ")" : x);
    case unary_op::real:
        return convert(s.type, kind(s.compute) == dtype_kind::complex ? "real(" + x + ")" : x);
    case unary_op::imag:
        return convert(s.type, kind(s.compute) == dtype_kind::complex ? "imag(" + x + ")" : "0");
    case unary_op::logical_not:
        return convert(s.type, "(!" + x + ")");
    case unary_op::invert:
        return convert(s.type, s.compute == dtype::bool_ ? "(!" + x + ")" : "(~" + x + ")");
    }
    return x;
}

// The helper functions the kernel of `e` calls, for its preamble.
std::string preamble_of(const expression& e, kernel_language language) {
    if (language == kernel_language::opencl) {
        // Each helper once per compute type it is used with.
        std::string text;
        std::vector<std::string> written;
        const auto add = [&](const std::string& name, const std::string& function) {
            if (std::find(written.begin(), written.end(), name) == written.end()) {
                written.push_back(name);
                text += function;
            }
        };
        // The complex types' helpers first.
        for (std::size_t k = 0; k < e.size(); ++k)
            if (kind(e.step(k).type) == dtype_kind::complex || kind(e.step(k).compute) == dtype_kind::complex) {
                add("complex", detail::opencl_complex_library());
                break;
            }
        for (std::size_t k = 0; k < e.size(); ++k) {
            const expression_step s = e.step(k);
            if (s.what != expression_step::kind::binary || kind(s.compute) == dtype_kind::complex)
                continue;
            const auto op = static_cast<binary_op>(s.code & ~exact_mixed_sign);
            const std::string t = opencl_helper_suffix(s.compute);
            if (op == binary_op::power && kind(s.compute) != dtype_kind::floating)
                add("gk_ipow_" + t, opencl_integer_power(t, kind(s.compute) == dtype_kind::signed_int));
            if (op == binary_op::minimum || op == binary_op::maximum)
                add(std::string(op == binary_op::minimum ? "gk_minimum_" : "gk_maximum_") + t,
                    opencl_extremum(t, op == binary_op::minimum));
        }
        return text;
    }
    bool integer_pow = false, complex_pow = false, ordered = false;
    for (std::size_t k = 0; k < e.size(); ++k) {
        const expression_step s = e.step(k);
        if (s.what != expression_step::kind::binary)
            continue;
        const auto op = static_cast<binary_op>(s.code & ~exact_mixed_sign);
        const bool complex = kind(s.compute) == dtype_kind::complex;
        if (op == binary_op::power) {
            complex_pow = complex_pow || complex;
            integer_pow = integer_pow || (!complex && kind(s.compute) != dtype_kind::floating);
        }
        const bool ordering_of_complex =
            complex && is_comparison(op) && op != binary_op::equal && op != binary_op::not_equal;
        ordered = ordered || ordering_of_complex || op == binary_op::minimum || op == binary_op::maximum;
    }
    return std::string(integer_pow ? integer_power : "") + (complex_pow ? complex_power : "") +
           (ordered ? ordering : "");
}

}  // namespace

namespace {

std::uint8_t operand_number(int number) {
    if (number < 0 || number > 254)
        throw logic_error("elementwise expression: operand numbers go from 0 to 254, got " + std::to_string(number));
    return static_cast<std::uint8_t>(number);
}

}  // namespace

expression expression::array(int number, dtype t) {
    expression e;
    e.push({expression_step::kind::array, operand_number(number), t, t});
    return e;
}

expression expression::scalar(int number, dtype t) {
    expression e;
    e.push({expression_step::kind::scalar, operand_number(number), t, t});
    return e;
}

expression expression::constant(bool value) {
    expression e;
    e.push({expression_step::kind::constant, static_cast<std::uint8_t>(value), dtype::bool_, dtype::bool_});
    return e;
}

expression expression::binary(binary_op op, const expression& left, const expression& right, dtype compute,
                              dtype result) {
    expression e;
    e.steps_ = left.steps_ + right.steps_;
    e.push({expression_step::kind::binary, static_cast<std::uint8_t>(op), result, compute});
    return e;
}

expression expression::binary(binary_op op, const expression& left, const expression& right, const binary_types& t) {
    expression e = binary(op, left, right, t.compute, t.result);
    if (t.signed_with_uint64) {
        expression_step s = e.step(e.size() - 1);
        s.code |= exact_mixed_sign;
        std::memcpy(e.steps_.data() + e.steps_.size() - sizeof s, &s, sizeof s);
    }
    return e;
}

unary_types resolve_unary(unary_op op, dtype t) {
    const dtype part = t == dtype::complex64 ? dtype::float32 : t == dtype::complex128 ? dtype::float64 : t;
    switch (op) {
    case unary_op::negative:
        if (t == dtype::bool_)
            throw type_error(
                "The numpy boolean negative, the `-` operator, is not supported, use the `~` operator "
                "or the logical_not function instead.");
        return {t, t};
    case unary_op::absolute:
    case unary_op::real:
    case unary_op::imag:
        return {t, part};
    case unary_op::conjugate:
        return {t, t};
    case unary_op::logical_not:
        return {dtype::bool_, dtype::bool_};
    case unary_op::invert:
        if (kind(t) == dtype_kind::floating || kind(t) == dtype_kind::complex)
            throw type_error(
                "ufunc 'invert' not supported for the input types, and the inputs could not be safely "
                "coerced to any supported types according to the casting rule ''safe''");
        return {t, t};
    case unary_op::cast:
        break;
    }
    throw logic_error("resolve_unary: a cast's types are the caller's");
}

expression expression::unary(unary_op op, const expression& operand, dtype compute, dtype result) {
    expression e;
    e.steps_ = operand.steps_;
    e.push({expression_step::kind::unary, static_cast<std::uint8_t>(op), result, compute});
    return e;
}

expression expression::select(const expression& condition, const expression& then, const expression& otherwise,
                              dtype result) {
    expression e;
    e.steps_ = condition.steps_ + then.steps_ + otherwise.steps_;
    e.push({expression_step::kind::select, 0, result, result});
    return e;
}

expression expression::renumbered(const std::vector<int>& numbers) const {
    expression e;
    for (std::size_t k = 0; k < size(); ++k) {
        expression_step s = step(k);
        if (s.what == expression_step::kind::array || s.what == expression_step::kind::scalar) {
            if (s.code >= numbers.size())
                throw logic_error("elementwise expression: no new number for operand " + std::to_string(s.code));
            s.code = operand_number(numbers[s.code]);
        }
        e.push(s);
    }
    return e;
}

void expression::push(expression_step s) { steps_.append(reinterpret_cast<const char*>(&s), sizeof s); }

expression_step expression::step(std::size_t k) const noexcept {
    expression_step s;
    std::memcpy(&s, steps_.data() + k * sizeof s, sizeof s);
    return s;
}

dtype expression::type() const noexcept { return step(size() - 1).type; }

int expression::operand_count() const noexcept {
    int count = 0;
    for (std::size_t k = 0; k < size(); ++k) {
        const expression_step s = step(k);
        if (s.what == expression_step::kind::array || s.what == expression_step::kind::scalar)
            count = std::max(count, s.code + 1);
    }
    return count;
}

std::string expression::text(kernel_language language) const {
    std::vector<value> stack;
    for (std::size_t k = 0; k < size(); ++k) {
        const expression_step s = step(k);
        switch (s.what) {
        case expression_step::kind::array:
            stack.push_back({operand_name(s.code) + "[i]", s.type});
            break;
        case expression_step::kind::scalar:
            stack.push_back({operand_name(s.code), s.type});
            break;
        case expression_step::kind::constant:
            stack.push_back({s.code ? "true" : "false", s.type});
            break;
        case expression_step::kind::unary:
            stack.back() = {unary_text(s, stack.back(), language), s.type};
            break;
        case expression_step::kind::binary: {
            if (stack.size() < 2)
                throw logic_error("elementwise expression: an operator lacks an operand");
            value right = std::move(stack.back());
            stack.pop_back();
            stack.back() = {binary_text(s, stack.back(), right, language), s.type};
            break;
        }
        case expression_step::kind::select: {
            if (stack.size() < 3)
                throw logic_error("elementwise expression: a selection lacks an operand");
            const value otherwise = std::move(stack.back());
            stack.pop_back();
            const value then = std::move(stack.back());
            stack.pop_back();
            std::string selection = "(";                // appended to, for GCC 12 (operand_name says why)
            if (language == kernel_language::opencl) {  // complex types convert by helpers there
                selection += detail::opencl_convert(dtype::bool_, stack.back().type, stack.back().text) + " ? " +
                             detail::opencl_convert(s.type, then.type, then.text) + " : " +
                             detail::opencl_convert(s.type, otherwise.type, otherwise.text) + ")";
                stack.back() = {kind(s.type) == dtype_kind::complex ? selection : c_cast(s.type, selection, language),
                                s.type};
                break;
            }
            selection += c_cast(dtype::bool_, stack.back().text, language) + " ? " +
                         c_cast(s.type, then.text, language) + " : " + c_cast(s.type, otherwise.text, language) + ")";
            stack.back() = {c_cast(s.type, selection, language), s.type};
            break;
        }
        }
    }
    if (stack.size() != 1)
        throw logic_error("elementwise expression: " + std::to_string(stack.size()) + " values left, expected one");
    return stack.back().text;
}

namespace {

elementwise_spec make_spec(const expression& e, kernel_language language) {
    const int count = e.operand_count();
    std::vector<std::optional<param>> operands(static_cast<std::size_t>(count));
    for (std::size_t k = 0; k < e.size(); ++k) {
        const expression_step s = e.step(k);
        if (s.what != expression_step::kind::array && s.what != expression_step::kind::scalar)
            continue;
        const param p{operand_name(s.code), s.type,
                      s.what == expression_step::kind::array ? param_kind::input : param_kind::scalar};
        auto& slot = operands[s.code];
        if (slot && (slot->type != p.type || slot->kind != p.kind))
            throw logic_error("elementwise expression: operand " + std::to_string(s.code) + " has two types");
        slot = p;
    }
    std::vector<param> params;
    for (int k = 0; k < count; ++k) {
        if (!operands[k])
            throw logic_error("elementwise expression: operand " + std::to_string(k) + " is not used");
        params.push_back(*operands[k]);
    }
    params.push_back({"z", e.type(), param_kind::output});
    return elementwise_spec("gk_expression", std::move(params), "z[i] = " + e.text(language), preamble_of(e, language));
}

// Lets the cache be searched by a string_view, without making a string per lookup.
struct key_hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view k) const noexcept { return std::hash<std::string_view>{}(k); }
};

}  // namespace

const elementwise_spec& expression_kernel(const expression& e, kernel_language language) {
    using spec_map =
        std::unordered_map<std::string, std::unique_ptr<const elementwise_spec>, key_hash, std::equal_to<>>;
    static std::mutex mutex;
    static spec_map cuda_specs, opencl_specs;
    spec_map& specs = language == kernel_language::cuda ? cuda_specs : opencl_specs;
    std::lock_guard lock(mutex);
    auto found = specs.find(e.key());
    if (found == specs.end())
        found =
            specs.emplace(std::string(e.key()), std::make_unique<const elementwise_spec>(make_spec(e, language))).first;
    return *found->second;
}

}  // namespace gpukit::array
