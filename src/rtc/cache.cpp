#include "gpukit/rtc/cache.hpp"
#include "gpukit/core/text.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/core/sha256.hpp"

#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <iterator>

namespace gpukit::rtc {
namespace {

constexpr char magic[8] = {'G', 'P', 'U', 'K', 'I', 'T', 'C', '1'};
constexpr std::size_t header_size = sizeof(magic) + 8 + 32;
// Far above any module image a compilation makes; a larger file is not ours, so not read.
constexpr std::size_t max_entry_size = std::size_t(1) << 30;
constexpr const char* entry_suffix = ".gpukit-cache";

const char* environment(const char* gpukit_name, const char* pycuda_name) {
    if (const char* value = std::getenv(gpukit_name))
        return value;
    return std::getenv(pycuda_name);
}

}  // namespace

std::filesystem::path compile_cache::entry_path(const std::string& key) const {
    return directory_ / (key + entry_suffix);
}

compile_cache::usage_info compile_cache::usage() const {
    usage_info usage;
    std::error_code failed;
    for (const auto& entry : std::filesystem::directory_iterator(directory_, failed)) {
        // An entry removed or replaced meanwhile (another process's store) is skipped.
        std::error_code gone;
        if (entry.path().extension() != entry_suffix || !entry.is_regular_file(gone))
            continue;
        const std::uintmax_t size = entry.file_size(gone);
        if (gone)
            continue;
        ++usage.entries;
        usage.bytes += size;
    }
    return usage;
}

std::optional<std::vector<char>> compile_cache::load(const std::string& key) const {
    // Anything may lie at the entry's path (a FIFO, a link to a device): only a regular file
    // of a plausible size is read, anything else is a miss that store() then replaces.
    const std::optional<std::string> content = read_regular_file(entry_path(key).string(), max_entry_size);
    if (!content)
        return std::nullopt;
    const std::vector<char> file(content->begin(), content->end());
    if (file.size() < header_size || std::memcmp(file.data(), magic, sizeof(magic)) != 0)
        return std::nullopt;
    std::uint64_t size = 0;
    for (int i = 0; i < 8; ++i)
        size |= std::uint64_t(static_cast<unsigned char>(file[sizeof(magic) + i])) << (8 * i);
    if (size != file.size() - header_size)
        return std::nullopt;
    const sha256::digest_type digest = sha256().update(file.data() + header_size, size).digest();
    if (std::memcmp(digest.data(), file.data() + sizeof(magic) + 8, digest.size()) != 0)
        return std::nullopt;
    return std::vector<char>(file.begin() + header_size, file.end());
}

void compile_cache::store(const std::string& key, const std::vector<char>& payload) const {
    if (payload.size() > max_entry_size - header_size)
        return;  // load() would never read it back
    std::error_code failed;
    std::filesystem::create_directories(directory_, failed);
    if (failed)
        throw runtime_error("cannot create the compilation cache directory " + directory_.string() + ": " +
                                failed.message() + " (set GPUKIT_CACHE_DIR, or pass cache_dir=False)",
                            0, "create_directories");

    std::string header(magic, sizeof(magic));
    for (int i = 0; i < 8; ++i)
        header += static_cast<char>(std::uint64_t(payload.size()) >> (8 * i));
    const sha256::digest_type digest = sha256().update(payload.data(), payload.size()).digest();
    header.append(reinterpret_cast<const char*>(digest.data()), digest.size());

    // Unique per process and per call, so concurrent writers never share a temporary file.
    static std::atomic<unsigned> counter{0};
    const std::filesystem::path temp =
        directory_ / ("." + key + "." + std::to_string(getpid()) + "." + std::to_string(counter++) + ".tmp");
    {
        std::string entry(header.begin(), header.end());
        entry.append(payload.data(), payload.size());
        if (!write_file(temp.string(), entry)) {
            std::filesystem::remove(temp, failed);
            throw runtime_error("cannot write the compilation cache entry " + temp.string(), 0, "write");
        }
    }
    std::filesystem::rename(temp, entry_path(key), failed);
    if (failed) {
        std::error_code ignored;
        std::filesystem::remove(temp, ignored);
        throw runtime_error("cannot store the compilation cache entry " + entry_path(key).string() + ": " +
                                failed.message(), 0, "rename");
    }
}

bool cache_disabled_by_environment() {
    return environment("GPUKIT_DISABLE_CACHE", "PYCUDA_DISABLE_CACHE") != nullptr;
}

std::optional<std::filesystem::path> default_cache_dir() {
    if (cache_disabled_by_environment())
        return std::nullopt;
    if (const char* dir = environment("GPUKIT_CACHE_DIR", "PYCUDA_CACHE_DIR"); dir && *dir)
        return std::filesystem::path(dir);
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        return std::filesystem::path(xdg) / "gpukit";
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::filesystem::path(home) / ".cache" / "gpukit";
    return std::nullopt;
}

}  // namespace gpukit::rtc
