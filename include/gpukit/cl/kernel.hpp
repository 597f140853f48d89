// OpenCL kernels: one function of a built program, its arguments, and running it.
#pragma once

#include "gpukit/cl/buffer.hpp"
#include "gpukit/cl/event.hpp"
#include "gpukit/cl/program.hpp"
#include "gpukit/cl/queue.hpp"
#include "gpukit/cl/svm.hpp"

#include <CL/cl.h>

#include <cstddef>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace gpukit::cl {

// A __local argument: the kernel gets `bytes` of work-group local memory.
struct local_memory {
    size_t bytes = 0;
};

// Owns one reference to a cl_kernel; move-only. The kernel keeps its program alive.
class kernel {
public:
    // The kernel `name` of `prog`, which must be built.
    static kernel create(const program& prog, const std::string& name);

    kernel(kernel&& other) noexcept;
    kernel& operator=(kernel&& other) noexcept;
    ~kernel();

    cl_kernel handle() const noexcept { return handle_; }
    const std::string& name() const noexcept { return name_; }
    cl_uint num_args() const noexcept { return static_cast<cl_uint>(arg_set_.size()); }

    // Argument `index` is a __global or __constant pointer to `b`.
    void set_arg(cl_uint index, const buffer& b);
    // Argument `index` is a __global pointer to the start of SVM `p` (clSetKernelArgSVMPointer).
    void set_arg(cl_uint index, const svm_pointer& p);
    // Argument `index` is a __local pointer to `local.bytes` of local memory.
    void set_arg(cl_uint index, local_memory local);
    // Argument `index` is a scalar or struct passed by value: `size` bytes at `value`, which
    // must be exactly the size of the kernel's parameter type.
    void set_arg_bytes(cl_uint index, const void* value, size_t size);
    template <class T>
        requires std::is_trivially_copyable_v<T>
    void set_arg_value(cl_uint index, const T& value) {
        set_arg_bytes(index, &value, sizeof value);
    }

    // Throws cl::logic_error naming the first argument that was never set.
    void check_all_args_set() const;

private:
    kernel(cl_kernel handle, std::string name, cl_uint num_args) noexcept
        : handle_(handle), name_(std::move(name)), arg_set_(num_args, false) {}
    void release() noexcept;
    void check_index(cl_uint index, const char* routine) const;
    void set_arg_raw(cl_uint index, size_t size, const void* value, const std::string& what);

    cl_kernel handle_ = nullptr;
    std::string name_;
    std::vector<bool> arg_set_;
};

// Runs `k` over `global_size` work items (1 to 3 dimensions) in work groups of `local_size`
// (same dimensions, or empty to let the implementation choose). Every argument must be set.
event enqueue_nd_range(const queue& q, const kernel& k, std::span<const size_t> global_size,
                       std::span<const size_t> local_size = {}, std::span<const cl_event> wait_for = {});

}  // namespace gpukit::cl
