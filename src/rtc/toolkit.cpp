#include "gpukit/rtc/toolkit.hpp"

#include "gpukit/core/detail/nvidia_packages.hpp"
#include "gpukit/rtc/api.hpp"
#include "gpukit/rtc/nvcc.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace gpukit::rtc {
namespace {

namespace fs = std::filesystem;

bool is_file(const fs::path& path) {
    std::error_code ignored;
    return fs::is_regular_file(path, ignored);
}

bool is_dir(const fs::path& path) {
    std::error_code ignored;
    return fs::is_directory(path, ignored);
}

// `dir` followed by its cccl/ subdirectory when it has one.
void add_with_cccl(std::vector<std::string>& dirs, const fs::path& dir) {
    dirs.push_back(dir.lexically_normal().string());
    if (is_dir(dir / "cccl"))
        dirs.push_back((dir / "cccl").lexically_normal().string());
}

// A toolkit root (<root>/include/cuda_runtime.h): its include directories, else none.
std::vector<std::string> root_include_dirs(const fs::path& root) {
    std::vector<std::string> dirs;
    if (is_file(root / "include" / "cuda_runtime.h"))
        add_with_cccl(dirs, root / "include");
    return dirs;
}

// NVIDIA's pip packages under one `nvidia` directory: CUDA 13's single nvidia/cu13/include,
// else CUDA 12's nvidia/<component>/include directories (in name order) when one of them
// holds cuda_runtime.h.
std::vector<std::string> pip_include_dirs(const fs::path& nvidia) {
    std::vector<std::string> dirs;
    if (is_file(nvidia / "cu13" / "include" / "cuda_runtime.h")) {
        add_with_cccl(dirs, nvidia / "cu13" / "include");
        return dirs;
    }
    std::vector<fs::path> components;
    std::error_code failed;
    for (const auto& entry : fs::directory_iterator(nvidia, failed))
        if (is_dir(entry.path() / "include"))
            components.push_back(entry.path() / "include");
    std::sort(components.begin(), components.end());
    const bool has_runtime = std::any_of(components.begin(), components.end(),
                                         [](const fs::path& dir) { return is_file(dir / "cuda_runtime.h"); });
    if (has_runtime)
        for (const auto& dir : components)
            add_with_cccl(dirs, dir);
    return dirs;
}

std::string getenv_or_empty(const char* name) {
    const char* value = std::getenv(name);
    return value ? value : "";
}

}  // namespace

toolkit_search toolkit_search_from_environment() {
    toolkit_search search;
    search.cuda_path = getenv_or_empty("CUDA_PATH");
    search.cuda_home = getenv_or_empty("CUDA_HOME");
    search.path = getenv_or_empty("PATH");
    search.nvidia_package_dirs = gpukit::detail::nvidia_package_dirs();
    return search;
}

cuda_toolkit find_cuda_toolkit(const toolkit_search& search) {
    cuda_toolkit toolkit;
    // Tries one root; true when it is the toolkit.
    auto try_root = [&toolkit](const std::string& via, const std::string& root) {
        if (root.empty()) {
            toolkit.looked_in.push_back(via + ": not set");
            return false;
        }
        toolkit.include_dirs = root_include_dirs(root);
        toolkit.looked_in.push_back(via + ": " + (fs::path(root) / "include").string() +
                                    (toolkit.include_dirs.empty() ? " (no cuda_runtime.h)" : ""));
        if (toolkit.include_dirs.empty())
            return false;
        toolkit.found_via = via;
        return true;
    };
    if (try_root("CUDA_PATH", search.cuda_path) || try_root("CUDA_HOME", search.cuda_home))
        return toolkit;
    const std::string nvcc = find_on_path("nvcc", search.path);
    if (try_root("nvcc on PATH", nvcc.empty() ? "" : fs::path(nvcc).parent_path().parent_path().string()))
        return toolkit;
    for (const auto& nvidia : search.nvidia_package_dirs) {
        toolkit.include_dirs = pip_include_dirs(nvidia);
        toolkit.looked_in.push_back("pip packages: " + nvidia +
                                    (toolkit.include_dirs.empty() ? " (no cu13/include or cuda_runtime/include)" : ""));
        if (!toolkit.include_dirs.empty()) {
            toolkit.found_via = "pip packages";
            return toolkit;
        }
    }
    if (search.nvidia_package_dirs.empty())
        toolkit.looked_in.push_back("pip packages: no `nvidia` package installed");
    try_root(search.system_root, search.system_root);
    return toolkit;
}

cuda_toolkit find_cuda_toolkit() { return find_cuda_toolkit(toolkit_search_from_environment()); }

std::string toolkit_identity(const cuda_toolkit& toolkit) {
    std::string identity;
    for (const auto& dir : toolkit.include_dirs) {
        identity += detail::file_identity(dir) + "\n";
        for (const char* version_file : {"cuda_runtime_api.h", "cuda.h", "cuda/std/__cccl/version.h"})
            if (is_file(fs::path(dir) / version_file))
                identity += detail::file_identity((fs::path(dir) / version_file).string()) + "\n";
    }
    return identity;
}

std::string describe(const cuda_toolkit& toolkit) {
    std::string text;
    if (!toolkit.include_dirs.empty()) {
        text = "the CUDA toolkit headers in";
        for (const auto& dir : toolkit.include_dirs)
            text += " " + dir;
        return text + " (found via " + toolkit.found_via + ")";
    }
    text = "no CUDA toolkit headers (a directory with cuda_runtime.h); looked in:";
    for (const auto& place : toolkit.looked_in)
        text += "\n    " + place;
    return text + "\n  Set CUDA_PATH or CUDA_HOME to a CUDA toolkit, or install NVIDIA's pip packages of the toolkit";
}

}  // namespace gpukit::rtc
