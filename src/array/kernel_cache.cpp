#include "kernel_cache.hpp"

#include "gpukit/core/sha256.hpp"
#include "gpukit/cuda/context_cache.hpp"
#include "gpukit/cuda/module.hpp"
#include "gpukit/rtc/cache.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gpukit::array::detail {

namespace {

struct module_kernel {
    std::shared_ptr<const cuda::function> function;
    unsigned full_grid;
    unsigned max_block;
};

// The kernels loaded in one context: a context cache, so its modules are owned by the
// context (through a borrowed pointer) instead of owning it.
struct loaded_modules {
    explicit loaded_modules(cuda::detail::context_state& state) : owner(cuda::borrowed(state)) {}

    struct entry {
        cuda::module module;
        std::vector<std::pair<std::string, module_kernel>> kernels;  // few per module
    };

    const cuda::context_state_ptr owner;
    std::mutex mutex;
    std::unordered_map<std::string, entry> modules;      // by kernel_source::key
    std::unordered_map<std::uint64_t, entry> generated;  // gpukit's own kernels, by new_kernel_key()
};

module_kernel describe(cuda::function f, const cuda::context& ctx) {
    // Resident blocks per multiprocessor, limited by threads and by registers (rounded up to
    // the allocation unit of 8 per thread); the kernels use no dynamic shared memory and
    // little static shared memory.
    const cuda::device dev = ctx.get_device();
    const int threads = dev.attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    const int registers = dev.attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
    const int per_thread = (std::max(1, f.attribute(CU_FUNC_ATTRIBUTE_NUM_REGS)) + 7) / 8 * 8;
    const int per_mp = std::max(1, std::min(threads / static_cast<int>(block_size),
                                            registers / (per_thread * static_cast<int>(block_size))));
    const int mps = dev.attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    const int max_block = f.attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    return module_kernel{std::make_shared<const cuda::function>(std::move(f)),
                         static_cast<unsigned>(per_mp * std::max(1, mps)),
                         static_cast<unsigned>(std::max(1, max_block))};
}

// The kernel `name` of the loaded entry, taken from its module on first use. Called with
// the cache's lock held.
const module_kernel& kernel_of(loaded_modules::entry& e, const std::string& name, const cuda::context& ctx) {
    for (const auto& [kernel_name, k] : e.kernels)
        if (kernel_name == name)
            return k;
    e.kernels.emplace_back(name, describe(e.module.get_function(name), ctx));
    return e.kernels.back().second;
}

// Kernel `name` of the module cached under `key` in the map `which` of the current context's
// cache; `compile()` gives the image on a miss.
template <class Key, class Compile>
cached_kernel find_or_load(std::unordered_map<Key, loaded_modules::entry> loaded_modules::*which, const Key& key,
                           const std::string& name, Compile compile) {
    const cuda::context ctx = cuda::context::current_or_throw("gpukit array kernels");
    const std::shared_ptr<loaded_modules> cache = cuda::context_cache<loaded_modules>(*ctx.state());
    auto& modules = (*cache).*which;
    {
        std::lock_guard lock(cache->mutex);
        if (auto found = modules.find(key); found != modules.end()) {
            const module_kernel& k = kernel_of(found->second, name, ctx);
            return cached_kernel{ctx.state(), k.function, k.full_grid, k.max_block};
        }
    }
    // Compiled and loaded outside the lock: NVRTC takes a while and other threads may launch
    // meanwhile. Two threads loading the same kernel at once both succeed; the first stored
    // wins and the other module is unloaded.
    cuda::module loaded = cuda::module::from_image(compile(), cache->owner);
    std::lock_guard lock(cache->mutex);
    auto& e = modules.try_emplace(key, loaded_modules::entry{std::move(loaded), {}}).first->second;
    const module_kernel& k = kernel_of(e, name, ctx);
    return cached_kernel{ctx.state(), k.function, k.full_grid, k.max_block};
}

}  // namespace

cached_kernel kernel(const kernel_source& source, const std::string& name) {
    return find_or_load(&loaded_modules::modules, source.key, name,
                        [&] { return rtc::compile_cached(source.request, source.cache_dir).image; });
}

std::string request_key(const rtc::compile_request& r) {
    rtc::require_c_strings(r);  // the kernels made with it refuse a NUL when made, not at first launch
    sha256 hash;
    const auto field = [&](std::string_view value) {
        const std::uint64_t size = value.size();
        hash.update(&size, sizeof size).update(value);
    };
    const auto fields = [&](const std::vector<std::string>& values) {
        field(std::to_string(values.size()));
        for (const std::string& v : values)
            field(v);
    };
    field(r.source);
    field(r.options.arch);
    field(r.options.no_extern_c ? "no_extern_c" : "extern_c");
    field(std::to_string(static_cast<int>(r.compiler)) + ":" + r.nvcc);
    field(std::to_string(static_cast<int>(r.output)));
    fields(r.options.options);
    fields(r.options.include_dirs);
    fields(r.options.system_include_dirs);
    return hash.hex_digest();
}

std::uint64_t new_kernel_key() noexcept {
    static std::atomic<std::uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed) << 16;
}

namespace {

std::vector<char> compile_generated(std::string source, const std::string& name) {
    rtc::compile_request request;
    request.source = std::move(source);
    request.options.options = {"--std=c++17", "-default-device"};
    request.options.name = name + ".cu";
    request.options.no_extern_c = true;  // the sources declare extern "C" kernels themselves
    return rtc::compile_cached(request, rtc::default_cache_dir()).image;
}

}  // namespace

cached_kernel kernel(std::uint64_t key, const std::string& name, const std::function<std::string()>& source) {
    return find_or_load(&loaded_modules::generated, key, name, [&] { return compile_generated(source(), name); });
}

cached_kernel kernel(std::uint64_t key, const std::string& name, const std::function<std::string()>& source,
                     const rtc::compile_request& settings, const std::optional<std::filesystem::path>& cache_dir) {
    return find_or_load(&loaded_modules::generated, key, name, [&] {
        rtc::compile_request request = settings;
        request.source = source();
        request.options.name = name + ".cu";
        request.options.no_extern_c = true;
        return rtc::compile_cached(request, cache_dir).image;
    });
}

unsigned grid_for(const cached_kernel& k, long long work_items, long long items_per_thread) {
    const long long per_block = static_cast<long long>(block_size) * items_per_thread;
    const long long needed = (work_items + per_block - 1) / per_block;
    return static_cast<unsigned>(std::clamp<long long>(needed, 1, k.full_grid));
}

}  // namespace gpukit::array::detail
