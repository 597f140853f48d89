// The compiled kernels of gpukit::array: gpukit's own elementwise and reduction kernels and
// the users' ElementwiseKernels.
//
// A kernel is compiled once (through the compilation cache on disk, so a new context or a
// new process finds it there) and loaded once per context, into a context cache
// (cuda/context_cache.hpp): the loaded modules belong to the context and never keep it
// alive, and they go when it goes or when clear_context_caches() drops them.
#pragma once

#include "gpukit/array/backend.hpp"
#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/function.hpp"
#include "gpukit/rtc/compiler.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace gpukit::array::detail {

// Threads per block of every generated kernel (the sources declare it in __launch_bounds__).
inline constexpr unsigned block_size = 256;

// A kernel loaded in the current context. `context` keeps the context, and with it the
// kernel, loaded for as long as the caller holds this.
struct cached_kernel {
    cuda::context_state_ptr context;
    // Shared with the context's cache, so the backend seam can hold it without copying.
    std::shared_ptr<const cuda::function> function;
    // Blocks that keep every multiprocessor of the device full: multiprocessor count times
    // the blocks of block_size threads one multiprocessor holds at once.
    unsigned full_grid;
    // The most threads a block of this kernel may have (fewer than the device's limit when
    // the kernel needs many registers).
    unsigned max_block;
};

// `k` as the backend seam holds a kernel (cuda_backend's).
inline loaded_kernel as_loaded(cached_kernel k) {
    return loaded_kernel{std::move(k.function), std::move(k.context), kernel_language::cuda, k.full_grid, k.max_block};
}

// What to compile, and the key that names it: two sources with one key must be the same
// request (the caller makes the key, e.g. a digest of every field, once).
struct kernel_source {
    std::string key;
    rtc::compile_request request;
    std::optional<std::filesystem::path> cache_dir;  // the compilation cache; nullopt: none
};

// Kernel `name` of `source`, loaded in the current context (compiled on first use).
cached_kernel kernel(const kernel_source& source, const std::string& name);

// A kernel_source key for `request`: a digest of everything the compilation depends on
// (header contents aside), so equal kernels made twice share one loaded module.
// std::invalid_argument for a request holding a NUL character (rtc::require_c_strings).
std::string request_key(const rtc::compile_request& request);

// A number naming generated kernel sources for the life of the process: a spec takes one
// when it is made, so a launch finds its kernel by an integer instead of by source text.
// The low 16 bits are zero: the spec adds its variant there (key + variant number < 2^16).
std::uint64_t new_kernel_key() noexcept;

// Kernel `name` of gpukit's own generated source, found by `key` (one key, one source; the
// key of a spec's variant is the spec's key combined with the variant). `source()` is
// called only when the kernel is not loaded in the current context yet. The source is
// compiled as C++17, unannotated functions are device functions, and it declares its
// kernels extern "C" itself.
cached_kernel kernel(std::uint64_t key, const std::string& name, const std::function<std::string()>& source);

// The same for a generated source compiled as `settings` asks (its options, include
// directories, compiler and architecture; its source and name are replaced, and the source
// declares its kernels extern "C"), through the compilation cache at `cache_dir` (nullopt:
// none): for generated kernels that take their caller's compile options.
cached_kernel kernel(std::uint64_t key, const std::string& name, const std::function<std::string()>& source,
                     const rtc::compile_request& settings, const std::optional<std::filesystem::path>& cache_dir);

// Blocks for `work_items` items with `items_per_thread` each: enough to cover them, at most
// `k.full_grid`, at least 1. The kernels loop (grid-stride) over the rest.
unsigned grid_for(const cached_kernel& k, long long work_items, long long items_per_thread);

}  // namespace gpukit::array::detail
