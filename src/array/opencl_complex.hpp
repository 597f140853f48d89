// Complex numbers in the engine's OpenCL C kernels. OpenCL C has no complex type and no
// operator overloading, so complex64 and complex128 elements are PyOpenCL's cfloat_t and
// cdouble_t (a union of {x, y} and {real, imag}, the layout of numpy's complex types) and every
// operation is a function, gk_<type>_<operation>, with the numerics of the CUDA kernels'
// gk_complex (kernel_text.hpp): Smith's division, numpy's ordering, minimum and maximum,
// hypot for the magnitude, numpy's power.
#pragma once

#include "gpukit/array/dtype.hpp"

#include <string>

namespace gpukit::array::detail {

// The OpenCL C type and helpers of complex type `t` (complex64 or complex128), guarded so that
// a kernel may include them more than once. complex64's power is computed in double where the
// device has it (as the CUDA kernels compute it). The caller enables cl_khr_fp64 for complex128.
std::string opencl_complex_library(dtype t);

// The helper of complex type `t` for `operation` ("add", "mul", "eq", "pow", ...):
// "gk_cfloat_add".
std::string opencl_complex_function(dtype t, const char* operation);

// `value` (OpenCL C text of type `from`) converted to `to` as numpy converts (C-style between
// real types; a real number becomes the real part; a complex number gives its real part to a
// real type and "non-zero" to bool). OpenCL C casts to union types do not exist: these are
// calls of the helpers above where a complex type takes part.
std::string opencl_convert(dtype to, dtype from, const std::string& value);

}  // namespace gpukit::array::detail
