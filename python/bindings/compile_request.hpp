// A compile request from the fields gpukit.compiler passes (shared by the compile bindings
// and ElementwiseKernel's).
#pragma once

#include "gpukit/rtc/compiler.hpp"

#include <string>
#include <vector>

namespace gpukit::python {

// compiler: "automatic", "nvrtc" or "nvcc"; nvcc: the nvcc to run when it is used; output:
// "cubin", "ptx" or "fatbin". Bad names raise as rtc's name parsers do.
rtc::compile_request make_compile_request(std::string source, std::vector<std::string> options, std::string arch,
                                          std::vector<std::string> include_dirs,
                                          std::vector<std::string> system_include_dirs, bool no_extern_c,
                                          const std::string& compiler, std::string nvcc, const std::string& output,
                                          bool keep);

}  // namespace gpukit::python
