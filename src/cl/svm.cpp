#include "gpukit/cl/svm.hpp"

#include "gpukit/cl/api.hpp"

#include <string>
#include <utility>

namespace gpukit::cl {

svm_pointer::svm_pointer(svm_pointer&& other) noexcept
    : pointer_(std::exchange(other.pointer_, nullptr)), size_(std::exchange(other.size_, 0)),
      context_(other.context_) {}

svm_pointer& svm_pointer::operator=(svm_pointer&& other) noexcept {
    pointer_ = std::exchange(other.pointer_, nullptr);
    size_ = std::exchange(other.size_, 0);
    context_ = other.context_;
    return *this;
}

void svm_pointer::clear() noexcept {
    pointer_ = nullptr;
    size_ = 0;
}

svm_allocation::svm_allocation(svm_allocator allocator, std::size_t size)
    : svm_pointer(allocator.allocate(size), size, allocator.context_handle()), allocator_(std::move(allocator)) {}

svm_allocation& svm_allocation::operator=(svm_allocation&& other) noexcept {
    if (this != &other) {
        release();
        allocator_ = std::move(other.allocator_);
        svm_pointer::operator=(std::move(other));
    }
    return *this;
}

void svm_allocation::release() noexcept {
    if (!pointer())
        return;
    allocator_.free(pointer(), size());
    clear();
}

void check_svm_usable(const svm_pointer& p, cl_context ctx, const std::string& what) {
    if (!p.pointer())
        throw logic_error(what + ": the SVM memory was released; expected live SVM", CL_INVALID_ARG_VALUE,
                          "clSVMAlloc");
    if (p.context_handle() != ctx)
        throw logic_error(what + ": the SVM memory belongs to another context; expected SVM of this context",
                          CL_INVALID_CONTEXT, "clSVMAlloc");
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
              static_cast<cl_uint>(wait_for.size()), wait_for.empty() ? nullptr : wait_for.data(), &done);
    return event(done);
}

}  // namespace gpukit::cl
