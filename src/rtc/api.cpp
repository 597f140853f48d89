#include "gpukit/rtc/api.hpp"

#include "gpukit/core/detail/dynamic_library.hpp"
#include "gpukit/core/error.hpp"

#include <sys/stat.h>

#include <cstdlib>

namespace gpukit::rtc {
namespace detail {

std::vector<std::string> default_candidates() {
    // Names newest first: a toolkit upgrade keeps working, and .so (the unversioned developer
    // link) is the last resort because its version is unknown.
    // Directories are named explicitly (rather than left to the dynamic linker) so that
    // locate() can find the file a load would use without loading it: see nvrtc_identity().
    std::vector<std::string> dirs = gpukit::detail::ld_library_path_dirs();
    if (const char* home = std::getenv("CUDA_HOME"); home && *home)
        dirs.push_back(std::string(home) + "/lib64/");
    if (const char* path = std::getenv("CUDA_PATH"); path && *path)
        dirs.push_back(std::string(path) + "/lib64/");
    dirs.push_back("/usr/local/cuda/lib64/");
    dirs.push_back("");  // last: the dynamic linker's own search (ld.so.cache, system directories)
    return gpukit::detail::library_candidates(dirs, {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"});
}

std::string locate(const std::vector<std::string>& candidates) {
    for (const auto& candidate : candidates) {
        struct stat info;
        if (candidate.find('/') != std::string::npos && ::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode))
            return candidate;
    }
    return {};
}

std::string file_identity(const std::string& path) {
    struct stat info;
    // A bare name was resolved by the dynamic linker: there is no path to stat.
    if (path.find('/') == std::string::npos || ::stat(path.c_str(), &info) != 0)
        return {};
    return path + " size " + std::to_string(info.st_size) + " mtime " + std::to_string(info.st_mtim.tv_sec) + "." +
           std::to_string(info.st_mtim.tv_nsec);
}

loaded_nvrtc load(const std::vector<std::string>& candidates) {
    return gpukit::detail::load_from_candidates<nvrtc_api>(
        candidates,
        [](void* library, nvrtc_api& table, std::string& missing) {
#define X(name) gpukit::detail::resolve_symbol(library, #name, table.name, missing);
#include "gpukit/rtc/nvrtc_functions.inc"
#undef X
        },
        "NVRTC (libnvrtc.so.13 or .12) could not be loaded, so CUDA C cannot be compiled at run time; install the "
        "CUDA toolkit's NVRTC or set CUDA_HOME.");
}

}  // namespace detail

namespace {

using nvrtc =
    gpukit::detail::run_time_library<gpukit::detail::candidates_loader<detail::load, detail::default_candidates>>;

}  // namespace

nvrtc_api& mutable_api() { return nvrtc::mutable_api(); }

const nvrtc_api& detail::nvrtc_table() { return nvrtc::api(); }

bool nvrtc_available() noexcept {
    try {
        // A file found in the named directories counts without loading it (loading costs
        // milliseconds); only the dynamic linker's own search needs a real dlopen.
        if (!nvrtc::if_loaded() && !detail::locate(detail::default_candidates()).empty())
            return true;
    } catch (...) {
        return false;
    }
    return nvrtc::available();
}

std::string nvrtc_identity() {
    if (const detail::loaded_nvrtc* loaded = nvrtc::if_loaded(); loaded && loaded->load_failure.empty()) {
        if (std::string identity = detail::file_identity(loaded->path); !identity.empty())
            return identity;
    } else if (!loaded) {
        if (std::string identity = detail::file_identity(detail::locate(detail::default_candidates()));
            !identity.empty())
            return identity;
    }
    // Found only by the dynamic linker's search (no path to stat): its version, which
    // needs the library loaded.
    const auto [major, minor] = version();
    return "version " + std::to_string(major) + "." + std::to_string(minor);
}

std::pair<int, int> version() {
    int major = 0, minor = 0;
    if (const nvrtcResult result = nvrtc_call(&nvrtc_api::nvrtcVersion, &major, &minor); result != NVRTC_SUCCESS)
        throw_nvrtc_error(result, "nvrtcVersion");
    return {major, minor};
}

std::string nvrtc_library_path() {
    return gpukit::detail::library_file(reinterpret_cast<const void*>(detail::nvrtc_table().nvrtcVersion));
}

void throw_nvrtc_error(nvrtcResult result, const char* routine, const std::string& detail) {
    const detail::loaded_nvrtc* loaded = nvrtc::if_loaded();
    const char* name =
        loaded && loaded->load_failure.empty() ? nvrtc_call(&nvrtc_api::nvrtcGetErrorString, result) : nullptr;
    std::string message =
        std::string(routine) + " failed: " + (name ? name : "nvrtcResult " + std::to_string(static_cast<int>(result)));
    if (!detail.empty())
        message += " (" + detail + ")";
    throw runtime_error(message, static_cast<int>(result), routine);
}

}  // namespace gpukit::rtc
