#include "gpukit/cl/svm.hpp"

#include "gpukit/cl/api.hpp"
#include "gpukit/cl/buffer.hpp"
#include "gpukit/cl/detail/wait_list.hpp"

#include <cstdint>
#include <string>
#include <utility>

namespace gpukit::cl {

svm_pointer::svm_pointer(svm_pointer&& other) noexcept
    : owner_(other.owner_), pointer_(std::exchange(other.pointer_, nullptr)), size_(std::exchange(other.size_, 0)),
      context_(other.context_), released_(std::exchange(other.released_, true)) {}

svm_pointer& svm_pointer::operator=(svm_pointer&& other) noexcept {
    owner_ = other.owner_;
    pointer_ = std::exchange(other.pointer_, nullptr);
    size_ = std::exchange(other.size_, 0);
    context_ = other.context_;
    released_ = std::exchange(other.released_, true);
    return *this;
}

void svm_pointer::clear() noexcept {
    pointer_ = nullptr;
    size_ = 0;
    released_ = true;
}

svm_allocation::svm_allocation(svm_allocator allocator, std::size_t size)
    : svm_pointer(size == 0 ? nullptr : allocator.allocate(size), size, allocator.context_handle()),
      allocator_(std::move(allocator)), queue_(allocator_.free_queue()) {}

svm_allocation& svm_allocation::operator=(svm_allocation&& other) noexcept {
    if (this != &other) {
        release();
        allocator_ = std::move(other.allocator_);
        queue_ = std::move(other.queue_);
        svm_pointer::operator=(std::move(other));
    }
    return *this;
}

void svm_allocation::release() noexcept {
    if (released())
        return;
    if (pointer())
        allocator_.free_after(pointer(), queue_.get());
    queue_ = {};
    clear();
}

void svm_allocation::bind_to_queue(const queue& q) {
    check_svm_usable(*this, q.context_handle(), "SVMAllocation.bind_to_queue");
    if (queue_ && queue_.get() != q.handle()) {
        cl_event before = nullptr;
        GPUKIT_CL(clEnqueueMarkerWithWaitList, queue_.get(), 0, nullptr, &before);
        const event old_commands(before);
        GPUKIT_CL(clEnqueueMarkerWithWaitList, q.handle(), 1, &before, nullptr);
    }
    queue_ = detail::retained<cl_command_queue>(q.handle());
}

void svm_allocation::unbind_from_queue() {
    if (queue_)
        GPUKIT_CL(clFinish, queue_.get());
    queue_ = {};
}

event svm_allocation::enqueue_release(const queue* q) {
    if (released())
        throw logic_error("SVMAllocation.enqueue_release: the memory was already released; release it once",
                          CL_INVALID_VALUE, "clEnqueueSVMFree");
    if (q && q->context_handle() != context_handle())
        throw logic_error(
            "SVMAllocation.enqueue_release: the queue belongs to another context than the SVM; "
            "expected a queue of the SVM's context",
            CL_INVALID_CONTEXT, "clEnqueueSVMFree");
    const cl_command_queue on = q ? q->handle() : queue_.get();
    if (!on)
        throw logic_error(
            "SVMAllocation.enqueue_release: no queue given and none is bound (the SVMAllocator has "
            "none); expected enqueue_release(queue)",
            CL_INVALID_VALUE, "clEnqueueSVMFree");
    cl_event done = nullptr;
    void* pointers[] = {pointer()};
    if (pointer())
        GPUKIT_CL(clEnqueueSVMFree, on, 1, pointers, nullptr, nullptr, 0, nullptr, &done);
    else  // a zero-byte allocation has nothing to free; the marker gives the event
        GPUKIT_CL(clEnqueueMarkerWithWaitList, on, 0, nullptr, &done);
    queue_ = {};
    clear();
    return event(done);
}

svm_range::svm_range(const svm_pointer& owner, void* pointer, std::size_t size)
    : svm_pointer(pointer, size, owner.context_handle()) {
    const char* routine = "SVM";
    if (owner.released())
        throw logic_error(std::string(routine) + ": the SVM memory was released; expected live SVM",
                          CL_INVALID_ARG_VALUE, routine);
    const auto start = reinterpret_cast<std::uintptr_t>(owner.pointer());
    const auto first = reinterpret_cast<std::uintptr_t>(pointer);
    if (first < start || first - start > owner.size() || size > owner.size() - (first - start))
        throw logic_error(std::string(routine) + ": " + std::to_string(size) + " bytes at " + std::to_string(first) +
                              " are not within the SVM memory of " + std::to_string(owner.size()) + " bytes at " +
                              std::to_string(start),
                          CL_INVALID_VALUE, routine);
    owner_ = &owner;
}

event enqueue_svm_map(const queue& q, bool blocking, cl_map_flags flags, const svm_pointer& p,
                      std::span<const cl_event> wait_for) {
    check_svm_usable(p, q.context_handle(), "enqueue_svm_map");
    if ((flags & ~(CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) != 0 || flags == 0)
        throw logic_error("enqueue_svm_map: invalid map_flags " + std::to_string(flags) +
                              "; expected READ and/or WRITE, or WRITE_INVALIDATE_REGION",
                          CL_INVALID_VALUE, "clEnqueueSVMMap");
    cl_event done = nullptr;
    GPUKIT_CL(clEnqueueSVMMap, q.handle(), blocking ? CL_TRUE : CL_FALSE, flags, p.pointer(), p.size(),
              detail::wait_count(wait_for), detail::wait_list(wait_for), &done);
    return event(done);
}

event enqueue_svm_unmap(const queue& q, const svm_pointer& p, std::span<const cl_event> wait_for) {
    check_svm_usable(p, q.context_handle(), "enqueue_svm_unmap");
    cl_event done = nullptr;
    GPUKIT_CL(clEnqueueSVMUnmap, q.handle(), p.pointer(), detail::wait_count(wait_for), detail::wait_list(wait_for),
              &done);
    return event(done);
}

void check_svm_usable(const svm_pointer& p, cl_context ctx, const std::string& what) {
    if (p.released())
        throw logic_error(what + ": the SVM memory was released; expected live SVM", CL_INVALID_ARG_VALUE,
                          "clSVMAlloc");
    if (p.context_handle() != ctx)
        throw logic_error(what + ": the SVM memory belongs to another context; expected SVM of this context",
                          CL_INVALID_CONTEXT, "clSVMAlloc");
}

event enqueue_svm_fill(const queue& q, void* dst, std::span<const std::byte> pattern, std::size_t bytes,
                       std::span<const cl_event> wait_for) {
    const char* routine = "clEnqueueSVMMemFill";
    if (!dst)
        throw logic_error("clEnqueueSVMMemFill: the destination is a null pointer (a released SVM allocation?)",
                          CL_INVALID_VALUE, routine);
    if (bytes == 0)
        throw logic_error("clEnqueueSVMMemFill: the fill has 0 bytes; expected at least 1", CL_INVALID_VALUE, routine);
    check_fill(pattern, 0, bytes, routine);
    cl_event done = nullptr;
    GPUKIT_CL(clEnqueueSVMMemFill, q.handle(), dst, pattern.data(), pattern.size(), bytes, detail::wait_count(wait_for),
              detail::wait_list(wait_for), &done);
    return event(done);
}

event enqueue_svm_copy(const queue& q, void* dst, const void* src, std::size_t bytes, bool blocking,
                       std::span<const cl_event> wait_for) {
    if (!dst || !src)
        throw logic_error("clEnqueueSVMMemcpy: the " + std::string(dst ? "source" : "destination") +
                              " is a null pointer (a released SVM allocation?)",
                          CL_INVALID_VALUE, "clEnqueueSVMMemcpy");
    if (bytes == 0)
        throw logic_error("clEnqueueSVMMemcpy: the copy has 0 bytes; expected at least 1", CL_INVALID_VALUE,
                          "clEnqueueSVMMemcpy");
    cl_event done = nullptr;
    GPUKIT_CL(clEnqueueSVMMemcpy, q.handle(), blocking ? CL_TRUE : CL_FALSE, dst, src, bytes,
              detail::wait_count(wait_for), detail::wait_list(wait_for), &done);
    return event(done);
}

}  // namespace gpukit::cl
