// gpukit::array::ndarray: an n-dimensional view (dtype + layout) of device memory.
//
// The memory is a shared device_buffer: an address, its size and an owner that keeps it
// valid (a device_allocation, a block from a memory pool, or anything a caller lends, such
// as another library's tensor), in CUDA memory or, made by an opencl_backend, in an OpenCL
// buffer (array/backend.hpp). Views made by reshape/transpose/indexing share the buffer,
// so the memory lives as long as any view of it. All view arithmetic is gpukit::layout's.
#pragma once

#include "gpukit/array/dtype.hpp"
#include "gpukit/core/layout.hpp"
#include "gpukit/cuda/allocators.hpp"
#include "gpukit/memory/pool.hpp"

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace gpukit::array {

class backend;

// Which kind of backend's memory a device_buffer is.
enum class memory_space : std::uint8_t { cuda, opencl };

// A block of device memory that arrays view: where it is, its size, what keeps it valid and
// which kind of backend's memory it is. Made by borrow() or backend::allocate(), and shared by
// every view of it.
struct device_buffer {
    // CUDA: the device address. OpenCL: the cl_mem, whose owner is the cl::buffer holding it,
    // or with `svm` the SVM pointer, whose owner is the cl::svm_pointer holding it
    // (array::borrow makes these; OpenCL kernels take the memory and a byte offset).
    CUdeviceptr address = 0;
    // Its size in bytes.
    std::size_t size = 0;
    // Keeps the memory valid; may be empty when the lender guarantees that itself.
    std::shared_ptr<const void> owner;
    // Which kind of backend's memory it is: only that kind copies it and runs kernels on it.
    memory_space space = memory_space::cuda;
    bool svm = false;  // OpenCL shared virtual memory rather than a buffer object
};

// A pool of CUDA device memory of one context (cuMemAlloc blocks, memory/pool.hpp), as
// ndarray::empty takes memory from.
using device_pool = memory::memory_pool<cuda::device_allocator>;

// An n-dimensional view of device memory: an element type and a layout over a shared
// device_buffer (see the top of this file). Copying an ndarray copies the view; the memory is
// shared.
class ndarray {
public:
    // Uninitialised device memory (cuMemAlloc in the current context).
    static ndarray empty(std::vector<std::int64_t> shape, dtype t, order o = order::c);
    // Uninitialised memory from `pool` (returned to it when the last view goes).
    static ndarray empty(device_pool& pool, std::vector<std::int64_t> shape, dtype t, order o = order::c);
    // Uninitialised memory of `b` (backend::allocate).
    static ndarray empty(backend& b, std::vector<std::int64_t> shape, dtype t, order o = order::c);

    // A view of `buffer` with `l` (whose itemsize must be the dtype's); logic_error when
    // the layout reaches outside the buffer.
    ndarray(std::shared_ptr<const device_buffer> buffer, dtype t, layout l);

    // The element type.
    dtype type() const noexcept { return type_; }
    // The shape, the strides in bytes, the item size and the byte offset of element
    // [0, ..., 0] from the buffer's start.
    const gpukit::layout& layout() const noexcept { return layout_; }
    // The extent of each axis; empty for a 0-d array.
    const std::vector<std::int64_t>& shape() const noexcept { return layout_.shape(); }
    // The number of elements: the product of the extents (1 for a 0-d array).
    std::int64_t size() const noexcept { return layout_.size(); }
    // The number of axes (0 for a 0-d array).
    int ndim() const noexcept { return layout_.ndim(); }
    // The CUDA address of element [0, ..., 0]; logic_error for memory of another backend,
    // which has no such address (its kernels take buffer() and layout().offset()).
    CUdeviceptr data() const {
        if (buffer_->space != memory_space::cuda)
            throw_not_cuda_memory();
        return buffer_->address + static_cast<CUdeviceptr>(layout_.offset());
    }
    // The memory viewed, shared with every other view of it.
    const std::shared_ptr<const device_buffer>& buffer() const noexcept { return buffer_; }

    // The same memory seen through another layout (checked like the constructor).
    ndarray view(gpukit::layout l) const { return ndarray(buffer_, type_, std::move(l)); }
    // The same elements in another shape (one extent may be -1), read in order `o`.
    // invalid_argument when the sizes differ, logic_error when no view of this memory has that
    // shape (numpy would copy).
    ndarray reshape(std::vector<std::int64_t> shape, order o = order::c) const {
        return view(layout_.reshape(std::move(shape), o));
    }
    // The axes reversed (numpy's `a.T`).
    ndarray transpose() const { return view(layout_.transpose()); }
    // The axes permuted: axis k of the view is axis `axes[k]` of this one (each axis once).
    ndarray transpose(const std::vector<int>& axes) const { return view(layout_.transpose(axes)); }
    // numpy's basic indexing, `a[items]`: an integer drops its axis (negative counts from the
    // end), a slice keeps it, new_axis adds one, an ellipsis stands for the axes not named.
    // std::out_of_range for an index beyond its axis or more indices than axes.
    ndarray operator[](const std::vector<index_item>& items) const { return view(layout_.index(items)); }

private:
    [[noreturn]] static void throw_not_cuda_memory();

    std::shared_ptr<const device_buffer> buffer_;
    dtype type_;
    gpukit::layout layout_;
};

// A device_buffer that borrows `address` (`size` bytes), kept valid by `owner`.
std::shared_ptr<const device_buffer> borrow(CUdeviceptr address, std::size_t size,
                                            std::shared_ptr<const void> owner = {});

}  // namespace gpukit::array
