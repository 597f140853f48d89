// Text that crosses into C: strings handed to C APIs (NVRTC, nvcc's command line, OpenCL, the
// CUDA driver) and names written into generated kernel source.
//
// A C API reads a string up to its first NUL, so "-DX=1\0junk" would quietly compile as
// "-DX=1": such text is refused where it enters instead. A name that is a keyword of the
// kernel's language ("float *if") would only fail when the generated source is compiled,
// far from where it was written: it is refused when the kernel is made.
#pragma once

#include <string>
#include <string_view>

namespace gpukit {

// std::invalid_argument (Python's ValueError) when `text` holds a NUL character. `what` names
// the text in the message ("compile option", "the source"); a short text is quoted, NULs
// shown as \0, and the message gives the offset and line of the first NUL.
void require_c_string(std::string_view text, std::string_view what);

// `text` cut at its first NUL: a C library's log copied into a buffer of the size it
// reported (NVRTC 13.0 reports more than it writes, leaving NULs in the buffer's tail).
void cut_at_nul(std::string& text);

// Whether `name` is a C identifier: a letter or _, then letters, digits and _.
bool is_c_identifier(std::string_view name) noexcept;

// The language a generated kernel is written in: CUDA C++ (NVRTC, nvcc) or OpenCL C.
enum class kernel_language { cuda, opencl };

// Why `name` cannot name a kernel or a parameter in generated source of `language`, as a
// phrase ("'if' is a keyword of C", "'x-y' is not a C identifier"); empty when it can: a C
// identifier (a letter or _, then letters, digits and _) that is not a keyword or reserved
// type name of the language, nor a variable CUDA defines in every kernel (threadIdx, ...).
std::string kernel_name_problem(std::string_view name, kernel_language language);

}  // namespace gpukit
