#include "gpukit/rtc/api.hpp"

#include "gpukit/core/error.hpp"

#include <dlfcn.h>

#include <cstdlib>

namespace gpukit::rtc {
namespace detail {

std::vector<std::string> default_candidates() {
    // Newest first: a toolkit upgrade keeps working, and .so (the unversioned developer
    // link) is the last resort because its version is unknown.
    const char* names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
    std::vector<std::string> dirs = {""};  // "" = the dynamic linker's own search
    if (const char* home = std::getenv("CUDA_HOME"); home && *home)
        dirs.push_back(std::string(home) + "/lib64/");
    if (const char* path = std::getenv("CUDA_PATH"); path && *path)
        dirs.push_back(std::string(path) + "/lib64/");
    dirs.push_back("/usr/local/cuda/lib64/");
    std::vector<std::string> candidates;
    for (const auto& dir : dirs)
        for (const char* name : names)
            candidates.push_back(dir + name);
    return candidates;
}

loaded_nvrtc load(const std::vector<std::string>& candidates) {
    loaded_nvrtc loaded;
    std::string tried;
    for (const auto& candidate : candidates) {
        void* library = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!library) {
            tried += "\n  " + candidate + ": not found";
            continue;
        }
        std::string missing;
        auto resolve = [&](const char* symbol, auto*& slot) {
            slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(dlsym(library, symbol));
            if (!slot)
                missing += std::string(missing.empty() ? "" : ", ") + symbol;
        };
#define X(name) resolve(#name, loaded.table.name);
#include "gpukit/rtc/nvrtc_functions.inc"
#undef X
        if (missing.empty()) {
            // Stays loaded for the life of the process, like the driver.
            loaded.path = candidate;
            return loaded;
        }
        tried += "\n  " + candidate + ": lacks " + missing;
        loaded.table = {};
        dlclose(library);
    }
    loaded.load_failure = "NVRTC (libnvrtc.so.13 or .12) could not be loaded, so CUDA C cannot be compiled at run "
                          "time; install the CUDA toolkit's NVRTC or set CUDA_HOME. Tried:" + tried;
    return loaded;
}

}  // namespace detail

namespace {

detail::loaded_nvrtc& instance() {
    // Leaked on purpose, like the driver table: never unloaded.
    static detail::loaded_nvrtc* loaded = new detail::loaded_nvrtc(detail::load(detail::default_candidates()));
    return *loaded;
}

}  // namespace

nvrtc_api& mutable_api() {
    detail::loaded_nvrtc& loaded = instance();
    if (!loaded.load_failure.empty())
        throw runtime_error(loaded.load_failure, 0, "dlopen");
    return loaded.table;
}

const nvrtc_api& api() { return mutable_api(); }

bool nvrtc_available() noexcept {
    try {
        return instance().load_failure.empty();
    } catch (...) {
        return false;
    }
}

std::pair<int, int> version() {
    int major = 0, minor = 0;
    if (const nvrtcResult result = api().nvrtcVersion(&major, &minor); result != NVRTC_SUCCESS)
        throw_nvrtc_error(result, "nvrtcVersion");
    return {major, minor};
}

void throw_nvrtc_error(nvrtcResult result, const char* routine, const std::string& detail) {
    const char* name = nvrtc_available() ? instance().table.nvrtcGetErrorString(result) : nullptr;
    std::string message = std::string(routine) + " failed: " +
                          (name ? name : "nvrtcResult " + std::to_string(static_cast<int>(result)));
    if (!detail.empty())
        message += " (" + detail + ")";
    throw runtime_error(message, static_cast<int>(result), routine);
}

}  // namespace gpukit::rtc
