// What generated kernels written once for both languages share (generic_scan.cpp, sort.cpp):
// the few words where OpenCL C and CUDA C differ, as macros, and array parameters, which arrive
// as a pointer in CUDA C and as a buffer and a byte offset in OpenCL C (backend.hpp).
#pragma once

#include "gpukit/core/c_text.hpp"
#include "gpukit/core/text.hpp"

#include <string>

namespace gpukit::array::detail {

// GK_KERNEL, GK_GLOBAL, GK_LOCAL, GK_BARRIER(), GK_LID, GK_GROUP, GK_GID, GK_GSIZE (the
// work item's index in the grid, and the grid's size), and uchar and ulong in CUDA C.
const char* language_words(kernel_language language) noexcept;

// A memory parameter of element type `type` in the parameter list ("..., "), and the line
// at the top of the kernel body that binds `name` to its elements (nothing in CUDA C).
void declare_memory(text_builder& out, const std::string& type, const std::string& name, kernel_language language);
void bind_memory(text_builder& out, const std::string& type, const std::string& name, kernel_language language);

}  // namespace gpukit::array::detail
