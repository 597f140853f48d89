// OpenCL memory from gpukit's memory pool, usable wherever the plain kind is: a pooled_buffer
// is a buffer (kernel arguments, copies), a pooled_svm an svm_pointer. Destroying one, or
// release(), gives the block back to its pool.
#pragma once

#include "gpukit/cl/allocators.hpp"
#include "gpukit/cl/buffer.hpp"
#include "gpukit/cl/detail/retained.hpp"
#include "gpukit/cl/svm.hpp"
#include "gpukit/memory/pool.hpp"

#include <CL/cl.h>

#include <concepts>
#include <utility>

namespace gpukit::cl {

// A pool block seen as a buffer of the block's size (its bin's alloc_size, as PyOpenCL's
// PooledBuffer reports the size of the cl_mem behind it). The buffer part borrows the pool's
// reference to the cl_mem instead of taking one of its own: the block is given back when
// this object goes, and retaining and releasing a reference per allocation would double
// the cost of a pool hit (two more calls into the OpenCL runtime, which locks the object).
// An OpenCL command enqueued on the buffer holds its own reference, so giving the block back
// while such a command runs is safe.
template <memory::allocator A>
requires std::same_as<typename A::pointer_type, cl_mem>
class pooled_buffer : public buffer {
public:
    // `flags` are those the allocator creates buffers with; `block` must not be empty.
    pooled_buffer(memory::pooled_allocation<A> block, cl_mem_flags flags) noexcept
        : buffer(buffer::adopt(block.pointer(), block.block_size(), flags)), block_(std::move(block)) {}
    // Takes over the other's block, which the other then no longer gives back.
    pooled_buffer(pooled_buffer&&) noexcept = default;
    // Assigning would make the buffer part release a reference it does not own.
    pooled_buffer& operator=(pooled_buffer&&) = delete;
    ~pooled_buffer() { forget(); }  // block_ then goes back to the pool

    // Gives the block back to the pool now; this buffer's handle becomes null.
    void release() noexcept {
        forget();
        block_.free();
    }

private:
    memory::pooled_allocation<A> block_;
};

// A pool block of SVM. Bound to a queue, it waits for that queue's commands to finish before
// giving the block back, so a later user of the block cannot race with them.
class pooled_svm : public svm_pointer {
public:
    // The pool's handle of the block, which gives it back when it goes.
    using allocation = memory::pooled_allocation<svm_allocator>;

    // A block of `bytes` from `pool`, bound to its allocator's free queue (if any); 0 bytes
    // gets a one-byte block (memory_pool::allocate_block).
    static pooled_svm allocate(memory::memory_pool<svm_allocator>& pool, std::size_t bytes) {
        pooled_svm p(pool.allocate_block(bytes), pool.get_allocator().context_handle());
        p.bound_queue_ = detail::retained<cl_command_queue>(pool.get_allocator().free_queue());
        return p;
    }
    // Takes over the other's block and bound queue; the other counts as released.
    pooled_svm(pooled_svm&&) noexcept = default;
    pooled_svm& operator=(pooled_svm&&) = delete;
    ~pooled_svm() { release(); }

    // release() will wait for `q`. cl::logic_error once released (nothing is left to wait
    // for) or for a queue of another context.
    void bind_to_queue(const queue& q);
    // release() will wait for no queue: the caller must see that no command still uses the block.
    void unbind_from_queue() noexcept { bound_queue_ = {}; }
    // The queue release() waits for; null when none. Borrowed (this object keeps it alive).
    cl_command_queue bound_queue() const noexcept { return bound_queue_.get(); }

    // Waits for the bound queue (if any), then gives the block back. Never throws: a failed
    // wait is reported through cleanup_warning and the block is still given back.
    void release() noexcept { release_after(bound_queue_.get()); }
    // The same, waiting for `q` instead of the bound queue.
    void release_after(cl_command_queue q) noexcept;

private:
    pooled_svm(allocation block, cl_context context) noexcept
        : svm_pointer(block.pointer(), block.size(), context), block_(std::move(block)) {}

    allocation block_;
    detail::retained<cl_command_queue> bound_queue_;
};

}  // namespace gpukit::cl
