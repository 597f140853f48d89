#include "gpukit/random/curand_headers.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/core/text.hpp"
#include "gpukit/random/curand_library.hpp"

#include <charconv>
#include <filesystem>

namespace gpukit::random {

namespace {

namespace fs = std::filesystem;

bool holds_curand_kernel(const fs::path& dir) {
    std::error_code ignored;
    return fs::is_regular_file(dir / "curand_kernel.h", ignored);
}

curand_headers headers_in(const fs::path& dir, bool in_toolkit) {
    const std::optional<std::string> text = read_file((dir / "curand.h").string());
    return curand_headers{dir.string(), in_toolkit, text ? curand_header_version(*text) : std::nullopt};
}

// The pip package directories that may hold curand_kernel.h under one `nvidia` directory.
std::vector<fs::path> pip_candidates(const std::vector<std::string>& nvidia_package_dirs) {
    std::vector<fs::path> dirs;
    for (const auto& nvidia : nvidia_package_dirs)
        for (const char* package : {"curand", "cu13"})
            dirs.push_back(fs::path(nvidia) / package / "include");
    return dirs;
}

}  // namespace

std::optional<std::array<int, 3>> curand_header_version(const std::string& curand_h) {
    const char* const macros[] = {"CURAND_VER_MAJOR", "CURAND_VER_MINOR", "CURAND_VER_PATCH"};
    std::array<int, 3> version{};
    bool found[3] = {};
    for (const std::string_view line : split_lines(curand_h)) {
        const std::vector<std::string_view> words = split_words(line);
        if (words.size() != 3 || words[0] != "#define")
            continue;
        for (int k = 0; k < 3; ++k) {
            if (words[1] != macros[k])
                continue;
            const auto [end, ec] = std::from_chars(words[2].data(), words[2].data() + words[2].size(), version[k]);
            found[k] = ec == std::errc() && end == words[2].data() + words[2].size();
        }
    }
    if (!found[0] || !found[1] || !found[2])
        return std::nullopt;
    return version;
}

std::optional<curand_headers> find_curand_headers(const rtc::cuda_toolkit& toolkit,
                                                  const std::vector<std::string>& nvidia_package_dirs) {
    if (toolkit.include_dirs.empty())
        return std::nullopt;
    for (const auto& dir : toolkit.include_dirs)
        if (holds_curand_kernel(dir))
            return headers_in(dir, true);
    for (const auto& dir : pip_candidates(nvidia_package_dirs))
        if (holds_curand_kernel(dir))
            return headers_in(dir, false);
    return std::nullopt;
}

std::optional<curand_headers> find_curand_headers() {
    const rtc::toolkit_search search = rtc::toolkit_search_from_environment();
    return find_curand_headers(rtc::find_cuda_toolkit(search), search.nvidia_package_dirs);
}

std::optional<std::array<int, 3>> curand_version() {
    if (const auto headers = find_curand_headers(); headers && headers->version)
        return headers->version;
    if (curand_library_available())
        return curand_library_version();
    return std::nullopt;
}

curand_headers require_curand_headers() {
    const rtc::toolkit_search search = rtc::toolkit_search_from_environment();
    const rtc::cuda_toolkit toolkit = rtc::find_cuda_toolkit(search);
    if (auto found = find_curand_headers(toolkit, search.nvidia_package_dirs))
        return *found;
    std::string message =
        "cuRAND's device headers are needed for the XORWOW, MRG32k3a and Sobol generators "
        "(curandom.rand needs none): ";
    if (toolkit.include_dirs.empty()) {
        message += "curand_kernel.h needs the CUDA toolkit's headers, and gpukit found " + rtc::describe(toolkit);
    } else {
        message += "curand_kernel.h is in none of " + rtc::describe(toolkit) + ", nor in";
        const std::vector<fs::path> pip = pip_candidates(search.nvidia_package_dirs);
        if (pip.empty())
            message += " a pip `nvidia` package (none is installed)";
        for (const auto& dir : pip) {
            message += ' ';
            message += dir.string();
        }
        message += ". Install the toolkit's cuRAND (or the pip package nvidia-curand-cu12 / the CUDA 13 wheels)";
    }
    throw runtime_error(message, 0, "curand_kernel.h");
}

}  // namespace gpukit::random
