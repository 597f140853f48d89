#include "opencl_complex.hpp"

#include "gpukit/core/error.hpp"

#include <cctype>

namespace gpukit::array::detail {

namespace {

struct complex_names {
    std::string prefix;  // gk_cfloat
    std::string type;    // cfloat_t
    std::string part;    // float
};

complex_names names_of(dtype t) {
    if (t == dtype::complex64)
        return {"gk_cfloat", "cfloat_t", "float"};
    if (t == dtype::complex128)
        return {"gk_cdouble", "cdouble_t", "double"};
    throw logic_error("opencl_complex: " + std::string(name(t)) + " is not a complex type");
}

// The helpers of one complex type, in OpenCL C, written with P (the prefix), C (the type) and
// T (the part's type) substituted.
constexpr const char* helpers = R"(
typedef union { struct { T x, y; }; struct { T real, imag; }; } C;
inline C P_new(T re, T im) { C z; z.real = re; z.imag = im; return z; }
inline C P_add(C a, C b) { return P_new(a.real + b.real, a.imag + b.imag); }
inline C P_sub(C a, C b) { return P_new(a.real - b.real, a.imag - b.imag); }
inline C P_mul(C a, C b) { return P_new(a.real * b.real - a.imag * b.imag, a.real * b.imag + a.imag * b.real); }
inline C P_div(C a, C b) {
    if (fabs(b.real) >= fabs(b.imag)) {
        if (b.real == (T)0 && b.imag == (T)0)
            return P_new(a.real / fabs(b.real), a.imag / fabs(b.imag));
        const T r = b.imag / b.real, d = b.real + b.imag * r;
        return P_new((a.real + a.imag * r) / d, (a.imag - a.real * r) / d);
    }
    const T r = b.real / b.imag, d = b.real * r + b.imag;
    return P_new((a.real * r + a.imag) / d, (a.imag * r - a.real) / d);
}
inline C P_neg(C a) { return P_new(-a.real, -a.imag); }
inline C P_conj(C a) { return P_new(a.real, -a.imag); }
inline T P_abs(C a) { return hypot(a.real, a.imag); }
inline int P_nonzero(C a) { return a.real != (T)0 || a.imag != (T)0; }
inline int P_eq(C a, C b) { return a.real == b.real && a.imag == b.imag; }
inline int P_ne(C a, C b) { return !P_eq(a, b); }
inline int P_unordered(C a, C b) { return a.imag != a.imag || b.imag != b.imag; }
inline int P_lt(C a, C b) { return (a.real < b.real && !P_unordered(a, b)) || (a.real == b.real && a.imag < b.imag); }
inline int P_le(C a, C b) { return (a.real < b.real && !P_unordered(a, b)) || (a.real == b.real && a.imag <= b.imag); }
inline int P_gt(C a, C b) { return (a.real > b.real && !P_unordered(a, b)) || (a.real == b.real && a.imag > b.imag); }
inline int P_ge(C a, C b) { return (a.real > b.real && !P_unordered(a, b)) || (a.real == b.real && a.imag >= b.imag); }
inline C P_max(C a, C b) { return (a.real != a.real || a.imag != a.imag || P_ge(a, b)) ? a : b; }
inline C P_min(C a, C b) { return (a.real != a.real || a.imag != a.imag || P_le(a, b)) ? a : b; }
inline C P_pow_here(C a, C b) {
    if (b.real == (T)0 && b.imag == (T)0)
        return P_new(1, 0);
    if (a.real == (T)0 && a.imag == (T)0) {
        if (b.real > (T)0)
            return P_new(0, 0);
        const T nan = (T)0 / (T)0;
        return P_new(nan, nan);
    }
    const long n = b.real > (T)-100 && b.real < (T)100 ? (long)b.real : 0;
    if (b.imag == (T)0 && n != 0 && (T)n == b.real) {
        if (n == 1)
            return a;
        if (n == 2)
            return P_mul(a, a);
        if (n == 3)
            return P_mul(a, P_mul(a, a));
        const long m = n < 0 ? -n : n;
        C result = P_new(1, 0), power = a;
        for (long mask = 1;; mask <<= 1) {
            if (m & mask)
                result = P_mul(result, power);
            if (m < (mask << 1))
                break;
            power = P_mul(power, power);
        }
        return n < 0 ? P_div(P_new(1, 0), result) : result;
    }
    const T log_abs = log(hypot(a.real, a.imag)), arg = atan2(a.imag, a.real);
    const T re = b.real * log_abs - b.imag * arg, im = b.real * arg + b.imag * log_abs;
    const T magnitude = exp(re);
    return P_new(magnitude * cos(im), magnitude * sin(im));
}
)";

std::string substituted(const char* text, const complex_names& n) {
    std::string out;
    for (const char* p = text; *p; ++p) {
        // P, C and T stand alone or before '_' (P_add): never inside another word.
        const bool alone = (p == text || !(std::isalnum(static_cast<unsigned char>(p[-1])) || p[-1] == '_')) &&
                           !(std::isalnum(static_cast<unsigned char>(p[1])));
        if (alone && *p == 'P')
            out += n.prefix;
        else if (alone && *p == 'C' && p[1] != '_')
            out += n.type;
        else if (alone && *p == 'T' && p[1] != '_')
            out += n.part;
        else
            out += *p;
    }
    return out;
}

}  // namespace

std::string opencl_complex_library(dtype t) {
    const complex_names n = names_of(t);
    const std::string guard = "GK_" + n.type + "_DEFINED";
    std::string text = "#ifndef " + guard + "\n#define " + guard + "\n" + substituted(helpers, n);
    if (t == dtype::complex64) {
        // As the CUDA kernels: complex64's power through complex128 where the device has
        // double precision (exp(b log a) in float carries |b| times arg a's rounding).
        text += "#ifdef cl_khr_fp64\n#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" +
                opencl_complex_library(dtype::complex128) +
                "inline cfloat_t gk_cfloat_pow(cfloat_t a, cfloat_t b) {\n"
                "    const cdouble_t r = gk_cdouble_pow(gk_cdouble_new(a.real, a.imag), gk_cdouble_new(b.real, b.imag));\n"
                "    return gk_cfloat_new((float)r.real, (float)r.imag);\n}\n"
                "#else\ninline cfloat_t gk_cfloat_pow(cfloat_t a, cfloat_t b) { return gk_cfloat_pow_here(a, b); }\n"
                "#endif\n";
    } else {
        text += "inline cdouble_t gk_cdouble_pow(cdouble_t a, cdouble_t b) { return gk_cdouble_pow_here(a, b); }\n"
                // Conversions between the widths, where complex64's library came first.
                "#ifdef GK_cfloat_t_DEFINED\n"
                "inline cdouble_t gk_cdouble_from_cfloat_t(cfloat_t a) { return gk_cdouble_new(a.real, a.imag); }\n"
                "inline cfloat_t gk_cfloat_from_cdouble_t(cdouble_t a) {\n"
                "    return gk_cfloat_new((float)a.real, (float)a.imag);\n}\n"
                "#endif\n";
    }
    return text + "#endif\n";
}

std::string opencl_complex_function(dtype t, const char* operation) { return names_of(t).prefix + "_" + operation; }

std::string opencl_convert(dtype to, dtype from, const std::string& value) {
    const bool to_complex = kind(to) == dtype_kind::complex, from_complex = kind(from) == dtype_kind::complex;
    if (to == from && to_complex)
        return value;
    const auto real_cast = [](dtype t, const std::string& v) {
        return "((" + std::string(t == dtype::bool_ ? "bool" : opencl_element_type(t)) + ")(" + v + "))";
    };
    if (!to_complex && !from_complex)
        return real_cast(to, value);
    if (!to_complex)  // numpy: bool is "non-zero", a real type takes the real part
        return to == dtype::bool_ ? real_cast(to, opencl_complex_function(from, "nonzero") + "(" + value + ")")
                                  : real_cast(to, "(" + value + ").real");
    const complex_names n = names_of(to);
    if (!from_complex)
        return n.prefix + "_new((" + n.part + ")(" + value + "), 0)";
    // Between the two widths: the value read once, by a helper (opencl_complex_library's
    // complex128 part follows complex64's, so both types exist where such a conversion does).
    return n.prefix + "_from_" + names_of(from).type + "(" + value + ")";
}

}  // namespace gpukit::array::detail
