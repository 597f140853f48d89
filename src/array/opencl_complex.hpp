// Complex numbers in the engine's OpenCL C kernels: the library of python/gpukit/include/
// gpukit/opencl_complex.h (complex64 and complex128 as PyOpenCL's cfloat_t and cdouble_t, every
// operation a function gk_<type>_<operation> with the numerics of the CUDA kernels'
// gk_complex), embedded by the build with complex_math.cuh's elementary functions.
#pragma once

#include "gpukit/array/dtype.hpp"

#include <string>

namespace gpukit::array::detail {

// The library's OpenCL C text: cfloat_t, and cdouble_t where the device has double precision,
// guarded so that a kernel may include it more than once.
const std::string& opencl_complex_library();

// The helper of complex type `t` for `operation` ("add", "mul", "eq", "pow", ...):
// "gk_cfloat_add".
std::string opencl_complex_function(dtype t, const char* operation);

// `value` (OpenCL C text of type `from`) converted to `to` as numpy converts (C-style between
// real types; a real number becomes the real part; a complex number gives its real part to a
// real type and "non-zero" to bool). OpenCL C casts to union types do not exist: these are
// calls of the helpers above where a complex type takes part.
std::string opencl_convert(dtype to, dtype from, const std::string& value);

}  // namespace gpukit::array::detail
