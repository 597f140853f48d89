// Compiling CUDA C to a loadable image with NVRTC.
//
// compile() turns one source text into a cubin for a real architecture (sm_XY) or into PTX
// for a virtual one (compute_XY), which the driver then JIT-compiles when it loads it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpukit::rtc {

struct compile_options {
    // "sm_XY" (a cubin for that GPU) or "compute_XY" (PTX); empty: default_arch().
    std::string arch;
    // Passed to NVRTC as given ("-O3", "-DN=4", "--use_fast_math", ...).
    std::vector<std::string> options;
    // Each becomes "-I<dir>".
    std::vector<std::string> include_dirs;
    // Unless set, the source is wrapped in extern "C" { } so kernels keep their plain names.
    bool no_extern_c = false;
    // Also return the PTX when compiling for sm_XY (it is always returned for compute_XY).
    bool want_ptx = false;
    // The file name NVRTC uses in diagnostics.
    std::string name = "kernel.cu";
};

struct compiled_program {
    std::string arch;                  // the architecture actually used
    std::vector<std::string> options;  // the full NVRTC option list
    std::vector<char> cubin;           // empty for a compute_XY target
    std::string ptx;                   // filled for compute_XY targets or want_ptx
    std::string log;                   // NVRTC's warnings (empty when none)

    // What to load with the driver: the cubin, else the PTX (with its NUL terminator).
    std::vector<char> image() const;
};

// Compiles `source`; throws compile_error (log, option list) when NVRTC rejects it and
// runtime_error when NVRTC cannot be loaded.
compiled_program compile(std::string_view source, const compile_options& options = {});

// The text handed to the compiler: `source`, wrapped in extern "C" { } (with a #line so
// diagnostics keep the caller's line numbers) unless options.no_extern_c.
std::string wrapped_source(std::string_view source, const compile_options& options);

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
