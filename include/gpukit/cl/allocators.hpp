// The OpenCL allocators of gpukit's memory pool (memory/allocator.hpp): buffers created the
// plain OpenCL way (deferred), buffers made resident on a device at once (immediate), and
// shared virtual memory (SVM, OpenCL 2.0). Each keeps its context or queue alive, so a pool
// may outlive the objects it was made from.
#pragma once

#include "gpukit/cl/context.hpp"
#include "gpukit/cl/detail/retained.hpp"
#include "gpukit/cl/queue.hpp"

#include <CL/cl.h>

#include <cstddef>
#include <variant>

namespace gpukit::cl {

// clCreateBuffer only. OpenCL may postpone the real allocation until a command first uses
// the buffer on a device, so a shortage can surface there (as a failed enqueue) rather than
// here, where the pool could still recover by releasing held blocks.
class deferred_allocator {
public:
    // A block is a cl_mem buffer, of which the pool holds the one reference.
    using pointer_type = cl_mem;

    // `flags` as for buffer::create, without host memory (COPY_HOST_PTR and USE_HOST_PTR are
    // refused with cl::logic_error).
    explicit deferred_allocator(const context& ctx, cl_mem_flags flags = CL_MEM_READ_WRITE)
        : deferred_allocator(ctx.handle(), flags) {}

    // gpukit::memory_error (the pool's signal to release and retry) when clCreateBuffer
    // reports a shortage; cl::logic_error for size 0.
    pointer_type allocate(std::size_t bytes);
    // Drops the pool's reference to `block` (clReleaseMemObject; OpenCL destroys the buffer after
    // the commands that use it). A failure becomes a cleanup warning.
    void free(pointer_type block, std::size_t bytes) noexcept;

    // The context buffers are created in; borrowed (the allocator keeps it alive).
    cl_context context_handle() const noexcept { return context_.get(); }
    // The CL_MEM_* flags every buffer is created with.
    cl_mem_flags flags() const noexcept { return flags_; }

private:
    friend class immediate_allocator;  // which knows its context only as a handle
    deferred_allocator(cl_context ctx, cl_mem_flags flags);

    detail::retained<cl_context> context_;
    cl_mem_flags flags_;
};

// clCreateBuffer, then a content-less migration of the buffer to the queue's device, waited
// for: the device must really provide the memory before allocate returns, so a shortage is
// reported here as gpukit::memory_error and the pool's release-and-retry can work. (Not
// waiting, as PyOpenCL does, leaves a command behind that a process exiting meanwhile races
// with: PoCL's worker thread then reads freed memory.)
class immediate_allocator {
public:
    // A block is a cl_mem buffer, of which the pool holds the one reference.
    using pointer_type = cl_mem;

    // Allocates in the queue's context; `flags` as for deferred_allocator.
    explicit immediate_allocator(const queue& q, cl_mem_flags flags = CL_MEM_READ_WRITE);

    // A buffer of `bytes`, already resident on the queue's device. gpukit::memory_error (the
    // pool's signal to release and retry) when the creation or the migration reports a shortage;
    // the buffer is dropped again when the migration fails. cl::logic_error for size 0.
    pointer_type allocate(std::size_t bytes);
    // Drops the pool's reference to `block`, as deferred_allocator::free.
    void free(pointer_type block, std::size_t bytes) noexcept;

    // The queue whose device the buffers are made resident on; borrowed (the allocator keeps it
    // alive).
    cl_command_queue queue_handle() const noexcept { return queue_.get(); }
    // The CL_MEM_* flags every buffer is created with.
    cl_mem_flags flags() const noexcept { return creator_.flags(); }

private:
    detail::retained<cl_command_queue> queue_;
    deferred_allocator creator_;
};

// Either buffer allocator, chosen at run time: the allocator of a pool whose kind the caller
// picks (Python's MemoryPool takes a DeferredAllocator or an ImmediateAllocator).
class buffer_allocator {
public:
    // A block is a cl_mem buffer, of which the pool holds the one reference.
    using pointer_type = cl_mem;

    // Allocates as the deferred allocator `a` does.
    buffer_allocator(deferred_allocator a) noexcept : impl_(std::move(a)) {}
    // Allocates as the immediate allocator `a` does.
    buffer_allocator(immediate_allocator a) noexcept : impl_(std::move(a)) {}

    // A buffer of `bytes` from the allocator held, which throws as that one's allocate does.
    pointer_type allocate(std::size_t bytes) {
        return std::visit([&](auto& a) { return a.allocate(bytes); }, impl_);
    }
    // Drops the pool's reference to `block` through the allocator held.
    void free(pointer_type block, std::size_t bytes) noexcept {
        std::visit([&](auto& a) { a.free(block, bytes); }, impl_);
    }
    // The CL_MEM_* flags the allocator held creates buffers with.
    cl_mem_flags flags() const noexcept {
        return std::visit([](const auto& a) { return a.flags(); }, impl_);
    }
    // True when the allocator held is a deferred_allocator, false for an immediate_allocator.
    bool is_deferred() const noexcept { return std::holds_alternative<deferred_allocator>(impl_); }

private:
    std::variant<deferred_allocator, immediate_allocator> impl_;
};

// clSVMAlloc / clSVMFree. Blocks are host-and-device pointers usable as kernel arguments
// (kernel::set_arg with an svm_pointer) and in enqueue_svm_copy.
class svm_allocator {
public:
    // A block is the SVM address clSVMAlloc returned, valid on the host and the devices.
    using pointer_type = void*;

    // `flags`: one of CL_MEM_READ_WRITE, WRITE_ONLY, READ_ONLY, optionally with
    // CL_MEM_SVM_FINE_GRAIN_BUFFER and CL_MEM_SVM_ATOMICS (which needs FINE_GRAIN_BUFFER).
    // `alignment`: 0 for the device's default, else a power of two. With `free_queue`, a
    // block is freed by clEnqueueSVMFree on it, after the commands already queued there;
    // without, at once by clSVMFree, so the caller must make sure no command still uses it.
    // Throws cl::logic_error for bad flags or alignment, or when no device of the context
    // supports SVM.
    svm_allocator(const context& ctx, std::size_t alignment = 0, cl_svm_mem_flags flags = CL_MEM_READ_WRITE,
                  const queue* free_queue = nullptr);

    // A new block of `bytes` bytes. gpukit::memory_error when clSVMAlloc returns no memory;
    // cl::logic_error for size 0, or when the implementation gives memory only without the
    // alignment asked for.
    pointer_type allocate(std::size_t bytes);
    // Frees `block` the allocator's way: enqueued on the free queue, or at once without one
    // (free_after with free_queue()).
    void free(pointer_type block, std::size_t /*bytes*/) noexcept { free_after(block, free_queue_.get()); }
    // Frees `block` by clEnqueueSVMFree on `q`, or at once when `q` is null; a failure is a
    // cleanup warning.
    void free_after(pointer_type block, cl_command_queue q) const noexcept;

    // The context the SVM is allocated in; borrowed (the allocator keeps it alive).
    cl_context context_handle() const noexcept { return context_.get(); }
    // The alignment in bytes asked of clSVMAlloc; 0 for the device's default.
    std::size_t alignment() const noexcept { return alignment_; }
    // The CL_MEM_* and CL_MEM_SVM_* flags every block is allocated with.
    cl_svm_mem_flags flags() const noexcept { return flags_; }
    // The queue blocks are freed on, after its commands; null when they are freed at once.
    // Borrowed (the allocator keeps it alive).
    cl_command_queue free_queue() const noexcept { return free_queue_.get(); }

private:
    detail::retained<cl_context> context_;
    std::size_t alignment_;
    cl_svm_mem_flags flags_;
    detail::retained<cl_command_queue> free_queue_;
};

}  // namespace gpukit::cl
