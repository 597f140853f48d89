#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/context_cache.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"

#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

namespace gpukit::cuda {
namespace {

// CUcontext -> its state, so get_current() hands back the same state every time. Leaked
// on purpose: context states may die during static destruction at exit.
struct context_registry {
    std::mutex mutex;
    std::unordered_map<CUcontext, std::weak_ptr<detail::context_state>> states;
};
context_registry& registry() {
    static context_registry* instance = new context_registry;
    return *instance;
}

// References held by this thread's context stack, mirroring pushes and pops made through
// gpukit. They keep a current context alive even when the user dropped every handle.
thread_local std::vector<context_state_ptr> pushed_contexts;

// Finds the registered state of `handle`, or registers `make()`'s result for it.
template <class Make>
context_state_ptr find_or_register(CUcontext handle, Make make) {
    context_registry& r = registry();
    std::lock_guard lock(r.mutex);
    if (auto found = r.states.find(handle); found != r.states.end())
        if (context_state_ptr live = found->second.lock())
            return live;
    context_state_ptr state = make();
    r.states[handle] = state;
    return state;
}

CUcontext current_handle() {
    CUcontext handle = nullptr;
    GPUKIT_CU(cuCtxGetCurrent, &handle);
    return handle;
}

}  // namespace

void report_release_failure(CUresult result, const char* routine) noexcept {
    // At process exit the driver may already be gone; that is not worth a warning.
    if (result == CUDA_SUCCESS || result == CUDA_ERROR_DEINITIALIZED)
        return;
    try {
        cleanup_warning(std::string(routine) + " failed while releasing a resource: " + error_name(result));
    } catch (...) {
    }
}

detail::context_state::~context_state() {
    drop_caches(*this, nullptr);  // their resources belong to this context: free them while it exists
    {
        context_registry& r = registry();
        std::lock_guard lock(r.mutex);
        auto found = r.states.find(handle);
        if (found != r.states.end() && found->second.expired())
            r.states.erase(found);
    }
    try {
        const driver_api& driver = api();
        if (owns == ownership::created)
            report_release_failure(driver.cuCtxDestroy(handle), "cuCtxDestroy");
        else if (owns == ownership::primary)
            report_release_failure(driver.cuDevicePrimaryCtxRelease(static_cast<CUdevice>(device_ordinal)),
                                   "cuDevicePrimaryCtxRelease");
    } catch (...) {
        // No driver: nothing to release.
    }
}

std::shared_ptr<void> detail::find_or_make_cache(context_state& state, const void* tag, cache_maker make) {
    const auto find = [&]() -> std::shared_ptr<void> {
        for (const auto& [key, cache] : state.caches)
            if (key == tag)
                return cache;
        return nullptr;
    };
    {
        std::lock_guard lock(state.caches_mutex);
        if (auto found = find())
            return found;
    }
    // Made outside the lock: a cache may need another cache of the same context while it is
    // made. Two threads may both make one; the first stored wins, the other is dropped.
    std::shared_ptr<void> made = make(state);
    std::lock_guard lock(state.caches_mutex);
    if (auto found = find())
        return found;
    state.caches.emplace_back(tag, made);
    return made;
}

void detail::drop_caches(context_state& state, const void* tag) noexcept {
    std::vector<std::pair<const void*, std::shared_ptr<void>>> dropped;
    {
        std::lock_guard lock(state.caches_mutex);
        if (!tag) {
            dropped.swap(state.caches);
        } else {
            for (auto it = state.caches.begin(); it != state.caches.end();)
                if (it->first == tag) {
                    dropped.push_back(std::move(*it));
                    it = state.caches.erase(it);
                } else {
                    ++it;
                }
        }
    }
    // Destroyed here, outside the lock, newest first (a cache may use an older one).
    while (!dropped.empty())
        dropped.pop_back();
}

void detail::drop_caches_everywhere(const void* tag) noexcept {
    std::vector<context_state_ptr> live;
    {
        context_registry& r = registry();
        std::lock_guard lock(r.mutex);
        for (const auto& [handle, weak] : r.states)
            if (context_state_ptr state = weak.lock())
                live.push_back(std::move(state));
    }
    // Outside the registry's lock: dropping the last owner of a state below destroys it,
    // and ~context_state takes that lock.
    for (const context_state_ptr& state : live)
        drop_caches(*state, tag);
}

context context::create(const device& dev, unsigned int flags) {
    CUcontext handle = nullptr;
    // cuCtxCreate pushes the new context only when it succeeds, so a failure leaves the
    // caller's stack untouched.
    const CUresult result = api().cuCtxCreate(&handle, nullptr, flags, dev.handle());
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, "cuCtxCreate",
                         "device " + std::to_string(dev.ordinal()) + ", flags " + std::to_string(flags));
    auto state = find_or_register(handle, [&] {
        return std::make_shared<detail::context_state>(handle, dev.ordinal(),
                                                       detail::context_state::ownership::created);
    });
    pushed_contexts.push_back(state);
    return context(std::move(state));
}

context context::retain_primary(const device& dev) {
    CUcontext handle = nullptr;
    GPUKIT_CU(cuDevicePrimaryCtxRetain, &handle, dev.handle());
    bool made_new = false;
    auto state = find_or_register(handle, [&] {
        made_new = true;
        return std::make_shared<detail::context_state>(handle, dev.ordinal(),
                                                       detail::context_state::ownership::primary);
    });
    if (!made_new)  // the live state already holds one retain; give ours back
        report_release_failure(api().cuDevicePrimaryCtxRelease(dev.handle()), "cuDevicePrimaryCtxRelease");
    return context(std::move(state));
}

namespace {

// The state of `handle`, the current context, which gpukit did not make or retain (another
// library's: CuPy's, PyTorch's, numba's, the runtime API's). gpukit keeps kernels and a pool per
// context, in the context's state, so a state made and dropped at every operation would load
// its kernels every time (0.5 ms per x + y). Such libraries use their device's primary
// context: that one is retained here and kept for the rest of the process, as those
// libraries keep it. Any other context is borrowed for as long as gpukit's objects use it
// (nothing tells gpukit when another library destroys it). Called under the registry's lock.
context_state_ptr adopt_current(CUcontext handle) {
    CUdevice dev = 0;
    GPUKIT_CU(cuCtxGetDevice, &dev);
    const int ordinal = static_cast<int>(dev);
    unsigned flags = 0;
    int active = 0;
    CUcontext primary = nullptr;
    // Only an active primary context can be the current one: no retain creates one here.
    if (api().cuDevicePrimaryCtxGetState(dev, &flags, &active) == CUDA_SUCCESS && active &&
        api().cuDevicePrimaryCtxRetain(&primary, dev) == CUDA_SUCCESS) {
        if (primary == handle) {
            auto state =
                std::make_shared<detail::context_state>(handle, ordinal, detail::context_state::ownership::primary);
            // Never freed: the driver reclaims the context when the process ends, and no
            // destructor runs against a driver that may be unloading.
            static auto* kept_for_the_process = new std::vector<context_state_ptr>;
            kept_for_the_process->push_back(state);
            return state;
        }
        report_release_failure(api().cuDevicePrimaryCtxRelease(dev), "cuDevicePrimaryCtxRelease");
    }
    return std::make_shared<detail::context_state>(handle, ordinal, detail::context_state::ownership::borrowed);
}

}  // namespace

std::optional<context> context::current() {
    const CUcontext handle = current_handle();
    if (!handle)
        return std::nullopt;
    return context(find_or_register(handle, [&] { return adopt_current(handle); }));
}

context context::current_or_throw(const char* operation) {
    if (auto ctx = current())
        return *ctx;
    throw logic_error(std::string(operation) +
                      " needs a current CUDA context, and none is current on this thread: create one with "
                      "Device(n).make_context(), push one with Context.push(), or import gpukit.autoinit");
}

void context::pop() {
    if (!current_handle())
        throw logic_error("Context.pop(): the context stack of this thread is empty; there is no context to pop");
    CUcontext popped = nullptr;
    GPUKIT_CU(cuCtxPopCurrent, &popped);
    if (!pushed_contexts.empty() && pushed_contexts.back()->handle == popped) {
        context_state_ptr released = std::move(pushed_contexts.back());
        pushed_contexts.pop_back();
    }
}

const context_state_ptr& context::state() const {
    if (!state_)
        throw logic_error("this Context has been detached and can no longer be used");
    return state_;
}

void context::push() const {
    const context_state_ptr& s = state();
    GPUKIT_CU(cuCtxPushCurrent, s->handle);
    pushed_contexts.push_back(s);
}

void context::detach() {
    if (!state_)
        return;
    CUcontext handle = nullptr;
    if (api().cuCtxGetCurrent(&handle) == CUDA_SUCCESS && handle == state_->handle)
        pop();
    state_.reset();
}

CUcontext context::handle() const { return state()->handle; }

device context::get_device() const { return device::get(state()->device_ordinal); }

void context::synchronize() const {
    scoped_context in(*state());
    GPUKIT_CU(cuCtxSynchronize);
}

CUfunc_cache context::cache_config() const {
    scoped_context in(*state());
    CUfunc_cache config{};
    GPUKIT_CU(cuCtxGetCacheConfig, &config);
    return config;
}

void context::set_cache_config(CUfunc_cache config) const {
    scoped_context in(*state());
    GPUKIT_CU(cuCtxSetCacheConfig, config);
}

CUsharedconfig context::shared_config() const {
    scoped_context in(*state());
    CUsharedconfig config{};
    GPUKIT_CU(cuCtxGetSharedMemConfig, &config);
    return config;
}

void context::set_shared_config(CUsharedconfig config) const {
    scoped_context in(*state());
    GPUKIT_CU(cuCtxSetSharedMemConfig, config);
}

std::size_t context::limit(CUlimit which) const {
    scoped_context in(*state());
    std::size_t value = 0;
    GPUKIT_CU(cuCtxGetLimit, &value, which);
    return value;
}

void context::set_limit(CUlimit which, std::size_t value) const {
    scoped_context in(*state());
    GPUKIT_CU(cuCtxSetLimit, which, value);
}

unsigned int context::api_version() const {
    unsigned int version = 0;
    GPUKIT_CU(cuCtxGetApiVersion, state()->handle, &version);
    return version;
}

unsigned int context::flags() const {
    scoped_context in(*state());
    unsigned int value = 0;
    GPUKIT_CU(cuCtxGetFlags, &value);
    return value;
}

std::pair<int, int> context::stream_priority_range() const {
    scoped_context in(*state());
    int least = 0, greatest = 0;
    GPUKIT_CU(cuCtxGetStreamPriorityRange, &least, &greatest);
    return {least, greatest};
}

void context::enable_peer_access(const context& peer, unsigned int flags) const {
    scoped_context in(*state());
    GPUKIT_CU(cuCtxEnablePeerAccess, peer.handle(), flags);
}

void context::disable_peer_access(const context& peer) const {
    scoped_context in(*state());
    GPUKIT_CU(cuCtxDisablePeerAccess, peer.handle());
}

scoped_context::scoped_context(const detail::context_state& state) {
    CUcontext now = nullptr;
    GPUKIT_CU(cuCtxGetCurrent, &now);
    if (now != state.handle) {
        GPUKIT_CU(cuCtxPushCurrent, state.handle);
        pushed_ = true;
    }
}

scoped_context::scoped_context(const detail::context_state& state, std::nothrow_t) noexcept {
    try {
        const driver_api& driver = api();
        CUcontext now = nullptr;
        if (driver.cuCtxGetCurrent(&now) != CUDA_SUCCESS) {
            ok_ = false;
        } else if (now != state.handle) {
            ok_ = driver.cuCtxPushCurrent(state.handle) == CUDA_SUCCESS;
            pushed_ = ok_;
        }
    } catch (...) {
        ok_ = false;
    }
}

scoped_context::~scoped_context() {
    if (!pushed_)
        return;
    try {
        CUcontext popped = nullptr;
        api().cuCtxPopCurrent(&popped);
    } catch (...) {
    }
}

}  // namespace gpukit::cuda
