#include "gpukit/cl/allocators.hpp"

#include "gpukit/cl/api.hpp"
#include "gpukit/cl/buffer.hpp"
#include "gpukit/cl/detail/info.hpp"
#include "gpukit/cl/detail/release.hpp"

#include <bit>
#include <limits>
#include <string>

namespace gpukit::cl {
namespace {

cl_context context_of(cl_command_queue q) {
    return detail::info_value<cl_context>(
        [&](size_t size, void* value, size_t* size_ret) {
            return api().clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, size, value, size_ret);
        },
        "clGetCommandQueueInfo");
}

// Waits for a command's event and drops it; the command's own failure comes back as status.
cl_int wait_and_release(cl_event done) {
    const cl_int status = api().clWaitForEvents(1, &done);
    detail::release_with(&opencl_api::clReleaseEvent, done, "clReleaseEvent");
    return status;
}

// The pool recognises a shortage by gpukit::memory_error (memory/allocator.hpp), not by the
// OpenCL error class, so a shortage is passed on as one, keeping message, status and routine.
template <class Allocate>
auto reporting_shortage(Allocate allocate) {
    try {
        return allocate();
    } catch (const cl::memory_error& e) {
        throw gpukit::memory_error(e.what(), e.code(), e.routine());
    }
}

constexpr cl_svm_mem_flags svm_access_flags = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
constexpr cl_svm_mem_flags svm_known_flags = svm_access_flags | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS;

[[noreturn]] void bad_svm_request(const std::string& why) {
    throw logic_error("SVM allocator: " + why, CL_INVALID_VALUE, "clSVMAlloc");
}

void check_svm_flags(cl_svm_mem_flags flags) {
    if (flags & ~svm_known_flags)
        bad_svm_request("unknown flag bits " + std::to_string(flags & ~svm_known_flags) +
                        "; expected READ_WRITE, WRITE_ONLY or READ_ONLY, optionally with SVM_FINE_GRAIN_BUFFER and "
                        "SVM_ATOMICS");
    if (std::popcount(flags & svm_access_flags) > 1)
        bad_svm_request("flags " + std::to_string(flags) + " hold more than one of READ_WRITE, WRITE_ONLY, READ_ONLY");
    if ((flags & CL_MEM_SVM_ATOMICS) && !(flags & CL_MEM_SVM_FINE_GRAIN_BUFFER))
        bad_svm_request("SVM_ATOMICS needs SVM_FINE_GRAIN_BUFFER as well");
}

}  // namespace

deferred_allocator::deferred_allocator(cl_context ctx, cl_mem_flags flags) : context_(ctx), flags_(flags) {
    check_mem_flags(flags, false);
}

cl_mem deferred_allocator::allocate(std::size_t bytes) {
    if (bytes == 0)
        throw logic_error("allocating a buffer: size is 0; expected at least 1 byte", CL_INVALID_BUFFER_SIZE,
                          "clCreateBuffer");
    return reporting_shortage([&] {
        return GPUKIT_CL_CREATE(clCreateBuffer, "size " + std::to_string(bytes) + " bytes", context_.get(), flags_,
                                bytes, nullptr);
    });
}

void deferred_allocator::free(cl_mem block, std::size_t) noexcept {
    detail::release_with(&opencl_api::clReleaseMemObject, block, "clReleaseMemObject");
}

immediate_allocator::immediate_allocator(const queue& q, cl_mem_flags flags)
    : queue_(q.handle()), creator_(context_of(q.handle()), flags) {}

cl_mem immediate_allocator::allocate(std::size_t bytes) {
    const cl_mem block = creator_.allocate(bytes);
    // Migrating with undefined content moves no data but makes the device back the buffer
    // now. Waiting for that one command (not the whole queue) keeps unrelated work running.
    cl_event done = nullptr;
    cl_int status = api().clEnqueueMigrateMemObjects(queue_.get(), 1, &block, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED,
                                                     0, nullptr, &done);
    if (status == CL_SUCCESS)
        status = wait_and_release(done);
    if (status != CL_SUCCESS) {
        creator_.free(block, bytes);
        reporting_shortage([&] {
            throw_cl_error(status, "clEnqueueMigrateMemObjects",
                           "making a buffer of " + std::to_string(bytes) + " bytes resident on the device");
        });
    }
    return block;
}

void immediate_allocator::free(cl_mem block, std::size_t bytes) noexcept { creator_.free(block, bytes); }

svm_allocator::svm_allocator(const context& ctx, std::size_t alignment, cl_svm_mem_flags flags, const queue* free_queue)
    : context_(ctx.handle()), alignment_(alignment), flags_(flags),
      free_queue_(free_queue ? free_queue->handle() : nullptr) {
    check_svm_flags(flags);
    if (alignment != 0 && !std::has_single_bit(alignment))
        bad_svm_request("alignment " + std::to_string(alignment) +
                        " is not a power of two; expected 0 (the "
                        "device's default) or a power of two");
    // clSVMAlloc takes the alignment as a cl_uint.
    if (alignment > std::numeric_limits<cl_uint>::max())
        bad_svm_request("alignment " + std::to_string(alignment) +
                        " is larger than OpenCL can ask for; expected 0 or a power of two up to 2**31");
    if (free_queue && free_queue->context_handle() != ctx.handle())
        bad_svm_request("the free queue belongs to another context; expected a queue of the allocator's context");
    bool any_svm = false;
    for (const device& d : ctx.devices())
        any_svm = any_svm || d.svm_capabilities() != 0;
    if (!any_svm)
        bad_svm_request(
            "no device of the context supports shared virtual memory (it needs OpenCL 2.0 and a "
            "non-zero CL_DEVICE_SVM_CAPABILITIES)");
    if ((flags & CL_MEM_SVM_FINE_GRAIN_BUFFER)) {
        bool fine_grain = false;
        for (const device& d : ctx.devices())
            fine_grain = fine_grain || (d.svm_capabilities() & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) != 0;
        if (!fine_grain)
            bad_svm_request("SVM_FINE_GRAIN_BUFFER was asked for, but no device of the context supports it");
    }
}

void* svm_allocator::allocate(std::size_t bytes) {
    if (bytes == 0)
        bad_svm_request("size is 0; expected at least 1 byte");
    const auto alloc = GPUKIT_CL_ENTRY(clSVMAlloc);
    // clSVMAlloc has no status: NULL means out of memory, or an alignment the implementation
    // cannot give (there is no query for the largest). Where the default alignment succeeds,
    // it was the alignment.
    void* block = alloc(context_.get(), flags_, bytes, static_cast<cl_uint>(alignment_));
    if (!block && alignment_ != 0) {
        if (void* unaligned = alloc(context_.get(), flags_, bytes, 0)) {
            api().clSVMFree(context_.get(), unaligned);
            bad_svm_request("the OpenCL implementation cannot align SVM to " + std::to_string(alignment_) +
                            " bytes (clSVMAlloc gives no memory with that alignment, but does with the default); "
                            "expected a smaller power of two, or 0");
        }
    }
    if (!block)
        throw gpukit::memory_error("clSVMAlloc failed: no memory for " + std::to_string(bytes) + " bytes of SVM",
                                   CL_MEM_OBJECT_ALLOCATION_FAILURE, "clSVMAlloc");
    return block;
}

void svm_allocator::free_after(void* block, cl_command_queue q) const noexcept {
    try {
        if (q) {
            const cl_int status = api().clEnqueueSVMFree(q, 1, &block, nullptr, nullptr, 0, nullptr, nullptr);
            if (status != CL_SUCCESS)
                cleanup_warning("clEnqueueSVMFree failed: " + error_name(status));
        } else {
            api().clSVMFree(context_.get(), block);
        }
    } catch (...) {
        // api() refuses only in a fork() child of the process that made the block: the
        // block is the parent's to free.
    }
}

}  // namespace gpukit::cl
