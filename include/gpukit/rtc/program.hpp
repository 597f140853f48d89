// Compiling CUDA C to a loadable image with NVRTC.
//
// compile() turns one source text into a cubin for a real architecture (sm_XY) or into PTX
// for a virtual one (compute_XY), which the driver then JIT-compiles when it loads it.
// Every compilation gets gpukit's built-in headers and prelude (builtin_headers.hpp), the
// CUDA toolkit's include directories after the caller's (toolkit.hpp), and PyCUDA's extern
// "C" wrapper with C++ headers kept out of it (includes.hpp).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gpukit::rtc {

// How to compile a source: the target architecture, the compiler's options, the include
// directories and the extern "C" wrapping.
struct compile_options {
    // "sm_XY" (a cubin for that GPU) or "compute_XY" (PTX); empty: default_arch().
    std::string arch;
    // rtc::compile() passes them to NVRTC as given ("-DN=4", "--use_fast_math", ...); in a
    // compile_request (compiler.hpp) they are nvcc's options, translated for NVRTC.
    std::vector<std::string> options;
    // The caller's include directories, each "-I<dir>", searched first. Headers found here
    // (or, for #include "...", in the current directory) are the caller's own: they stay
    // inside the extern "C" wrapper and are hashed into the cache key.
    std::vector<std::string> include_dirs;
    // Directories of headers that are not the caller's (gpukit's own device headers),
    // searched after include_dirs: their #include lines are wrapped in extern "C++" like the
    // toolkit's, and they are hashed into the cache key.
    std::vector<std::string> system_include_dirs;
    // Unless set, the source is wrapped in extern "C" { } so kernels keep their plain names.
    bool no_extern_c = false;
    // Also return the PTX when compiling for sm_XY (it is always returned for compute_XY).
    bool want_ptx = false;
    // The file name NVRTC uses in diagnostics.
    std::string name = "kernel.cu";
};

// What a compilation produced (compile(), compile_with_nvcc()): the image in the form asked
// for, and what went into it.
struct compiled_program {
    std::string arch;                  // the architecture actually used
    std::vector<std::string> options;  // the full NVRTC option list
    std::string source;                // the text compiled: the source in its extern "C" wrapper
    std::vector<char> cubin;           // empty for a compute_XY target
    std::vector<char> fatbin;          // nvcc's fatbin, when one was asked for
    std::string ptx;                   // filled for compute_XY targets or want_ptx
    std::string log;                   // the compiler's warnings (empty when none)

    // What to load with the driver: the cubin, else the fatbin, else the PTX (with its NUL
    // terminator).
    std::vector<char> image() const;
};

// Why NVRTC did not compile a source, classified for the caller's next step.
struct nvrtc_failure {
    int result = 0;                             // the nvrtcResult
    std::string message;                        // what compile() throws
    std::string log;                            // NVRTC's program log
    std::vector<std::string> options;           // the full NVRTC option list
    std::vector<std::string> rejected_options;  // with NVRTC_ERROR_INVALID_OPTION: each option NVRTC rejects alone
    std::string missing_header;                 // a header NVRTC could not open
    bool host_code = false;                     // "... is not allowed in JIT mode": the source has host code
    bool fixed_by_default_device = false;       // every error is one -default-device removes
    // What NVRTC lacks that nvcc has (host code, an option, a header), in a few words; empty
    // when the source itself is wrong.
    std::string limitation;

    // Whether nvcc might compile what NVRTC could not: true when `limitation` names something
    // NVRTC lacks, false when the source itself is wrong.
    bool needs_nvcc() const noexcept { return !limitation.empty(); }
};

// std::invalid_argument (core/c_text.hpp) when `source`, an option, an include directory or
// the name holds a NUL character: NVRTC and nvcc read each as a C string, which ends there.
// compile() checks this first.
void require_c_strings(std::string_view source, const compile_options& options);

// compile() without the exception: the program, or why NVRTC rejected the source. Still
// throws logic_error for a bad arch and runtime_error when NVRTC cannot be loaded.
std::variant<compiled_program, nvrtc_failure> try_compile(std::string_view source, const compile_options& options);

// Compiles `source`; throws compile_error (message, log, option list) when NVRTC rejects it
// and runtime_error when NVRTC cannot be loaded.
compiled_program compile(std::string_view source, const compile_options& options = {});

// The caller's include directories: options.include_dirs, then the `-I<dir>`, `-I <dir>` and
// `--include-path=<dir>` of options.options.
std::vector<std::filesystem::path> user_include_dirs(const compile_options& options);

// "compute_XY" -> true, "sm_XY" -> false; logic_error for anything else.
bool is_virtual_arch(const std::string& arch);

// The architecture compile() uses when none is given: nvrtc_arch(device_arch()).
std::string default_arch();

// "sm_XY" of the current context's device, or sm_90 (Hopper) when no context is current.
// Needs no NVRTC, so the compilation cache can key on it without loading NVRTC.
std::string device_arch();

// `arch`, or compute_XY of NVRTC's newest architecture when `arch` is a real architecture
// newer than NVRTC knows, so that the driver JITs the PTX. Loads NVRTC.
std::string nvrtc_arch(const std::string& arch);

// Architectures (as XY numbers, 90 for sm_90) this NVRTC can target.
std::vector<int> supported_archs();

}  // namespace gpukit::rtc
