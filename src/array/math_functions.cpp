#include "gpukit/array/math_functions.hpp"

#include "kernel_text.hpp"

#include "gpukit/core/error.hpp"

#include <array>
#include <memory>
#include <mutex>
#include <string>

namespace gpukit::array {

namespace {

using detail::c_cast;
using detail::element_type;

// The complex functions (the device header gpukit/complex_math.cuh, embedded by the build),
// and the conversions between its gk_cvalue and the kernels' gk_complex.
const std::string& complex_math_source() {
    static const std::string source = std::string(
#include "gpukit/array/complex_math.inc"
                                          ) +
                                      R"(
template <class T> __device__ __forceinline__ gk_cvalue gk_cvalue_of(gk_complex<T> z) { return gk_cvalue(z.re, z.im); }
template <class T> __device__ __forceinline__ gk_complex<T> gk_complex_of(gk_cvalue z) { return gk_complex<T>(T(z.re), T(z.im)); }
)";
    return source;
}

// ldexp's exponent as an int: integers and truncated floats, clamped to +-100000 (beyond
// +-2100 every finite nonzero result is 0 or infinite already).
constexpr const char* exponent_source = R"(
__device__ __forceinline__ int gk_exponent(long long e) { return e < -100000 ? -100000 : e > 100000 ? 100000 : (int)e; }
__device__ __forceinline__ int gk_exponent(unsigned long long e) { return e > 100000 ? 100000 : (int)e; }
__device__ __forceinline__ int gk_exponent(double e) { return e < -100000 ? -100000 : e > 100000 ? 100000 : (int)e; }
)";

// Integer fmod as numpy's: C's remainder (the sign of a); 0 for a zero divisor, and for -1,
// where the most negative value's remainder would overflow.
constexpr const char* integer_fmod_source = R"(
template <class T> __device__ __forceinline__ T gk_fmod(T a, T b) {
    if (b == 0 || (T(-1) < T(0) && b == T(-1)))
        return 0;
    return a % b;
}
)";

// The preamble of OpenCL C's complex functions: they compute in double.
constexpr const char* opencl_needs_double = R"gk(
#if !defined(cl_khr_fp64) && !defined(__opencl_c_fp64)
#error "gpukit: the complex math functions compute in double precision, which this OpenCL device lacks (no cl_khr_fp64)"
#endif
)gk";

struct function_info {
    std::string_view name;
    const char* float32;  // CUDA's function for float arguments, nullptr: computed in double
    const char* float64;  // for double arguments
    const char* complex;  // complex_math.cuh's function, nullptr where numpy has none
};

// CUDA's tanf and sinhf may be 4 and 3 ulp off: float32 tan and sinh are computed in double
// and rounded once. ldexp, frexp and modf are written out in their own specs.
constexpr std::array<function_info, math_function_count> functions{{
    {"fabs", "fabsf", "fabs", nullptr},    {"ceil", "ceilf", "ceil", nullptr},
    {"floor", "floorf", "floor", nullptr}, {"exp", "expf", "exp", "gk_cexp"},
    {"log", "logf", "log", "gk_clog"},     {"log10", "log10f", "log10", "gk_clog10"},
    {"sqrt", "sqrtf", "sqrt", "gk_csqrt"}, {"sin", "sinf", "sin", "gk_csin"},
    {"cos", "cosf", "cos", "gk_ccos"},     {"tan", nullptr, "tan", "gk_ctan"},
    {"asin", "asinf", "asin", "gk_casin"}, {"acos", "acosf", "acos", "gk_cacos"},
    {"atan", "atanf", "atan", "gk_catan"}, {"sinh", nullptr, "sinh", "gk_csinh"},
    {"cosh", "coshf", "cosh", "gk_ccosh"}, {"tanh", "tanhf", "tanh", "gk_ctanh"},
    {"fmod", "fmodf", "fmod", nullptr},    {"ldexp", "ldexpf", "ldexp", nullptr},
    {"frexp", "frexpf", "frexp", nullptr}, {"modf", "modff", "modf", nullptr},
}};

const function_info& info(math_function f) noexcept { return functions[static_cast<std::size_t>(f)]; }

bool is_real_float(dtype t) noexcept { return kind(t) == dtype_kind::floating; }
bool is_complex(dtype t) noexcept { return kind(t) == dtype_kind::complex; }
bool is_integer_or_bool(dtype t) noexcept { return !is_real_float(t) && !is_complex(t); }

// The floating type numpy computes a real argument's function in (float16 becoming float32).
dtype floating_type_of(dtype t) noexcept {
    if (is_real_float(t))
        return t;
    return size_of(t) <= 2 ? dtype::float32 : dtype::float64;
}

// The C of real function `f` of `arguments` (of type r, float32 or float64). OpenCL C's
// functions are overloaded for float and double, so they go by the double name, in r.
std::string real_call(math_function f, dtype r, const std::string& arguments, kernel_language language) {
    const function_info& fi = info(f);
    if (r == dtype::float64 || language == kernel_language::opencl)
        return std::string(fi.float64) + "(" + arguments + ")";
    if (fi.float32)
        return std::string(fi.float32) + "(" + arguments + ")";
    return "(float)" + std::string(fi.float64) + "((double)" + arguments + ")";
}

[[noreturn]] void no_loop(math_function f, dtype x, const char* what) {
    throw type_error(std::string(name(f)) + " is not supported for " + std::string(name(x)) + " (" + what + ")");
}

std::string kernel_name(math_function f, dtype x, std::optional<dtype> y) {
    std::string n = "cumath_";
    n += name(f);
    n += '_';
    n += name(x);
    if (y) {
        n += '_';
        n += name(*y);
    }
    return n;
}

param input(const char* n, dtype t) { return {n, t, param_kind::input}; }
param output(const char* n, dtype t) { return {n, t, param_kind::output}; }

elementwise_spec unary_spec(math_function f, dtype x, kernel_language language) {
    const function_info& fi = info(f);
    const std::string n = kernel_name(f, x, std::nullopt);
    if (is_complex(x)) {
        if (!fi.complex)
            no_loop(f, x, "numpy has no complex loop for it");
        // complex64 goes through the complex128 function and is rounded once. OpenCL C's
        // kernels of complex arguments carry the complex library (opencl_complex.h), which has
        // complex_math.cuh's functions where the device has double precision.
        if (language == kernel_language::opencl) {
            const std::string type = x == dtype::complex128 ? "gk_cdouble" : "gk_cfloat";
            const std::string value = type + "_of_cvalue(" + fi.complex + "(" + type + "_to_cvalue(x[i])))";
            return {n, {input("x", x), output("z", x)}, "z[i] = " + value, opencl_needs_double};
        }
        const std::string part = x == dtype::complex128 ? "double" : "float";
        const std::string value = "gk_complex_of<" + part + ">(" + fi.complex + "(gk_cvalue_of(x[i])))";
        return {n, {input("x", x), output("z", x)}, "z[i] = " + value, complex_math_source()};
    }
    if ((f == math_function::ceil || f == math_function::floor) && is_integer_or_bool(x))
        return {n, {input("x", x), output("z", x)}, "z[i] = x[i]"};  // numpy 2: integers are their own ceil
    const dtype r = floating_type_of(x);
    return {n, {input("x", x), output("z", r)}, "z[i] = " + real_call(f, r, c_cast(r, "x[i]", language), language)};
}

elementwise_spec two_output_spec(math_function f, dtype x, kernel_language language) {
    if (is_complex(x))
        no_loop(f, x, "numpy has no complex loop for it");
    const dtype r = floating_type_of(x);
    const std::string v = c_cast(r, "x[i]", language);
    const std::string operation =
        f == math_function::frexp
            ? "int gk_e; z[i] = " + real_call(f, r, v + ", &gk_e", language) + "; w[i] = " + c_cast(r, "gk_e", language)
            : element_type(r, language) + " gk_whole; z[i] = " + real_call(f, r, v + ", &gk_whole", language) +
                  "; w[i] = gk_whole";
    return {kernel_name(f, x, std::nullopt), {input("x", x), output("z", r), output("w", r)}, operation};
}

// OpenCL C's integer fmod of type t (gk_fmod_<t>), as integer_fmod_source's.
std::string opencl_integer_fmod(const std::string& t, bool is_signed) {
    return t + " gk_fmod_" + t + "(" + t + " a, " + t + " b) {\n    if (b == 0" + (is_signed ? " || b == -1" : "") +
           ")\n        return 0;\n    return a % b;\n}\n";
}

elementwise_spec fmod_spec(dtype x, dtype y, kernel_language language) {
    dtype t = promote(x, y);
    if (is_complex(t))
        no_loop(math_function::fmod, t, "numpy has no complex loop for it");
    if (t == dtype::bool_)
        t = dtype::int8;  // numpy's fmod has no bool loop: bool operands go to int8
    const std::string n = kernel_name(math_function::fmod, x, y);
    const std::vector<param> params{input("x", x), input("y", y), output("z", t)};
    const std::string a = c_cast(t, "x[i]", language), b = c_cast(t, "y[i]", language);
    if (is_real_float(t))
        return {n, params, "z[i] = " + real_call(math_function::fmod, t, a + ", " + b, language)};
    if (language == kernel_language::opencl) {
        const std::string type = element_type(t, language);
        return {n, params, "z[i] = gk_fmod_" + type + "(" + a + ", " + b + ")",
                opencl_integer_fmod(type, kind(t) == dtype_kind::signed_int)};
    }
    return {n, params, "z[i] = gk_fmod(" + a + ", " + b + ")", integer_fmod_source};
}

// OpenCL C's gk_exponent for an exponent of OpenCL C type t, as exponent_source's.
std::string opencl_exponent(const std::string& t, bool is_unsigned) {
    return "int gk_exponent(" + t + " e) { return " + (is_unsigned ? "" : "e < -100000 ? -100000 : ") +
           "e > 100000 ? 100000 : (int)e; }\n";
}

elementwise_spec ldexp_spec(dtype x, dtype y, kernel_language language) {
    if (is_complex(x))
        no_loop(math_function::ldexp, x, "numpy has no complex loop for it");
    if (is_complex(y))
        no_loop(math_function::ldexp, y, "the exponent must be an integer or a real number");
    const dtype r = floating_type_of(x);
    const std::string significand = c_cast(r, "x[i]", language);
    const bool cuda = language == kernel_language::cuda;
    std::string operation;
    std::string preamble = exponent_source;
    if (is_real_float(y)) {  // PyCUDA's float exponents: truncated; NaN gives NaN
        // OpenCL C: the exponent stays in its own type, which may lack double.
        const std::string exponent = cuda ? "(double)y[i]" : "y[i]";
        operation = "z[i] = isnan(" + exponent + ") ? " + c_cast(r, cuda ? "nan(\"\")" : "NAN", language) + " : " +
                    real_call(math_function::ldexp, r, significand + ", gk_exponent(" + exponent + ")", language);
        if (!cuda)
            preamble = opencl_exponent(element_type(y, language), false);
    } else {
        const bool is_unsigned = kind(y) == dtype_kind::unsigned_int;
        const dtype wide = is_unsigned ? dtype::uint64 : dtype::int64;
        operation =
            "z[i] = " + real_call(math_function::ldexp, r,
                                  significand + ", gk_exponent((" + element_type(wide, language) + ")y[i])", language);
        if (!cuda)
            preamble = opencl_exponent(element_type(wide, language), is_unsigned);
    }
    return {kernel_name(math_function::ldexp, x, y),
            {input("x", x), input("y", y), output("z", r)},
            operation,
            preamble};
}

elementwise_spec make_spec(math_function f, dtype x, std::optional<dtype> y, kernel_language language) {
    switch (f) {
    case math_function::fmod:
        return fmod_spec(x, *y, language);
    case math_function::ldexp:
        return ldexp_spec(x, *y, language);
    case math_function::frexp:
    case math_function::modf:
        return two_output_spec(f, x, language);
    default:
        return unary_spec(f, x, language);
    }
}

}  // namespace

std::string_view name(math_function f) noexcept { return info(f).name; }

int input_count(math_function f) noexcept { return f == math_function::fmod || f == math_function::ldexp ? 2 : 1; }

int output_count(math_function f) noexcept { return f == math_function::frexp || f == math_function::modf ? 2 : 1; }

const elementwise_spec& math_spec(math_function f, dtype x, std::optional<dtype> y, kernel_language language) {
    if (static_cast<int>(f) >= math_function_count)
        throw logic_error("math_spec: unknown function " + std::to_string(static_cast<int>(f)));
    if ((input_count(f) == 2) != y.has_value())
        throw logic_error(std::string(name(f)) + (y ? " takes one array" : " takes two arrays"));
    // One slot per (function, x, y or none); a spec that cannot be made (type_error) is not
    // stored and is refused again on the next call.
    constexpr std::size_t types = 13;
    static std::mutex mutex;
    constexpr std::size_t per_language = math_function_count * types * (types + 1);
    static std::array<std::unique_ptr<const elementwise_spec>, 2 * per_language> specs;
    const std::size_t slot = (language == kernel_language::cuda ? 0 : per_language) +
                             (static_cast<std::size_t>(f) * types + static_cast<std::size_t>(x)) * (types + 1) +
                             (y ? static_cast<std::size_t>(*y) + 1 : 0);
    std::lock_guard lock(mutex);
    if (!specs[slot])
        specs[slot] = std::make_unique<const elementwise_spec>(make_spec(f, x, y, language));
    return *specs[slot];
}

}  // namespace gpukit::array
