// Launching kernels: a launch_config builder and launch(function, config, args...).
//
//   launch(f, launch_config().grid({blocks}).block({256}).stream(s), device_ptr, n, 2.0f);
//
// A texture_object or surface_object argument passes its handle.
//
// The typed form points at the arguments where they are (no copies, no heap); the shape is
// checked against the device's limits and the argument sizes against the kernel's
// parameters (when the driver describes them) before anything is launched.
#pragma once

#include "gpukit/cuda/function.hpp"
#include "gpukit/cuda/stream.hpp"

#include <cstddef>
#include <type_traits>
#include <utility>

namespace gpukit::cuda {

// The shape and stream of a launch, built by chained setters: a grid of blocks of threads
// (1 x 1 x 1 of each unless set), dynamic shared memory bytes (0), the stream (the legacy
// default stream), and optionally clusters and a cooperative launch. Each setter returns
// the config itself; nothing is checked until the launch.
class launch_config {
public:
    // Sets the grid: how many blocks along x, y and z.
    launch_config& grid(dim3 g) noexcept {
        grid_ = g;
        return *this;
    }
    // Sets the block: how many threads along x, y and z.
    launch_config& block(dim3 b) noexcept {
        block_ = b;
        return *this;
    }
    // Sets the bytes of dynamic shared memory per block (`extern __shared__` arrays).
    launch_config& shared_bytes(std::size_t bytes) noexcept {
        shared_bytes_ = bytes;
        return *this;
    }
    // Sets the stream the launch is queued on.
    launch_config& stream(stream_view s) noexcept {
        stream_ = s;
        return *this;
    }
    // Thread-block clusters (compute capability 9.0+); {1,1,1} or unset means none.
    launch_config& cluster(dim3 c) noexcept {
        cluster_ = c;
        return *this;
    }
    // A cooperative launch: all blocks resident at once, so grid-wide sync is allowed.
    launch_config& cooperative(bool on = true) noexcept {
        cooperative_ = on;
        return *this;
    }

    // Blocks along x, y and z.
    dim3 grid() const noexcept { return grid_; }
    // Threads per block along x, y and z.
    dim3 block() const noexcept { return block_; }
    // Bytes of dynamic shared memory per block.
    std::size_t shared_bytes() const noexcept { return shared_bytes_; }
    // The stream the launch is queued on.
    stream_view stream() const noexcept { return stream_; }
    // Blocks per cluster along x, y and z ({1,1,1}: no clusters).
    dim3 cluster() const noexcept { return cluster_; }
    // True for a cooperative launch.
    bool cooperative() const noexcept { return cooperative_; }
    // True when a cluster of more than one block was set.
    bool has_cluster() const noexcept { return cluster_.x * cluster_.y * cluster_.z > 1; }

private:
    dim3 grid_, block_, cluster_;
    std::size_t shared_bytes_ = 0;
    stream_view stream_;
    bool cooperative_ = false;
};

// Launches with `args[i]` pointing at argument i, whose size is `sizes[i]`. Checks the
// config and the arguments first (function::check_launch, function::check_arguments).
void launch_packed(const function& f, const launch_config& config, void** args, const std::size_t* sizes,
                   std::size_t count);

namespace detail {

// Copies `c`'s grid, block and dynamic shared memory into a driver struct that names them as
// CUDA does (CUlaunchConfig, CUDA_KERNEL_NODE_PARAMS).
template <class Params>
void set_launch_shape(Params& p, const launch_config& c) noexcept {
    p.gridDimX = c.grid().x;
    p.gridDimY = c.grid().y;
    p.gridDimZ = c.grid().z;
    p.blockDimX = c.block().x;
    p.blockDimY = c.block().y;
    p.blockDimZ = c.block().z;
    p.sharedMemBytes = static_cast<unsigned int>(c.shared_bytes());
}

// Owners that stand for a parameter value (texture_object, surface_object: their handle)
// expose it as a reference through kernel_argument(); everything else is passed as itself.
template <class T>
concept has_kernel_argument = requires(const T& a) {
    a.kernel_argument();
};

template <class T>
const auto& kernel_argument_of(const T& a) {
    if constexpr (has_kernel_argument<T>)
        return a.kernel_argument();
    else
        return a;
}

template <class T>
using kernel_argument_t = std::remove_cvref_t<decltype(kernel_argument_of(std::declval<const T&>()))>;

}  // namespace detail

// Queues a launch of `f` with `config` on its stream, passing each of `args` as a kernel
// parameter of its own type (texture and surface objects as their handle), read from where
// it is: gpukit makes no copy and allocates nothing. Each type must be trivially copyable (a
// compile-time check). Checks as launch_packed does (logic_error); the driver's error, naming
// the kernel and shape, when the launch fails.
template <class... Args>
void launch(const function& f, const launch_config& config, const Args&... args) {
    static_assert((std::is_trivially_copyable_v<detail::kernel_argument_t<Args>> && ...),
                  "kernel arguments are copied bytewise, so they must be trivially copyable");
    // The pointer and size arrays end in an extra entry, so they are not empty for a kernel
    // without parameters.
    void* pointers[] = {const_cast<void*>(static_cast<const void*>(&detail::kernel_argument_of(args)))..., nullptr};
    const std::size_t sizes[] = {sizeof(detail::kernel_argument_t<Args>)..., 0};
    launch_packed(f, config, pointers, sizes, sizeof...(Args));
}

}  // namespace gpukit::cuda
