#include "gpukit/cl/kernel.hpp"

#include "gpukit/cl/api.hpp"
#include "gpukit/cl/detail/info.hpp"
#include "gpukit/cl/detail/release.hpp"

#include <utility>

namespace gpukit::cl {
namespace {

std::string sizes_text(std::span<const size_t> sizes) {
    std::string text = "(";
    for (size_t i = 0; i < sizes.size(); ++i)
        text += (i ? ", " : "") + std::to_string(sizes[i]);
    return text + ")";
}

}  // namespace

kernel kernel::create(const program& prog, const std::string& name) {
    if (!prog.built())
        throw logic_error("creating kernel '" + name + "': the program is not built; call build() first",
                          CL_INVALID_PROGRAM_EXECUTABLE, "clCreateKernel");
    cl_kernel handle = GPUKIT_CL_CREATE(clCreateKernel, "no kernel named '" + name + "' in the program",
                                        prog.handle(), name.c_str());
    kernel result(handle, name, 0);
    const auto num_args = detail::info_value<cl_uint>([&](size_t size, void* value, size_t* size_ret) {
        return api().clGetKernelInfo(handle, CL_KERNEL_NUM_ARGS, size, value, size_ret);
    }, "clGetKernelInfo");
    result.arg_set_.assign(num_args, false);
    return result;
}

kernel::kernel(kernel&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), name_(std::move(other.name_)),
      arg_set_(std::move(other.arg_set_)) {}

kernel& kernel::operator=(kernel&& other) noexcept {
    if (this != &other) {
        release();
        handle_ = std::exchange(other.handle_, nullptr);
        name_ = std::move(other.name_);
        arg_set_ = std::move(other.arg_set_);
    }
    return *this;
}

kernel::~kernel() { release(); }

void kernel::release() noexcept {
    if (!handle_)
        return;
    detail::release_with(&opencl_api::clReleaseKernel, handle_, "clReleaseKernel");
    handle_ = nullptr;
}

void kernel::check_index(cl_uint index, const char* routine) const {
    if (index >= num_args())
        throw logic_error("kernel '" + name_ + "' takes " + std::to_string(num_args()) + " argument(s); index " +
                              std::to_string(index) + " is out of range",
                          CL_INVALID_ARG_INDEX, routine);
}

void kernel::set_arg_raw(cl_uint index, size_t size, const void* value, const std::string& what) {
    check_index(index, "clSetKernelArg");
    const cl_int status = api().clSetKernelArg(handle_, index, size, value);
    if (status != CL_SUCCESS)
        throw_cl_error(status, "clSetKernelArg",
                       "argument " + std::to_string(index) + " of kernel '" + name_ + "' given " + what +
                           (status == CL_INVALID_ARG_SIZE ? "; the size must match the parameter's type exactly" : ""));
    arg_set_[index] = true;
}

void kernel::set_arg(cl_uint index, const buffer& b) {
    const cl_mem handle = b.handle();
    set_arg_raw(index, sizeof handle, &handle, "a buffer of " + std::to_string(b.size()) + " bytes");
}

void kernel::set_arg(cl_uint index, const svm_pointer& p) {
    check_index(index, "clSetKernelArgSVMPointer");
    if (!p.pointer())
        throw logic_error("argument " + std::to_string(index) + " of kernel '" + name_ +
                              "': the SVM memory was released; expected live SVM",
                          CL_INVALID_ARG_VALUE, "clSetKernelArgSVMPointer");
    GPUKIT_CL(clSetKernelArgSVMPointer, handle_, index, p.pointer());
    arg_set_[index] = true;
}

void kernel::set_arg(cl_uint index, local_memory local) {
    if (local.bytes == 0)
        throw logic_error("argument " + std::to_string(index) + " of kernel '" + name_ +
                              "': local memory of 0 bytes; expected at least 1",
                          CL_INVALID_ARG_SIZE, "clSetKernelArg");
    set_arg_raw(index, local.bytes, nullptr, std::to_string(local.bytes) + " bytes of local memory");
}

void kernel::set_arg_bytes(cl_uint index, const void* value, size_t size) {
    if (!value || size == 0)
        throw logic_error("argument " + std::to_string(index) + " of kernel '" + name_ +
                              "': a by-value argument needs a value of at least 1 byte",
                          CL_INVALID_ARG_VALUE, "clSetKernelArg");
    set_arg_raw(index, size, value, "a " + std::to_string(size) + "-byte value");
}

void kernel::check_all_args_set() const {
    for (size_t i = 0; i < arg_set_.size(); ++i)
        if (!arg_set_[i])
            throw logic_error("kernel '" + name_ + "': argument " + std::to_string(i) + " of " +
                                  std::to_string(arg_set_.size()) + " was never set; set every argument before running",
                              CL_INVALID_KERNEL_ARGS, "clEnqueueNDRangeKernel");
}

event enqueue_nd_range(const queue& q, const kernel& k, std::span<const size_t> global_size,
                       std::span<const size_t> local_size, std::span<const cl_event> wait_for) {
    const char* routine = "clEnqueueNDRangeKernel";
    if (global_size.empty() || global_size.size() > 3)
        throw logic_error("running kernel '" + k.name() + "': global size " + sizes_text(global_size) + " has " +
                              std::to_string(global_size.size()) + " dimensions; expected 1 to 3",
                          CL_INVALID_WORK_DIMENSION, routine);
    if (!local_size.empty() && local_size.size() != global_size.size())
        throw logic_error("running kernel '" + k.name() + "': local size " + sizes_text(local_size) +
                              " must have as many dimensions as global size " + sizes_text(global_size),
                          CL_INVALID_WORK_DIMENSION, routine);
    for (size_t i = 0; i < global_size.size(); ++i) {
        if (global_size[i] == 0 || (!local_size.empty() && local_size[i] == 0))
            throw logic_error("running kernel '" + k.name() + "': sizes must be positive, got global " +
                                  sizes_text(global_size) + " and local " + sizes_text(local_size),
                              CL_INVALID_GLOBAL_WORK_SIZE, routine);
        if (!local_size.empty() && global_size[i] % local_size[i] != 0)
            throw logic_error("running kernel '" + k.name() + "': global size " + sizes_text(global_size) +
                                  " must be a multiple of local size " + sizes_text(local_size) + " in every dimension",
                              CL_INVALID_WORK_GROUP_SIZE, routine);
    }
    k.check_all_args_set();
    cl_event done = nullptr;
    const cl_int status = api().clEnqueueNDRangeKernel(
        q.handle(), k.handle(), static_cast<cl_uint>(global_size.size()), nullptr, global_size.data(),
        local_size.empty() ? nullptr : local_size.data(), static_cast<cl_uint>(wait_for.size()),
        wait_for.empty() ? nullptr : wait_for.data(), &done);
    if (status != CL_SUCCESS)
        throw_cl_error(status, routine,
                       "kernel '" + k.name() + "' with global size " + sizes_text(global_size) + " and local size " +
                           (local_size.empty() ? std::string("chosen by the implementation") : sizes_text(local_size)));
    return event(done);
}

}  // namespace gpukit::cl
