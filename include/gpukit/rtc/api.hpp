// NVRTC, the CUDA run-time compiler, loaded at run time (ARCHITECTURE.md rule 1).
//
// The first NVRTC call opens libnvrtc with dlopen, trying libnvrtc.so.13, .so.12 and
// libnvrtc.so in each directory of LD_LIBRARY_PATH, $CUDA_HOME/lib64, $CUDA_PATH/lib64 and
// /usr/local/cuda/lib64, then through the dynamic linker's own search (ld.so.cache), and
// resolves every entry of nvrtc_functions.inc with dlsym.
// Nothing links against NVRTC, so a machine without the CUDA toolkit can still import
// gpukit; the first compilation then fails with a runtime_error naming what was tried.
#pragma once

#include "gpukit/core/detail/dynamic_library.hpp"

#include <nvrtc.h>

#include <string>
#include <utility>
#include <vector>

namespace gpukit::rtc {

// The NVRTC entry points gpukit calls (nvrtc_functions.inc), one function pointer each,
// resolved with dlsym when the library loads. Call them through nvrtc_call().
struct nvrtc_api {
#define X(name) decltype(&::name) name = nullptr;
#include "gpukit/rtc/nvrtc_functions.inc"
#undef X
};

namespace detail {
// The loaded table; throws runtime_error naming the libraries tried when none loads or when
// one lacks an entry point. Calls go through nvrtc_call().
const nvrtc_api& nvrtc_table();
}  // namespace detail

// Calls NVRTC's `entry` with `args`, fork() held off meanwhile (core/fork.hpp), so that a
// child made by fork() never inherits a lock NVRTC held in another thread's call, and compiles
// as its parent does: nvrtc_call(&nvrtc_api::nvrtcVersion, &major, &minor). Throws like
// detail::nvrtc_table().
template <class Fn, class... Args>
auto nvrtc_call(Fn* nvrtc_api::*entry, Args... args) {
    return gpukit::detail::held_call(&detail::nvrtc_table, entry, args...);
}

// True when libnvrtc can be loaded; never throws. A file found in the named directories
// counts without being loaded (see nvrtc_identity()), so a broken one there shows up as an
// error at the first compilation instead.
bool nvrtc_available() noexcept;

// What identifies the NVRTC a compilation uses, for the compilation cache key: the path,
// size and modification time of the loaded library, or before it is loaded, of the first
// candidate file that exists (the one a load picks unless it lacks entry points). Loading
// libnvrtc (~110 MB) costs several milliseconds, most of a disk-cache hit, so the cache
// does not load it to learn its version. A reinstall of the same version changes the
// identity (a spurious miss, never a stale hit). When NVRTC is found only through the
// dynamic linker's search there is no file to stat: then it is loaded and this is its version.
std::string nvrtc_identity();

// For tests only: the live table, whose entries may be replaced (see cuda::api_override).
nvrtc_api& mutable_api();

// NVRTC's (major, minor) version.
std::pair<int, int> version();

// The file of the NVRTC library in use, links resolved (for reports such as `python -m
// gpukit info`); loads it, and throws like api() when none can be loaded.
std::string nvrtc_library_path();

// Throws runtime_error "<routine> failed: <NVRTC_ERROR_...>[ (<detail>)]".
[[noreturn]] void throw_nvrtc_error(nvrtcResult result, const char* routine, const std::string& detail = {});

namespace detail {

using loaded_nvrtc = gpukit::detail::loaded_library<nvrtc_api>;

// Tries each candidate (a file name or a path) in order and returns the first library that
// offers every entry point. Exposed so tests can check the failure message.
loaded_nvrtc load(const std::vector<std::string>& candidates);

// The candidates api() uses, in order: paths, then bare names for the dynamic linker.
std::vector<std::string> default_candidates();

// The first candidate that names an existing file by path, without loading it; empty when
// none does.
std::string locate(const std::vector<std::string>& candidates);

// "<path> size <bytes> mtime <seconds>.<nanoseconds>"; empty when `path` is a bare name or
// cannot be stat'ed.
std::string file_identity(const std::string& path);

}  // namespace detail

}  // namespace gpukit::rtc
