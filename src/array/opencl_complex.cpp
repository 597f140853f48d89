#include "opencl_complex.hpp"

#include "gpukit/core/error.hpp"

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

}  // namespace

const std::string& opencl_complex_library() {
    // complex_math.cuh first, where the device has double precision (opencl_complex.h then
    // skips its #include of it, which an embedded text could not follow).
    static const std::string text = std::string(
                                        "#if defined(cl_khr_fp64) || defined(__opencl_c_fp64)\n"
                                        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n") +
#include "gpukit/array/complex_math.inc"
                                    +std::string("\n#endif\n") +
#include "gpukit/array/opencl_complex.inc"
        ;
    return text;
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
