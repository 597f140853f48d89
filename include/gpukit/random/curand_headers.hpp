// Where cuRAND's device headers (curand_kernel.h) are, for compiling the generators.
//
// The generators are cuRAND's device API compiled by NVRTC, which needs curand_kernel.h and
// the CUDA toolkit's headers it includes (cuda_runtime.h, <nv/target>). curand_kernel.h is
// looked for in the toolkit's include directories (rtc/toolkit.hpp: $CUDA_PATH, $CUDA_HOME,
// nvcc's, NVIDIA's pip packages, /usr/local/cuda), then in the pip `nvidia-curand` package
// of the `nvidia` namespace package (nvidia/curand/include, CUDA 13's nvidia/cu13/include),
// which is then passed to NVRTC after the toolkit's.
#pragma once

#include "gpukit/rtc/toolkit.hpp"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace gpukit::random {

// Where cuRAND's device headers were found, and their version.
struct curand_headers {
    std::string include_dir;  // the directory holding curand_kernel.h
    bool in_toolkit = true;   // one of the toolkit's include directories (NVRTC searches it anyway)
    // (major, minor, patch) from CURAND_VER_MAJOR/MINOR/PATCH in its curand.h; nullopt when
    // curand.h does not say.
    std::optional<std::array<int, 3>> version;
};

// The headers, given a toolkit and the `nvidia` package directories; nullopt when no
// toolkit was found (curand_kernel.h needs its headers) or no directory holds curand_kernel.h.
std::optional<curand_headers> find_curand_headers(const rtc::cuda_toolkit& toolkit,
                                                  const std::vector<std::string>& nvidia_package_dirs);
// The same for this process's environment (rtc::toolkit_search_from_environment()).
std::optional<curand_headers> find_curand_headers();

// find_curand_headers(), or runtime_error saying what is missing and where gpukit looked.
curand_headers require_curand_headers();

// The version of cuRAND the generators compile against: the headers' (major, minor, patch),
// else libcurand's (curand_library.hpp); nullopt when neither is found.
std::optional<std::array<int, 3>> curand_version();

// (major, minor, patch) from the text of a curand.h; nullopt when a macro is missing.
std::optional<std::array<int, 3>> curand_header_version(const std::string& curand_h);

}  // namespace gpukit::random
