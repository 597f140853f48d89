// The on-disk compilation cache: one file per compiled image, named by its cache key.
//
// An entry is "GPUKITC1", the payload size (8 bytes, little-endian), the SHA-256 of the
// payload, then the payload. load() checks all three, so a truncated or corrupt file is a
// miss (the caller compiles again and store() replaces it), never a bad image. It reads
// only regular files of at most 1 GiB: whatever else lies at an entry's path (a FIFO, a
// link to /dev/zero) is a miss too, never a hang or an unbounded read.
//
// Writes go to a temporary file in the same directory, renamed over the entry: rename is
// atomic within a file system, so any number of processes may compile the same source at
// once; each reader sees either no entry or a complete one, and the last writer wins with
// an identical payload.
//
// A cache holds code that will run in the user's process, so it is used only where nobody
// else can write (as ssh treats its keys): a directory it makes is 0700 and its entries 0600;
// a directory not owned by the user or writable by others is not used at all, and an entry
// not owned by the user or writable by others is a miss (store() replaces it). Either says so
// once per process through cleanup_warning.
//
// Size: each load() that hits marks its entry as used (its modification time), and each
// store() then removes the least recently used entries while the whole cache is larger than
// cache_size_limit(). Removing is unlinking: a process reading an entry meanwhile keeps what
// it opened, one looking it up later misses and compiles again, so any number of processes
// may share a cache.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpukit::rtc {

// A compilation cache in one directory, as described above. Cheap to make: it touches the
// disk only when used, and holds nothing but the path, so any number may name one directory.
class compile_cache {
public:
    // The cache in `directory`; the directory is made (0700) by the first store() that needs it.
    explicit compile_cache(std::filesystem::path directory) : directory_(std::move(directory)) {}

    // The payload stored under `key`, or nullopt when there is none, it fails its checks, or
    // the directory or the entry could have been written by someone else.
    std::optional<std::vector<char>> load(const std::string& key) const;
    // Stores `payload` under `key`, creating the directory (0700) if needed; nothing is stored
    // in a directory someone else could write, nor a payload too large for load() to read.
    // Throws runtime_error naming the path when the directory or the file cannot be written.
    void store(const std::string& key, const std::vector<char>& payload) const;

    // Why the directory is not to be trusted (owned by another user, or writable by the
    // group or others), as a phrase; empty when it is trusted or does not exist yet.
    std::string distrust() const;

    // The file that holds the entry for `key`: "<key>.gpukit-cache" in the directory.
    std::filesystem::path entry_path(const std::string& key) const;
    // The directory given to the constructor.
    const std::filesystem::path& directory() const noexcept { return directory_; }

    // What the cache holds on disk: its entry files and their total size (other files in
    // the directory are not counted); zero when the directory does not exist.
    struct usage_info {
        std::size_t entries = 0;   // the number of entry files
        std::uintmax_t bytes = 0;  // their sizes together, in bytes
    };
    // What the cache holds on disk now, as usage_info.
    usage_info usage() const;

    // One entry on disk: its key, its size, and when it was last stored or loaded
    // (nanoseconds since the Unix epoch).
    struct entry_info {
        std::string key;                // the cache key (the file name without its suffix)
        std::uintmax_t bytes = 0;       // the entry file's size in bytes
        std::int64_t last_used_ns = 0;  // the file's modification time, in ns since the epoch
    };
    // The entries, least recently used first.
    std::vector<entry_info> entries() const;
    // Removes the least recently used entries until the rest take at most `max_bytes`;
    // returns what it removed (an entry another process removed first is not counted).
    usage_info prune(std::uintmax_t max_bytes) const;
    // Removes every entry; returns what it removed.
    usage_info clear() const { return prune(0); }

private:
    std::filesystem::path directory_;
};

// The most bytes a cache may hold before store() prunes it (0: no limit):
// set_cache_size_limit()'s value, else GPUKIT_CACHE_SIZE (bytes, or a number with K, M, G or T
// for powers of 1024, "0" for no limit), else 1 GiB. logic_error for a malformed variable.
std::uintmax_t cache_size_limit();
// Sets the limit for this process (nullopt: back to the environment's, or the default).
void set_cache_size_limit(std::optional<std::uintmax_t> bytes) noexcept;
// The limit GPUKIT_CACHE_SIZE-style text `text` means; logic_error naming `what` when malformed.
std::uintmax_t parse_cache_size(std::string_view text, std::string_view what);

// True when GPUKIT_DISABLE_CACHE (or PYCUDA_DISABLE_CACHE) is set to anything: caching is
// off whatever directory a caller names.
bool cache_disabled_by_environment();

// GPUKIT_CACHE_DIR (else PYCUDA_CACHE_DIR), else $XDG_CACHE_HOME/gpukit, else
// ~/.cache/gpukit; nullopt when cache_disabled_by_environment() or no home is known.
std::optional<std::filesystem::path> default_cache_dir();

}  // namespace gpukit::rtc
