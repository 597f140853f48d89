// A compile request from the fields gpukit.compiler passes (shared by the compile bindings
// and ElementwiseKernel's).
#pragma once

#include "gpukit/rtc/compiler.hpp"

#include <string>
#include <vector>

namespace gpukit::python {

// compiler: "nvrtc" or "nvcc" (ValueError otherwise); nvcc: the nvcc to run when compiler
// is "nvcc".
rtc::compile_request make_compile_request(std::string source, std::vector<std::string> options, std::string arch,
                                          std::vector<std::string> include_dirs, bool no_extern_c,
                                          const std::string& compiler, std::string nvcc, bool keep);

}  // namespace gpukit::python
