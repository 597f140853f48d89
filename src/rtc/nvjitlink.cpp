#include "gpukit/rtc/nvjitlink.hpp"

#include "gpukit/core/detail/dynamic_library.hpp"
#include "gpukit/core/error.hpp"

#include <string>

namespace gpukit::rtc {
namespace {

using loaded_nvjitlink = gpukit::detail::loaded_library<nvjitlink_api>;

loaded_nvjitlink load() {
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

loaded_nvjitlink& instance() { return gpukit::detail::leaked_instance<loaded_nvjitlink, load>(); }

}  // namespace

const nvjitlink_api& nvjitlink() { return gpukit::detail::table_of(instance()); }

bool nvjitlink_available() noexcept { return gpukit::detail::loads_without_failure<loaded_nvjitlink, load>(); }

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
