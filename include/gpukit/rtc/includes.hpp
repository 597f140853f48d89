// The #include lines of a source, where each one resolves, and the extern "C" wrapper.
//
// PyCUDA wraps a source in extern "C" { } (unless no_extern_c) so its kernels keep plain
// names. C++ headers cannot be included inside that block (cuda_fp16.h: "more than one
// instance of overloaded function has C linkage"), so gpukit wraps each #include line of the
// source that is not the user's own in extern "C++" { }. The user's own headers (found next
// to the source for #include "...", or in the include directories the caller gave) stay
// inside extern "C" exactly as PyCUDA has them, so kernels declared there keep their plain
// names. Everything else (gpukit's built-in headers, gpukit's own header directory, the CUDA
// toolkit, the system's headers for nvcc) is wrapped. #line directives keep every line of
// the source on its own number. Only the source's own lines are rewritten: a header of the
// user's that includes a C++ header must use extern "C++" itself.
//
// Before any compiler runs, wrap_source() refuses (compile_error) a source that would make it
// read a FIFO, socket or device: an #include of one in the source or in a header of the
// user's it includes (followed as find_included_headers() does), whether the name is absolute
// or found in the user's directories.
//
// For NVRTC each such include is also wrapped in #pragma nv_diagnostic push / pop with
// warning 47 suppressed: a toolkit header may define a macro the prelude defines (libcu++'s
// <cuda/std/cmath> defines INFINITY), which would otherwise warn "incompatible redefinition"
// where nvcc, taking the toolkit's libcu++ as a system directory, stays silent.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace gpukit::rtc {

// One `#include` line of a source, as find_includes() reads it.
struct include_directive {
    std::string name;  // the header's name, without the quotes or angle brackets
    bool quoted;       // `#include "name"` rather than `#include <name>`
    std::size_t line;  // 1-based line number in the text
};

// Every "#include <name>" / "#include \"name\"" line of `text` (#include MACRO is not seen).
std::vector<include_directive> find_includes(std::string_view text);

// Where #include `include` of a file in `including_dir` resolves among the user's headers:
// the including file's directory (quoted form only), then `dirs` in order. Empty when none
// holds it. Built-in header names are never the user's (NVRTC prefers its in-memory headers).
// An absolute name is that file, found when it is a regular file, whatever `dirs` hold.
// A FIFO, socket or device where the compiler would look is a compile_error: it would block.
std::filesystem::path find_user_header(const include_directive& include, const std::filesystem::path& including_dir,
                                       const std::vector<std::filesystem::path>& dirs);

// The headers of `dirs` that `source` includes (the including file's directory counting for
// "..." includes), followed recursively, in first-seen order. Includes spelled through a
// macro are not seen, and #if is ignored: an include in a disabled branch counts anyway.
std::vector<std::filesystem::path> find_included_headers(std::string_view source,
                                                         const std::filesystem::path& source_dir,
                                                         const std::vector<std::filesystem::path>& dirs);

// The compiler wrap_source() prepares a source for: NVRTC's wrapper also gets the diagnostic
// pragmas and the class attributes placed.
enum class wrapper_for { nvrtc, nvcc };

// `source` wrapped in extern "C" { } as described above (`name` is the file name diagnostics
// use); `user_dirs` are the caller's include directories. With no_extern_c the source keeps
// its text, except that for NVRTC its non-user includes get the diagnostic pragmas. For NVRTC
// the source's class attributes are also placed as class_attributes.hpp describes, so that
// NVRTC lays its classes out as nvcc does.
std::string wrap_source(std::string_view source, const std::string& name, bool no_extern_c, wrapper_for compiler,
                        const std::vector<std::filesystem::path>& user_dirs);

}  // namespace gpukit::rtc
