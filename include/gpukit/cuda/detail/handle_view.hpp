// A driver handle someone else owns: what the borrowed `*_view` classes (stream_view,
// event_view) hold (ARCHITECTURE.md rule 2). Copying one copies the handle; nothing is
// ever released.
#pragma once

namespace gpukit::cuda::detail {

template <class Handle>
class handle_view {
public:
    constexpr handle_view() noexcept = default;
    constexpr explicit handle_view(Handle handle) noexcept : handle_(handle) {}
    Handle handle() const noexcept { return handle_; }

private:
    Handle handle_{};
};

}  // namespace gpukit::cuda::detail
