// nvJitLink, the CUDA device linker, loaded at run time (ARCHITECTURE.md rule 1).
//
// The first nvJitLink call opens libnvJitLink.so.13 (else .so.12, else .so) from
// the normal library search, $CUDA_HOME/lib64, $CUDA_PATH/lib64 and /usr/local/cuda/lib64,
// and resolves nvjitlink_functions.inc with dlsym. It links without a GPU.
#pragma once

#include "gpukit/core/detail/run_time_library.hpp"

#include <nvJitLink.h>

#include <string>
#include <utility>

namespace gpukit::rtc {

// The nvJitLink entry points gpukit calls (nvjitlink_functions.inc), one function pointer
// each, resolved with dlsym when the library loads. Call them through nvjitlink_call().
struct nvjitlink_api {
#define X(name) decltype(&::name) name = nullptr;
#include "gpukit/rtc/nvjitlink_functions.inc"
#undef X
};

namespace detail {
// The loaded table; runtime_error naming the files tried when none loads. Calls go through
// nvjitlink_call().
const nvjitlink_api& nvjitlink_table();
}  // namespace detail

// Calls nvJitLink's `entry` with `args`, fork() held off meanwhile (core/fork.hpp), so that a
// forked child links as its parent does; throws like detail::nvjitlink_table().
template <class Fn, class... Args>
auto nvjitlink_call(Fn* nvjitlink_api::*entry, Args... args) {
    return gpukit::detail::held_call(&detail::nvjitlink_table, entry, args...);
}

// True when libnvJitLink can be loaded; never throws.
bool nvjitlink_available() noexcept;

// nvJitLink's (major, minor) version; throws like nvjitlink_call() when it cannot be loaded.
std::pair<unsigned, unsigned> nvjitlink_version();

// The file of the nvJitLink library in use, links resolved; throws like nvjitlink_call().
std::string nvjitlink_library_path();

}  // namespace gpukit::rtc
