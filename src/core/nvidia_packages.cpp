#include "gpukit/core/detail/nvidia_packages.hpp"

#include "gpukit/core/fork.hpp"

#include <mutex>

namespace gpukit::detail {
namespace {

std::mutex dirs_mutex;
std::vector<std::string> dirs_set;

}  // namespace

void set_nvidia_package_dirs(std::vector<std::string> dirs) {
    const fork_hold hold;  // a child made by fork() meanwhile must not inherit the lock held
    const std::lock_guard lock(dirs_mutex);
    dirs_set = std::move(dirs);
}

std::vector<std::string> nvidia_package_dirs() {
    const fork_hold hold;
    const std::lock_guard lock(dirs_mutex);
    return dirs_set;
}

std::vector<std::string> nvidia_package_library_dirs(std::initializer_list<const char*> packages) {
    std::vector<std::string> dirs;
    for (const std::string& nvidia : nvidia_package_dirs())
        for (const char* package : packages)
            dirs.push_back(nvidia + "/" + package + "/lib/");
    return dirs;
}

}  // namespace gpukit::detail
