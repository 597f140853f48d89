// A compile request from the fields gpukit.compiler passes (shared by the compile bindings
// and ElementwiseKernel's).
#pragma once

#include "gpukit/rtc/compiler.hpp"

#include <filesystem>
#include <optional>
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

// The request of a generated kernel (ElementwiseKernel, ReductionKernel, the scan kernels):
// a cubin, no `extern "C"`, its source filled in later by the kernel's spec.
rtc::compile_request generated_kernel_request(std::vector<std::string> options, std::string arch,
                                              std::vector<std::string> include_dirs,
                                              std::vector<std::string> system_include_dirs, const std::string& compiler,
                                              std::string nvcc);

// The compile cache directory a kernel was given, None (the default cache) as nullopt.
inline std::optional<std::filesystem::path> cache_dir_path(const std::optional<std::string>& cache_dir) {
    if (!cache_dir)
        return std::nullopt;
    return std::filesystem::path(*cache_dir);
}

}  // namespace gpukit::python
