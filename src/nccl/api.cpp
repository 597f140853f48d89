#include "gpukit/nccl/api.hpp"

#include "gpukit/core/detail/dynamic_library.hpp"
#include "gpukit/core/fork.hpp"
#include "gpukit/nccl/error.hpp"
#include "gpukit/core/detail/nvidia_packages.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>

namespace gpukit::nccl {
namespace detail {
namespace {

// The file of the libnccl.so.2 this process has loaded already, or empty. RTLD_NOLOAD only
// looks: it takes a reference that dlclose gives back, and loads nothing.
std::string already_loaded() {
    void* library = dlopen("libnccl.so.2", RTLD_NOW | RTLD_NOLOAD);
    if (!library)
        return {};
    std::string path;
    link_map* map = nullptr;
    if (dlinfo(library, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name)
        path = map->l_name;
    dlclose(library);
    return path;
}

void add_home(std::vector<std::string>& dirs, const char* variable) {
    if (const char* home = std::getenv(variable); home && *home)
        for (const char* sub : {"/lib64/", "/lib/"})
            dirs.push_back(std::string(home) + sub);
}

}  // namespace

std::vector<std::string> default_candidates() {
    std::vector<std::string> candidates;
    if (std::string loaded = already_loaded(); !loaded.empty())
        candidates.push_back(loaded);
    std::vector<std::string> dirs = gpukit::detail::ld_library_path_dirs();
    add_home(dirs, "CUDA_HOME");
    add_home(dirs, "CUDA_PATH");
    dirs.push_back("/usr/local/cuda/lib64/");
    dirs.push_back("/usr/local/cuda/lib/");
    for (auto& dir : gpukit::detail::nvidia_package_library_dirs({"nccl", "cu13"}))
        dirs.push_back(std::move(dir));
    dirs.push_back("");  // last: the dynamic linker's own search
    for (auto& candidate : gpukit::detail::library_candidates(dirs, {"libnccl.so.2", "libnccl.so"}))
        candidates.push_back(std::move(candidate));
    return candidates;
}

loaded_nccl load(const std::vector<std::string>& candidates) {
    return gpukit::detail::load_from_candidates<nccl_api>(
        candidates,
        [](void* library, nccl_api& table, std::string& missing) {
#define X(type, name, params) gpukit::detail::resolve_symbol(library, #name, table.name, missing);
#include "gpukit/nccl/nccl_functions.inc"
#undef X
        },
        "NCCL (libnccl.so.2, version 2.18 or newer) could not be loaded, so gpukit.nccl cannot run collectives; "
        "install NCCL with the CUDA toolkit, the pip package nvidia-nccl-cu13 (or -cu12), or set CUDA_HOME or "
        "LD_LIBRARY_PATH to its directory.");
}

}  // namespace detail

namespace {

// NCCL's calls take locks of their own and may wait on their peers for as long as those take,
// so they cannot hold fork() off (core/fork.hpp): a child of the process that loaded NCCL is
// refused instead, as for CUDA, which NCCL needs anyway.
struct nccl_library {
    struct loaded_type : detail::loaded_nccl {
        std::uint64_t fork_generation = gpukit::fork_generation();  // of the process that loaded it
    };
    static loaded_type load() { return {detail::load(detail::default_candidates())}; }
    static void check_usable(const loaded_type& loaded) {
        refuse_in_forked_child<runtime_error>(loaded.fork_generation, "NCCL");
    }
};

using library = gpukit::detail::run_time_library<nccl_library>;

}  // namespace

const nccl_api& api() { return library::api(); }

bool nccl_available() noexcept { return library::available(); }

int version() {
    int number = 0;
    check(api().ncclGetVersion(&number), "ncclGetVersion");
    return number;
}

std::string nccl_library_path() {
    return gpukit::detail::library_file(reinterpret_cast<const void*>(api().ncclGetVersion));
}

}  // namespace gpukit::nccl
