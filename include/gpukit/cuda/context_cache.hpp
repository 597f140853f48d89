// Per-context caches: what gpukit keeps in a context for its own use (the staging buffers
// of copies, the default memory pool, the loaded array kernels).
//
// context_cache<T>(state) returns the context's one T, made as T(state) on first use. The
// context owns it, and ~context_state destroys it first, while the CUcontext still exists.
// So a T must not own the context, or the context could never go: it refers to it through
// borrowed(state), a context_state_ptr that does not count as an owner. Code that uses a T
// holds the context (a context or an owning context_state_ptr) while it does, and hands
// out only objects that hold the context themselves.
//
// clear_context_caches() drops the caches of every live context (they are made again when
// next needed); gpukit.tools.clear_context_caches() calls it.
#pragma once

#include "gpukit/cuda/context.hpp"

#include <memory>

namespace gpukit::cuda {

// A context_state_ptr that does not own `state`: for objects the context itself owns.
inline context_state_ptr borrowed(detail::context_state& state) noexcept {
    return context_state_ptr(context_state_ptr(), &state);
}

namespace detail {

// One address per cached type: its key in context_state::caches.
template <class T>
inline const char cache_tag = 0;

using cache_maker = std::shared_ptr<void> (*)(context_state&);

// The cache under `tag`, made by `make` (outside the lock) when there is none yet.
std::shared_ptr<void> find_or_make_cache(context_state& state, const void* tag, cache_maker make);

}  // namespace detail

// The one T of `state`'s context, made as T(state) on first use and owned by the context.
// Two threads asking at once may both make one; the first stored is the one both get.
template <class T>
std::shared_ptr<T> context_cache(detail::context_state& state) {
    const detail::cache_maker make = [](detail::context_state& s) -> std::shared_ptr<void> {
        return std::make_shared<T>(s);
    };
    return std::static_pointer_cast<T>(detail::find_or_make_cache(state, &detail::cache_tag<T>, make));
}

namespace detail {

// Drops the cache under `tag` (every cache when `tag` is null) of `state`, or of every live
// context. Users still holding a dropped cache keep it until they let go.
void drop_caches(context_state& state, const void* tag) noexcept;
void drop_caches_everywhere(const void* tag) noexcept;

}  // namespace detail

// Drops every cache of every live context.
inline void clear_context_caches() noexcept { detail::drop_caches_everywhere(nullptr); }

// Drops the T cache of every live context.
template <class T>
void clear_context_cache() noexcept {
    detail::drop_caches_everywhere(&detail::cache_tag<T>);
}

}  // namespace gpukit::cuda
