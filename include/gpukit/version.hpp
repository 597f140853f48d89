#pragma once

namespace gpukit {

// The version of gpukit; the CUDA version it was built against is CUDA_VERSION from cuda.h.
// This is the major version, the first number of version_text.
inline constexpr int version_major = 0;
// The minor version, the second number of version_text.
inline constexpr int version_minor = 1;
// The patch version, the third number of version_text.
inline constexpr int version_patch = 0;
// A status tag for a version that is not a release; empty for a release. Python's
// gpukit.VERSION_STATUS.
inline constexpr const char* version_status = "";
// The whole version as text, "major.minor.patch". Python's gpukit.VERSION_TEXT.
inline constexpr const char* version_text = "0.1.0";

}  // namespace gpukit
