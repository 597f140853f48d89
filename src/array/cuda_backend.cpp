#include "gpukit/array/cuda_backend.hpp"

#include "kernel_cache.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/copy.hpp"
#include "gpukit/cuda/launch.hpp"
#include "gpukit/cuda/memory.hpp"

#include <array>
#include <string>
#include <vector>

namespace gpukit::array {

void require_own_range(const backend& owner, const device_buffer& b, std::size_t offset, std::size_t size,
                       const char* what) {
    if (b.space != owner.space())
        throw logic_error(std::string(what) + ": the memory is not " + owner.name() +
                          " memory; each backend copies and runs kernels on its own memory only");
    if (offset > b.size || size > b.size - offset)
        throw logic_error(std::string(what) + ": bytes [" + std::to_string(offset) + ", " + std::to_string(offset) +
                          " + " + std::to_string(size) + ") reach outside a buffer of " + std::to_string(b.size) +
                          " bytes");
}

unsigned cuda_backend::preferred_group_size() const noexcept { return detail::block_size; }

std::shared_ptr<const device_buffer> cuda_backend::allocate(std::size_t bytes) {
    auto allocation =
        std::make_shared<cuda::device_allocation>(cuda::device_allocation::allocate(bytes > 0 ? bytes : 1));
    return borrow(allocation->get(), allocation->size(), allocation);
}

void cuda_backend::write(const device_buffer& dst, std::size_t offset, std::span<const std::byte> src) {
    require_own_range(*this, dst, offset, src.size(), "cuda_backend::write");
    if (src.empty())
        return;
    cuda::memcpy_htod_async(dst.address + offset, src.data(), src.size(), stream_);
    stream_.synchronize();  // the copy from pageable memory may still read `src` until then
}

void cuda_backend::read(const device_buffer& src, std::size_t offset, std::span<std::byte> dst) {
    require_own_range(*this, src, offset, dst.size(), "cuda_backend::read");
    if (dst.empty())
        return;
    cuda::memcpy_dtoh_async(dst.data(), src.address + offset, dst.size(), stream_);
    stream_.synchronize();
}

loaded_kernel cuda_backend::kernel(std::uint64_t key, const std::string& name,
                                   const std::function<std::string()>& source) {
    return detail::as_loaded(detail::kernel(key, name, source));
}

void cuda_backend::launch(const loaded_kernel& k, const launch_shape& shape, std::span<const kernel_argument> args) {
    if (k.language != kernel_language::cuda)
        throw logic_error("cuda_backend::launch: the kernel was loaded by an OpenCL backend");
    // An array argument is one pointer: its buffer's address plus the offset. Few kernels
    // have more than 16 parameters; those get heap storage.
    constexpr std::size_t inline_count = 16;
    std::array<CUdeviceptr, inline_count> pointers_here;
    std::array<void*, inline_count> values_here;
    std::array<std::size_t, inline_count> sizes_here;
    std::vector<CUdeviceptr> pointers_heap;
    std::vector<void*> values_heap;
    std::vector<std::size_t> sizes_heap;
    CUdeviceptr* pointers = pointers_here.data();
    void** values = values_here.data();
    std::size_t* sizes = sizes_here.data();
    if (args.size() > inline_count) {
        pointers_heap.resize(args.size());
        values_heap.resize(args.size());
        sizes_heap.resize(args.size());
        pointers = pointers_heap.data();
        values = values_heap.data();
        sizes = sizes_heap.data();
    }
    for (std::size_t i = 0; i < args.size(); ++i) {
        const kernel_argument& a = args[i];
        if (a.buffer) {
            if (a.buffer->space != memory_space::cuda)
                throw logic_error("cuda_backend::launch: argument " + std::to_string(i) +
                                  " is OpenCL memory; CUDA kernels take CUDA memory only");
            pointers[i] = a.buffer->address + static_cast<CUdeviceptr>(a.offset);
            values[i] = &pointers[i];
            sizes[i] = sizeof(CUdeviceptr);
        } else {
            values[i] = const_cast<void*>(a.value);
            sizes[i] = a.size;
        }
    }
    const auto config =
        cuda::launch_config().grid({shape.groups_x, shape.groups_y}).block({shape.group_size}).stream(stream_);
    cuda::launch_packed(*static_cast<const cuda::function*>(k.handle.get()), config, values, sizes, args.size());
}

void cuda_backend::synchronize() { stream_.synchronize(); }

}  // namespace gpukit::array
