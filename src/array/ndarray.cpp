#include "gpukit/array/ndarray.hpp"

#include "gpukit/array/backend.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/memory.hpp"

#include <string>
#include <utility>

namespace gpukit::array {

namespace {

// Zero-size arrays still get a distinct, valid buffer of one byte: cuMemAlloc refuses zero
// bytes, and a null address would make every later copy special.
std::size_t bytes_for(const gpukit::layout& l) { return l.nbytes() > 0 ? static_cast<std::size_t>(l.nbytes()) : 1; }

}  // namespace

std::shared_ptr<const device_buffer> borrow(CUdeviceptr address, std::size_t size, std::shared_ptr<const void> owner) {
    return std::make_shared<const device_buffer>(device_buffer{address, size, std::move(owner)});
}

ndarray ndarray::empty(std::vector<std::int64_t> shape, dtype t, order o) {
    gpukit::layout l = gpukit::layout::contiguous(std::move(shape), static_cast<std::int64_t>(size_of(t)), o);
    auto allocation = std::make_shared<cuda::device_allocation>(cuda::device_allocation::allocate(bytes_for(l)));
    auto buffer = borrow(allocation->get(), allocation->size(), allocation);
    return ndarray(std::move(buffer), t, std::move(l));
}

ndarray ndarray::empty(device_pool& pool, std::vector<std::int64_t> shape, dtype t, order o) {
    gpukit::layout l = gpukit::layout::contiguous(std::move(shape), static_cast<std::int64_t>(size_of(t)), o);
    auto block = std::make_shared<memory::pooled_allocation<cuda::device_allocator>>(pool.allocate(bytes_for(l)));
    auto buffer = borrow(block->pointer(), block->size(), block);
    return ndarray(std::move(buffer), t, std::move(l));
}

ndarray ndarray::empty(backend& b, std::vector<std::int64_t> shape, dtype t, order o) {
    gpukit::layout l = gpukit::layout::contiguous(std::move(shape), static_cast<std::int64_t>(size_of(t)), o);
    auto buffer = b.allocate(bytes_for(l));
    return ndarray(std::move(buffer), t, std::move(l));
}

void ndarray::throw_not_cuda_memory() {
    throw logic_error(
        "ndarray: the array is in OpenCL memory, which has no CUDA address; "
        "run it through the backend that made it (array/backend.hpp)");
}

ndarray::ndarray(std::shared_ptr<const device_buffer> buffer, dtype t, gpukit::layout l)
    : buffer_(std::move(buffer)), type_(t), layout_(std::move(l)) {
    if (!buffer_)
        throw logic_error("ndarray: no buffer");
    if (layout_.itemsize() != static_cast<std::int64_t>(size_of(t)))
        throw logic_error("ndarray: layout itemsize " + std::to_string(layout_.itemsize()) + " differs from " +
                          std::string(name(t)) + "'s size " + std::to_string(size_of(t)));
    const auto [low, high] = layout_.byte_extent();
    if (layout_.size() > 0 && (low < 0 || high > static_cast<std::int64_t>(buffer_->size)))
        throw logic_error("ndarray: " + layout_.describe() + " reaches bytes [" + std::to_string(low) + ", " +
                          std::to_string(high) + ") outside a buffer of " + std::to_string(buffer_->size) + " bytes");
}

}  // namespace gpukit::array
