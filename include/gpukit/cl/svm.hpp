// Shared virtual memory (OpenCL 2.0): pointers valid on the host and the devices of a context,
// passed to kernels as pointers (kernel::set_arg) and copied with enqueue_svm_copy.
#pragma once

#include "gpukit/cl/allocators.hpp"
#include "gpukit/cl/event.hpp"
#include "gpukit/cl/queue.hpp"

#include <CL/cl.h>

#include <cstddef>
#include <span>
#include <string>

namespace gpukit::cl {

// A range of SVM: what kernels and copies need from the owners below. Null after release,
// and also before for a zero-byte svm_allocation (which OpenCL cannot allocate), so release
// is recorded on its own.
class svm_pointer {
public:
    // The start of the memory; null once released (and for a zero-byte svm_allocation).
    void* pointer() const noexcept { return pointer_; }
    // The size in bytes; 0 once released.
    std::size_t size() const noexcept { return size_; }
    // True once this memory, or the owner a range lies in (svm_range), was released.
    bool released() const noexcept { return released_ || (owner_ && owner_->released()); }
    // The context the memory belongs to; borrowed (the owner keeps it alive).
    cl_context context_handle() const noexcept { return context_; }

protected:
    // The `size` bytes at `pointer`, SVM of `context`, as an owner class describes its memory.
    svm_pointer(void* pointer, std::size_t size, cl_context context) noexcept
        : pointer_(pointer), size_(size), context_(context) {}
    // Takes over the memory `other` describes; `other` then counts as released.
    svm_pointer(svm_pointer&& other) noexcept;
    // Describes the memory of `other` instead, which then counts as released. Frees nothing:
    // the owner class frees its own memory first.
    svm_pointer& operator=(svm_pointer&& other) noexcept;
    ~svm_pointer() = default;
    // Marks the memory released: null, size 0.
    void clear() noexcept;

    // The owner this memory is a range of (svm_range), whose release ends it too.
    const svm_pointer* owner_ = nullptr;

private:
    void* pointer_;
    std::size_t size_;
    cl_context context_;
    bool released_ = false;
};

// Throws cl::logic_error when `p` was released or belongs to another context than `ctx`;
// `what` names `p` in the message ("the destination of enqueue_copy").
void check_svm_usable(const svm_pointer& p, cl_context ctx, const std::string& what);

// Owns one block of an svm_allocator; move-only. Destroying it or release() frees the block
// the allocator's way (at once, or enqueued on its free queue). Size 0 allocates nothing: a
// null pointer (as PyOpenCL's SVMAllocation of 0 bytes), which kernels may take.
class svm_allocation : public svm_pointer {
public:
    // A block of `size` bytes from `allocator`, of which it keeps a copy, bound to the
    // allocator's free queue. Throws as svm_allocator::allocate; size 0 allocates nothing.
    svm_allocation(svm_allocator allocator, std::size_t size);
    // Takes over the block and bound queue of `other`, which then counts as released.
    svm_allocation(svm_allocation&& other) noexcept = default;
    // Releases this block (as release()), then takes over the block and bound queue of `other`,
    // which then counts as released.
    svm_allocation& operator=(svm_allocation&& other) noexcept;
    ~svm_allocation() { release(); }

    // Frees the block unless it was released already: by clEnqueueSVMFree on the bound queue,
    // after the commands queued there, or at once by clSVMFree when no queue is bound (so no
    // command may still use it then). Never throws: a failure becomes a cleanup warning.
    void release() noexcept;
    // Frees the block with clEnqueueSVMFree on `q`, or on the bound queue when `q` is null,
    // after the commands queued there; the event says when it is done. Throws
    // cl::logic_error when already released, when `q` belongs to another context, or when
    // there is no queue at all.
    event enqueue_release(const queue* q = nullptr);

    // The queue the block is freed on, after its commands (PyOpenCL's binding): at first the
    // allocator's free queue. Binding another queue orders it after the commands queued on the
    // old one (a marker), so what they do to the memory is done before the new queue's.
    // cl::logic_error for a queue of another context.
    void bind_to_queue(const queue& q);
    // Waits for the bound queue's commands to finish (clFinish, whose failure it throws) and
    // unbinds it: release() then frees the block at once.
    void unbind_from_queue();
    // The bound queue (see bind_to_queue); null when none. Borrowed (this object keeps it alive).
    cl_command_queue bound_queue() const noexcept { return queue_.get(); }

private:
    svm_allocator allocator_;
    detail::retained<cl_command_queue> queue_;
};

// `size` bytes from `pointer` of the SVM `owner` (what PyOpenCL's SVM(ary) stands for: a numpy
// array over SVM): it is released when the owner is, and the owner must outlive it. cl::logic_error
// when the range is not within the owner's memory or the owner was released.
class svm_range : public svm_pointer {
public:
    // The `size` bytes at `pointer` within `owner`'s memory.
    svm_range(const svm_pointer& owner, void* pointer, std::size_t size);
    // Takes over the other's range, which then counts as released.
    svm_range(svm_range&&) noexcept = default;
};

// Maps coarse-grained SVM `p` for host access (clEnqueueSVMMap) with `flags`: CL_MAP_READ and/or
// CL_MAP_WRITE, or CL_MAP_WRITE_INVALIDATE_REGION. The host may touch it once the returned event
// has completed (on return, with `blocking`). cl::logic_error for no or unknown flags, and for
// SVM that was released or belongs to another context than the queue's.
event enqueue_svm_map(const queue& q, bool blocking, cl_map_flags flags, const svm_pointer& p,
                      std::span<const cl_event> wait_for = {});
// Unmaps SVM `p` that enqueue_svm_map mapped (clEnqueueSVMUnmap): the devices may use it again
// once the returned event has completed. cl::logic_error for released SVM or SVM of another
// context than the queue's.
event enqueue_svm_unmap(const queue& q, const svm_pointer& p, std::span<const cl_event> wait_for = {});

// Copies `bytes` from `src` to `dst`, either of which may be SVM or host memory. Both ranges
// must stay valid until the returned event has completed.
event enqueue_svm_copy(const queue& q, void* dst, const void* src, std::size_t bytes, bool blocking,
                       std::span<const cl_event> wait_for = {});

// Fills `bytes` of SVM memory at `dst` with copies of `pattern` (as enqueue_fill: 1 to 128
// bytes, a power of two, `bytes` a multiple of it). `dst` must stay valid until the event has
// completed; the pattern is copied here.
event enqueue_svm_fill(const queue& q, void* dst, std::span<const std::byte> pattern, std::size_t bytes,
                       std::span<const cl_event> wait_for = {});

}  // namespace gpukit::cl
