#include "gpukit/rtc/cache.hpp"
#include "gpukit/core/text.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/core/sha256.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <limits>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <set>

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

// Why a file or directory with status `st` could hold someone else's writing; empty when only
// the user could have written it.
std::string foreign_writer(const struct stat& st) {
    if (st.st_uid != geteuid())
        return "it is owned by user " + std::to_string(st.st_uid) + ", not by you (user " + std::to_string(geteuid()) +
               ")";
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
        return std::string("others can write to it (mode ") + mode + ")";
    }
    return {};
}

// cleanup_warning(message), once per message in this process.
void warn_once(const std::string& message) {
    static std::mutex mutex;
    static std::set<std::string> said;
    {
        const std::lock_guard lock(mutex);
        if (!said.insert(message).second)
            return;
    }
    cleanup_warning(message);
}

// Says once why the cache in `directory` (distrusted for `why`) is not used.
void warn_untrusted_directory(const std::filesystem::path& directory, const std::string& why) {
    warn_once("the compilation cache " + directory.string() + " is not used: " + why +
              "; kernels are compiled without it (use a directory only you can write: GPUKIT_CACHE_DIR)");
}

}  // namespace

std::string compile_cache::distrust() const {
    struct stat st {};
    if (::stat(directory_.c_str(), &st) != 0)
        return {};  // not there yet: store() makes it 0700
    return foreign_writer(st);
}

std::filesystem::path compile_cache::entry_path(const std::string& key) const {
    return directory_ / (key + entry_suffix);
}

std::vector<compile_cache::entry_info> compile_cache::entries() const {
    std::vector<entry_info> found;
    std::error_code failed;
    for (const auto& entry : std::filesystem::directory_iterator(directory_, failed)) {
        if (entry.path().extension() != entry_suffix)
            continue;
        struct stat st {};
        // An entry removed or replaced meanwhile (another process's store) is skipped.
        if (::lstat(entry.path().c_str(), &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        found.push_back({entry.path().stem().string(), static_cast<std::uintmax_t>(st.st_size),
                         std::int64_t(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec});
    }
    std::sort(found.begin(), found.end(), [](const entry_info& a, const entry_info& b) {
        return a.last_used_ns != b.last_used_ns ? a.last_used_ns < b.last_used_ns : a.key < b.key;
    });
    return found;
}

compile_cache::usage_info compile_cache::prune(std::uintmax_t max_bytes) const {
    const std::vector<entry_info> all = entries();
    std::uintmax_t total = 0;
    for (const entry_info& e : all)
        total += e.bytes;
    usage_info removed;
    for (const entry_info& e : all) {
        if (total <= max_bytes)
            break;
        total -= e.bytes;
        std::error_code failed;
        if (std::filesystem::remove(entry_path(e.key), failed)) {
            ++removed.entries;
            removed.bytes += e.bytes;
        }
    }
    return removed;
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
    if (const std::string why = distrust(); !why.empty()) {
        warn_untrusted_directory(directory_, why);
        return std::nullopt;
    }
    const std::string path = entry_path(key).string();
    struct stat st {};
    // (A path that is no regular file is a miss below, whoever owns it.)
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode))
        if (const std::string why = foreign_writer(st); !why.empty()) {
            warn_once("the compilation cache entry " + path + " is not used: " + why + "; it is compiled again");
            return std::nullopt;
        }
    // Anything may lie at the entry's path (a FIFO, a link to a device): only a regular file
    // of a plausible size is read, anything else is a miss that store() then replaces.
    const std::optional<std::string> content = read_regular_file(path, max_entry_size);
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
    ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // used now: the last to be pruned
    return std::vector<char>(file.begin() + header_size, file.end());
}

void compile_cache::store(const std::string& key, const std::vector<char>& payload) const {
    if (payload.size() > max_entry_size - header_size)
        return;                                       // load() would never read it back
    const std::uintmax_t limit = cache_size_limit();  // a malformed GPUKIT_CACHE_SIZE stores nothing
    std::error_code failed;
    if (std::filesystem::create_directories(directory_, failed))
        ::chmod(directory_.c_str(), 0700);  // made here: only the user may write (or read) it
    if (failed)
        throw runtime_error("cannot create the compilation cache directory " + directory_.string() + ": " +
                                failed.message() + " (set GPUKIT_CACHE_DIR, or pass cache_dir=False)",
                            0, "create_directories");
    if (const std::string why = distrust(); !why.empty()) {
        warn_untrusted_directory(directory_, why);
        return;
    }

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
        if (!write_file(temp.string(), entry) || ::chmod(temp.c_str(), 0600) != 0) {
            std::filesystem::remove(temp, failed);
            throw runtime_error("cannot write the compilation cache entry " + temp.string(), 0, "write");
        }
    }
    std::filesystem::rename(temp, entry_path(key), failed);
    if (failed) {
        std::error_code ignored;
        std::filesystem::remove(temp, ignored);
        throw runtime_error("cannot store the compilation cache entry " + entry_path(key).string() + ": " +
                                failed.message(),
                            0, "rename");
    }
    if (limit > 0 && usage().bytes > limit)
        prune(limit - limit / 10);  // a tenth below the limit, so that the next stores need not prune
}

namespace {

std::mutex limit_mutex;
std::optional<std::uintmax_t> limit_set;  // set_cache_size_limit's

}  // namespace

std::uintmax_t parse_cache_size(std::string_view text, std::string_view what) {
    std::string_view digits = text;
    while (!digits.empty() && std::isspace(static_cast<unsigned char>(digits.back())))
        digits.remove_suffix(1);
    std::uintmax_t scale = 1;
    if (!digits.empty()) {
        const char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(digits.back())));
        const std::string_view units = "KMGT";
        if (const std::size_t at = units.find(unit); at != std::string_view::npos) {
            scale = std::uintmax_t(1) << (10 * (at + 1));
            digits.remove_suffix(1);
        }
    }
    std::uintmax_t value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() ||
        value > std::numeric_limits<std::uintmax_t>::max() / scale)
        throw logic_error(std::string(what) + " '" + std::string(text) +
                          "' is not a size: expected a number of bytes, optionally followed by K, M, G or T "
                          "(powers of 1024), e.g. 1G; 0 for no limit");
    return value * scale;
}

std::uintmax_t cache_size_limit() {
    {
        const std::lock_guard lock(limit_mutex);
        if (limit_set)
            return *limit_set;
    }
    if (const char* text = std::getenv("GPUKIT_CACHE_SIZE"); text && *text)
        return parse_cache_size(text, "GPUKIT_CACHE_SIZE");
    return std::uintmax_t(1) << 30;
}

void set_cache_size_limit(std::optional<std::uintmax_t> bytes) noexcept {
    const std::lock_guard lock(limit_mutex);
    limit_set = bytes;
}

bool cache_disabled_by_environment() { return environment("GPUKIT_DISABLE_CACHE", "PYCUDA_DISABLE_CACHE") != nullptr; }

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
