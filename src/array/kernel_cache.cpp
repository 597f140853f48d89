#include "kernel_cache.hpp"

#include "gpukit/array/elementwise.hpp"
#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/module.hpp"
#include "gpukit/rtc/program.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

namespace gpukit::array::detail {

namespace {

struct cache_state {
    std::mutex mutex;
    // Per context: (source, name) -> kernel. Each kernel keeps its module loaded and hence
    // its context alive.
    std::map<CUcontext, std::map<std::pair<std::string, std::string>, cached_kernel>> kernels;

    // Forget contexts whose only remaining owners are this cache's modules, so a context the
    // program has given up is really destroyed. `keep` (may be null) is never dropped.
    void drop_abandoned(CUcontext keep) {
        for (auto it = kernels.begin(); it != kernels.end();) {
            const auto& entries = it->second;
            const bool abandoned = it->first != keep && !entries.empty() &&
                                   entries.begin()->second.function.owner().use_count() <=
                                       static_cast<long>(entries.size());
            it = abandoned ? kernels.erase(it) : std::next(it);
        }
    }
};

cache_state& cache() {
    static cache_state* state = new cache_state;  // never destroyed: kernels may outlive main()
    return *state;
}

cached_kernel build(const std::string& source, const std::string& name, const cuda::context& ctx) {
    rtc::compile_options options;
    options.options = {"--std=c++17", "-default-device"};
    options.name = name + ".cu";
    options.no_extern_c = true;  // the sources declare extern "C" kernels themselves
    const rtc::compiled_program program = rtc::compile(source, options);
    const cuda::module mod = cuda::module::from_image(program.image());
    cuda::function f = mod.get_function(name);
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
    return cached_kernel{std::move(f), static_cast<unsigned>(per_mp * std::max(1, mps))};
}

}  // namespace

cached_kernel kernel(const std::string& source, const std::string& name) {
    const cuda::context ctx = cuda::context::current_or_throw("gpukit array kernels");
    cache_state& c = cache();
    {
        std::lock_guard lock(c.mutex);
        auto per_context = c.kernels.find(ctx.handle());
        if (per_context != c.kernels.end()) {
            auto found = per_context->second.find({source, name});
            if (found != per_context->second.end())
                return found->second;
        }
    }
    // Compiled outside the lock: NVRTC takes a while and other threads may launch meanwhile.
    // Two threads compiling the same kernel at once both succeed; the first stored wins.
    cached_kernel built = build(source, name, ctx);
    std::lock_guard lock(c.mutex);
    c.drop_abandoned(ctx.handle());
    return c.kernels[ctx.handle()].try_emplace({source, name}, std::move(built)).first->second;
}

unsigned grid_for(const cached_kernel& k, long long work_items, long long items_per_thread) {
    const long long per_block = static_cast<long long>(block_size) * items_per_thread;
    const long long needed = (work_items + per_block - 1) / per_block;
    return static_cast<unsigned>(std::clamp<long long>(needed, 1, k.full_grid));
}

}  // namespace gpukit::array::detail

void gpukit::array::release_unused_kernels() {
    detail::cache_state& c = detail::cache();
    std::lock_guard lock(c.mutex);
    c.drop_abandoned(nullptr);
}
