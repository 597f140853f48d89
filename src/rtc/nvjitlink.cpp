#include "gpukit/rtc/nvjitlink.hpp"

#include "gpukit/core/detail/dynamic_library.hpp"
#include "gpukit/core/error.hpp"

#include <string>

namespace gpukit::rtc {
namespace {

struct nvjitlink_library {
    using loaded_type = gpukit::detail::loaded_library<nvjitlink_api>;
    static loaded_type load();
};

nvjitlink_library::loaded_type nvjitlink_library::load() {
    return gpukit::detail::load_from_candidates<nvjitlink_api>(
        gpukit::detail::library_candidates(gpukit::detail::toolkit_library_dirs(),
                                           {"libnvJitLink.so.13", "libnvJitLink.so.12", "libnvJitLink.so"}),
        [](void* library, nvjitlink_api& table, std::string& missing) {
#define X(name) gpukit::detail::resolve_symbol(library, #name, table.name, missing);
#include "gpukit/rtc/nvjitlink_functions.inc"
#undef X
        },
        "nvJitLink (libnvJitLink.so.13 or .12) could not be loaded, so device code cannot be linked; install the "
        "CUDA toolkit's nvJitLink or set CUDA_HOME.");
}

using library = gpukit::detail::run_time_library<nvjitlink_library>;

}  // namespace

const nvjitlink_api& detail::nvjitlink_table() { return library::api(); }

bool nvjitlink_available() noexcept { return library::available(); }

std::pair<unsigned, unsigned> nvjitlink_version() {
    unsigned major = 0, minor = 0;
    if (const nvJitLinkResult result = nvjitlink_call(&nvjitlink_api::nvJitLinkVersion, &major, &minor);
        result != NVJITLINK_SUCCESS)
        throw runtime_error("nvJitLinkVersion failed: nvJitLinkResult " + std::to_string(static_cast<int>(result)),
                            static_cast<int>(result), "nvJitLinkVersion");
    return {major, minor};
}

std::string nvjitlink_library_path() {
    return gpukit::detail::library_file(reinterpret_cast<const void*>(detail::nvjitlink_table().nvJitLinkVersion));
}

}  // namespace gpukit::rtc
