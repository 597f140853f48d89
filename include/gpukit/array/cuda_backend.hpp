// gpukit::array::cuda_backend: the array engine on the current CUDA context, queuing its work
// on one stream.
//
// Cheap to make (it holds the stream only): the engine's CUDA calls make one per call. Memory
// comes from cuMemAlloc in the current context; kernels are compiled with NVRTC through the
// compilation cache and loaded once per context (kernel_cache.hpp).
#pragma once

#include "gpukit/array/backend.hpp"
#include "gpukit/cuda/stream.hpp"

namespace gpukit::array {

// The backend of the current CUDA context: CUDA C kernels, CUDA device memory, and work queued
// on one stream of that context.
class cuda_backend final : public backend {
public:
    // Work queued on `stream` (the default, a null handle: the current context's default
    // stream). The stream is not owned: it must stay valid while the backend is used.
    explicit cuda_backend(cuda::stream_view stream = {}) noexcept : stream_(stream) {}

    kernel_language language() const noexcept override { return kernel_language::cuda; }
    memory_space space() const noexcept override { return memory_space::cuda; }
    std::string name() const override { return "CUDA"; }
    std::string type_problem(dtype) const override { return {}; }
    unsigned preferred_group_size() const noexcept override;

    std::shared_ptr<const device_buffer> allocate(std::size_t bytes) override;
    void write(const device_buffer& dst, std::size_t offset, std::span<const std::byte> src) override;
    void read(const device_buffer& src, std::size_t offset, std::span<std::byte> dst) override;

    loaded_kernel kernel(std::uint64_t key, const std::string& name,
                         const std::function<std::string()>& source) override;
    void launch(const loaded_kernel& k, const launch_shape& shape, std::span<const kernel_argument> args) override;
    void synchronize() override;

    // The stream the backend queues its copies and launches on (not owned).
    cuda::stream_view stream() const noexcept { return stream_; }

private:
    cuda::stream_view stream_;
};

}  // namespace gpukit::array
