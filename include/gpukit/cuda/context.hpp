// CUDA contexts.
//
// A context is shared: every gpukit::cuda::context handle and every resource made in it
// (stream, event, memory, module) holds a std::shared_ptr to one context_state, so the
// CUcontext is destroyed only after the last of them is gone, whatever order they die in.
// Contexts pushed through gpukit are also held by a per-thread mirror of the driver's
// context stack, so a context made current stays alive while it is current.
#pragma once

#include "gpukit/cuda/device.hpp"

#include <cuda.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace gpukit::cuda {

namespace detail {

struct context_state {
    enum class ownership { created, primary, borrowed };

    context_state(CUcontext handle, int device_ordinal, ownership owns) noexcept
        : handle(handle), device_ordinal(device_ordinal), owns(owns) {}
    ~context_state();  // noexcept: destroys a created context, releases a primary one
    context_state(const context_state&) = delete;
    context_state& operator=(const context_state&) = delete;

    const CUcontext handle;
    const int device_ordinal;
    const ownership owns;

    // What gpukit keeps in this context for its own use (staging buffers, the default
    // memory pool, loaded array kernels): one object per type, made on first use by
    // context_cache<T>() (context_cache.hpp) and released first in ~context_state, while
    // the context still exists. They never own the context, so they cannot keep it alive.
    std::mutex caches_mutex;
    std::vector<std::pair<const void*, std::shared_ptr<void>>> caches;
};

}  // namespace detail

// A shared reference to a context's state: what handles and resources hold to keep the
// CUcontext alive (a null pointer holds nothing).
using context_state_ptr = std::shared_ptr<detail::context_state>;

// A handle to a CUDA context, cheap to copy: every copy shares the context, which is destroyed
// (or, for a primary context, released) once the last handle and resource made in it are gone.
// A context made outside gpukit (another library's, through current()) is borrowed, never
// destroyed by gpukit. Methods that act on the context make it current for the call when it
// is not already. Once a handle is detached, any use of it but detach(), is_detached() and ==
// throws logic_error.
class context {
public:
    // A new context on `dev`, made current on this thread. If creation fails, the calling
    // thread's context stack is left exactly as it was.
    static context create(const device& dev, unsigned int flags = 0);
    // The primary context of `dev`, retained (not made current).
    static context retain_primary(const device& dev);
    // The context current on this thread, if any (also one made outside gpukit).
    static std::optional<context> current();
    // The current context, or logic_error saying `operation` needs one.
    static context current_or_throw(const char* operation);
    // Pops the current context off this thread's stack; logic_error when the stack is empty.
    static void pop();

    // Makes this context current on the calling thread (any thread may push it).
    void push() const;
    // Gives up this handle: pops the context first if it is current on this thread. The
    // CUDA context itself is destroyed once nothing else refers to it. Any later use of
    // this handle throws logic_error.
    void detach();
    // True once detach() has run on this handle.
    bool is_detached() const noexcept { return !state_; }

    // The CUcontext, for calling the driver directly.
    CUcontext handle() const;
    // The device the context was made on.
    device get_device() const;
    // Blocks until all work queued in the context (on any of its streams) has completed;
    // the driver's error for a failed kernel among it.
    void synchronize() const;
    // The preferred split of on-chip memory between L1 cache and shared memory
    // (CU_FUNC_CACHE_PREFER_*), the default for kernels that set none themselves.
    CUfunc_cache cache_config() const;
    // Sets the preference cache_config() returns; a hint the device may ignore.
    void set_cache_config(CUfunc_cache config) const;
    // The shared-memory bank size setting (CU_SHARED_MEM_CONFIG_*). Deprecated in CUDA 12:
    // only old (Kepler) devices have a configurable bank size.
    CUsharedconfig shared_config() const;
    // Sets the bank size shared_config() returns; devices with a fixed bank size ignore it.
    void set_shared_config(CUsharedconfig config) const;
    // The value of the context limit `which` (CU_LIMIT_*: stack size, printf FIFO and malloc
    // heap bytes, ...).
    std::size_t limit(CUlimit which) const;
    // Sets the context limit `which` to `value`; the driver's error for a limit or value the
    // device does not support.
    void set_limit(CUlimit which, std::size_t value) const;
    // The driver API version the context was made with (cuCtxGetApiVersion), e.g. 3020.
    unsigned int api_version() const;
    // The flags the context was made with (CU_CTX_*: scheduling policy, ...).
    unsigned int flags() const;
    // (least, greatest) stream priority; numerically lower is higher priority.
    std::pair<int, int> stream_priority_range() const;
    // Lets kernels of this context access memory allocated in `peer` (on another device);
    // `flags` must be 0. The driver's error when the devices cannot access each other
    // (device::can_access_peer) or access is already enabled.
    void enable_peer_access(const context& peer, unsigned int flags = 0) const;
    // Withdraws what enable_peer_access(peer) granted; the driver's error when it was not
    // enabled.
    void disable_peer_access(const context& peer) const;

    // The shared state, for resources that must keep the context alive.
    const context_state_ptr& state() const;

    // True when both handles refer to the same CUDA context (or both are detached).
    friend bool operator==(const context& a, const context& b) noexcept {
        return a.state_ == b.state_ || (a.state_ && b.state_ && a.state_->handle == b.state_->handle);
    }

    // A handle sharing `state`, such as another handle's state() (a null `state` gives a
    // detached handle).
    explicit context(context_state_ptr state) noexcept : state_(std::move(state)) {}

private:
    context_state_ptr state_;
};

// Makes `state`'s context current on this thread for the object's lifetime, when it is not
// current already (the scoped override of cuda-api-wrappers). The throwing form is for
// ordinary calls; the std::nothrow form is for destructors and reports whether it worked.
class scoped_context {
public:
    // Pushes `state`'s context unless it is current already; the driver's error when that
    // fails.
    explicit scoped_context(const detail::context_state& state);
    // Pushes as the throwing form does, but never throws: ok() says whether it worked.
    scoped_context(const detail::context_state& state, std::nothrow_t) noexcept;
    // Pops the context again if the constructor pushed it.
    ~scoped_context();
    scoped_context(const scoped_context&) = delete;
    scoped_context& operator=(const scoped_context&) = delete;
    // False when the std::nothrow form could not make the context current (no driver, or the
    // push failed); always true for the throwing form.
    bool ok() const noexcept { return ok_; }

private:
    bool pushed_ = false;
    bool ok_ = true;
};

// For destructors: reports a failed release through the cleanup-warning hook, staying
// silent when the driver has already shut down at process exit.
void report_release_failure(CUresult result, const char* routine) noexcept;

}  // namespace gpukit::cuda
