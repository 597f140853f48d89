// A compile request from the fields gpukit.compiler passes (shared by the compile bindings
// and ElementwiseKernel's).
#pragma once

#include "common/path_args.hpp"

#include "gpukit/rtc/compiler.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpukit::python {

// compiler: "automatic", "nvrtc" or "nvcc"; nvcc: the nvcc to run when it is used; output:
// "cubin", "ptx" or "fatbin". Bad names raise as rtc's name parsers do.
rtc::compile_request make_compile_request(std::string source, std::vector<std::string> options, std::string arch,
                                          std::vector<std::string> include_dirs,
                                          std::vector<std::string> system_include_dirs, bool no_extern_c,
                                          const std::string& compiler, std::string nvcc, const std::string& output,
                                          bool keep);

// The request of a generated kernel (ElementwiseKernel, ReductionKernel, the scan kernels):
// a cubin, no `extern "C"`, its source filled in later by the kernel's spec. `kernel` names the
// class in the errors of a bad path.
rtc::compile_request generated_kernel_request(std::vector<std::string> options, std::string arch,
                                              const path_list_arg& include_dirs,
                                              const path_list_arg& system_include_dirs, const std::string& compiler,
                                              const path_arg& nvcc, std::string_view kernel);

// The compile cache directory a kernel was given, None (the default cache) as nullopt.
std::optional<std::filesystem::path> cache_dir_path(const path_arg& cache_dir, std::string_view kernel);

}  // namespace gpukit::python
