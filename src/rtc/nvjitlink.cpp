#include "gpukit/rtc/nvjitlink.hpp"

#include "gpukit/core/detail/dynamic_library.hpp"
#include "gpukit/core/error.hpp"


#include <cstdlib>
#include <type_traits>
#include <vector>

namespace gpukit::rtc {
namespace {

struct loaded_nvjitlink {
    nvjitlink_api table;
    std::string load_failure;  // why no library could be used; empty on success
};

std::vector<std::string> candidates() {
    const char* names[] = {"libnvJitLink.so.13", "libnvJitLink.so.12", "libnvJitLink.so"};
    std::vector<std::string> dirs = {""};  // "" = the dynamic linker's own search
    for (const char* variable : {"CUDA_HOME", "CUDA_PATH"})
        if (const char* home = std::getenv(variable); home && *home)
            dirs.push_back(std::string(home) + "/lib64/");
    dirs.push_back("/usr/local/cuda/lib64/");
    std::vector<std::string> result;
    for (const auto& dir : dirs)
        for (const char* name : names)
            result.push_back(dir + name);
    return result;
}

loaded_nvjitlink load() {
    loaded_nvjitlink loaded;
    std::string tried, path;
    const bool found = gpukit::detail::load_first_library(
        candidates(), loaded.table, path, tried, [](void* library, nvjitlink_api& table, std::string& missing) {
#define X(name) gpukit::detail::resolve_symbol(library, #name, table.name, missing);
#include "gpukit/rtc/nvjitlink_functions.inc"
#undef X
        });
    if (found)
        return loaded;
    loaded.load_failure = "nvJitLink (libnvJitLink.so.13 or .12) could not be loaded, so device code cannot be "
                          "linked; install the CUDA toolkit's nvJitLink or set CUDA_HOME. Tried:" + tried;
    return loaded;
}

const loaded_nvjitlink& instance() {
    static const loaded_nvjitlink* loaded = new loaded_nvjitlink(load());  // never unloaded
    return *loaded;
}

}  // namespace

const nvjitlink_api& nvjitlink() {
    const loaded_nvjitlink& loaded = instance();
    if (!loaded.load_failure.empty())
        throw runtime_error(loaded.load_failure, 0, "dlopen");
    return loaded.table;
}

bool nvjitlink_available() noexcept {
    try {
        return instance().load_failure.empty();
    } catch (...) {
        return false;
    }
}

std::pair<unsigned, unsigned> nvjitlink_version() {
    unsigned major = 0, minor = 0;
    if (const nvJitLinkResult result = nvjitlink().nvJitLinkVersion(&major, &minor); result != NVJITLINK_SUCCESS)
        throw runtime_error("nvJitLinkVersion failed: nvJitLinkResult " + std::to_string(static_cast<int>(result)),
                            static_cast<int>(result), "nvJitLinkVersion");
    return {major, minor};
}

std::string nvjitlink_library_path() {
    return gpukit::detail::library_file(reinterpret_cast<const void*>(nvjitlink().nvJitLinkVersion));
}

}  // namespace gpukit::rtc
