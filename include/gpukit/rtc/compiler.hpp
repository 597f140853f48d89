// One entry point for compiling CUDA C: NVRTC or nvcc, through the compilation cache.
//
// The cache key is the SHA-256 over labelled fields: the compiler (NVRTC, or nvcc and its
// path), its identity (NVRTC: nvrtc_identity(), the library file's path, size and mtime, so
// a hit needs no NVRTC loaded; nvcc: its version), the architecture (the device's when none
// is given), the wrapped source, every option and include
// directory, and the path and content of every header the compilation reads:
//   - nvcc: the files `nvcc -M` lists (toolkit headers included);
//   - NVRTC: NVRTC does not report what it included, so included_headers() scans the
//     source for #include "..." and #include <...>, resolves each against the including
//     file's directory (quoted form), the include directories and -I options, and follows
//     found headers recursively. Headers found only through NVRTC's built-in paths (the
//     toolkit's own) are covered by the NVRTC identity instead. The scan ignores #if and
//     macros: an include spelled through a macro is not seen, and an include in a disabled
//     branch is hashed anyway (a spurious miss, never a stale hit).
#pragma once

#include "gpukit/rtc/nvcc.hpp"
#include "gpukit/rtc/program.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpukit::rtc {

enum class compiler_kind { nvrtc, nvcc };

struct compile_request {
    std::string source;
    compile_options options;
    compiler_kind compiler = compiler_kind::nvrtc;
    nvcc_settings nvcc;  // used when compiler is nvcc
};

struct compile_outcome {
    std::vector<char> image;  // what to load: a cubin, or NUL-terminated PTX
    std::string arch;         // the architecture used (on a cache hit: the one asked for or the device's)
    std::string key;          // the cache key; empty when the cache was not used
    bool from_cache = false;  // true when the image came from the disk cache
    std::string log;          // the compiler's warnings (empty on a cache hit)
    std::string ptx;          // when options.want_ptx or a compute_XY target (compiled only)
    std::string kept_dir;     // nvcc with keep: the directory left behind
};

// The headers `source` includes, found by the scan described above, in first-seen order.
std::vector<std::filesystem::path> included_headers(std::string_view source, const compile_options& options);

// The request's cache key (64 hex digits). An empty arch stands for device_arch().
std::string cache_key(const compile_request& request);

namespace detail {
// cache_key() with the NVRTC identity given (ignored for nvcc), so tests can change it.
std::string cache_key(const compile_request& request, const std::string& nvrtc_identity);
}  // namespace detail

// Compiles with the requested compiler, without the cache.
compiled_program compile(const compile_request& request, std::string* kept_dir = nullptr);

// Looks the request up in the cache at `cache_dir` and compiles (and stores) on a miss or
// a bad entry. The cache is bypassed when cache_dir is nullopt, when nvcc's keep is set
// (the point is to see the compiler's files) and when options.want_ptx is set (only
// images are stored).
compile_outcome compile_cached(const compile_request& request, const std::optional<std::filesystem::path>& cache_dir);

}  // namespace gpukit::rtc
