// NVRTC, the CUDA run-time compiler, loaded at run time (ARCHITECTURE.md rule 1).
//
// The first call of api() opens libnvrtc with dlopen, trying libnvrtc.so.13, .so.12 and
// libnvrtc.so, first through the normal library search, then in $CUDA_HOME/lib64 and
// /usr/local/cuda/lib64, and resolves every entry of nvrtc_functions.inc with dlsym.
// Nothing links against NVRTC, so a machine without the CUDA toolkit can still import
// gpukit; the first compilation then fails with a runtime_error naming what was tried.
#pragma once

#include <nvrtc.h>

#include <string>
#include <utility>
#include <vector>

namespace gpukit::rtc {

struct nvrtc_api {
#define X(name) decltype(&::name) name = nullptr;
#include "gpukit/rtc/nvrtc_functions.inc"
#undef X
};

// The loaded table; throws runtime_error naming the libraries tried when none loads or
// when one lacks an entry point.
const nvrtc_api& api();

// True when libnvrtc can be loaded; never throws.
bool nvrtc_available() noexcept;

// For tests only: the live table, whose entries may be replaced (see cuda::api_override).
nvrtc_api& mutable_api();

// NVRTC's (major, minor) version.
std::pair<int, int> version();

// Throws runtime_error "<routine> failed: <NVRTC_ERROR_...>[ (<detail>)]".
[[noreturn]] void throw_nvrtc_error(nvrtcResult result, const char* routine, const std::string& detail = {});

namespace detail {

struct loaded_nvrtc {
    nvrtc_api table;
    std::string path;           // the file that was loaded
    std::string load_failure;   // why no library could be used; empty on success
};

// Tries each candidate (a file name or a path) in order and returns the first library that
// offers every entry point. Exposed so tests can check the failure message.
loaded_nvrtc load(const std::vector<std::string>& candidates);

// The candidates api() uses, in order.
std::vector<std::string> default_candidates();

}  // namespace detail

}  // namespace gpukit::rtc
