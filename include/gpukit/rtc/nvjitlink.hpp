// nvJitLink, the CUDA device linker, loaded at run time (ARCHITECTURE.md rule 1).
//
// The first call of nvjitlink_api() opens libnvJitLink.so.13 (else .so.12, else .so) from
// the normal library search, $CUDA_HOME/lib64, $CUDA_PATH/lib64 and /usr/local/cuda/lib64,
// and resolves nvjitlink_functions.inc with dlsym. It links without a GPU.
#pragma once

#include <nvJitLink.h>

#include <string>
#include <utility>

namespace gpukit::rtc {

struct nvjitlink_api {
#define X(name) decltype(&::name) name = nullptr;
#include "gpukit/rtc/nvjitlink_functions.inc"
#undef X
};

// The loaded table; runtime_error naming the files tried when none loads.
const nvjitlink_api& nvjitlink();

// True when libnvJitLink can be loaded; never throws.
bool nvjitlink_available() noexcept;

// nvJitLink's (major, minor) version; throws like nvjitlink() when it cannot be loaded.
std::pair<unsigned, unsigned> nvjitlink_version();

// The file of the nvJitLink library in use, links resolved; throws like nvjitlink().
std::string nvjitlink_library_path();

}  // namespace gpukit::rtc
