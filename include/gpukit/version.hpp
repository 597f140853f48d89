#pragma once

namespace gpukit {

// The version of gpukit; the CUDA version it was built against is CUDA_VERSION from cuda.h.
inline constexpr int version_major = 0;
inline constexpr int version_minor = 1;
inline constexpr int version_patch = 0;
inline constexpr const char* version_status = "";
inline constexpr const char* version_text = "0.1.0";

}  // namespace gpukit
