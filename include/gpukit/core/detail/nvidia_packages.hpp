// Where NVIDIA's pip packages are: the directories of Python's `nvidia` namespace package,
// which the Python side sets when it is imported (a C++ program may set them too). The
// loaders of run-time libraries (NCCL, cuRAND) and the CUDA toolkit search (rtc/toolkit.hpp)
// look there.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

namespace gpukit::detail {

// Sets the `nvidia` namespace package directories (Python's nvidia.__path__); process-wide,
// thread-safe.
void set_nvidia_package_dirs(std::vector<std::string> dirs);

// The directories set (empty until set).
std::vector<std::string> nvidia_package_dirs();

// <nvidia>/<package>/lib/ for every directory set and each of `packages` in order ("nccl",
// "cu13", ...): where a loader looks for a pip package's libraries.
std::vector<std::string> nvidia_package_library_dirs(std::initializer_list<const char*> packages);

}  // namespace gpukit::detail
