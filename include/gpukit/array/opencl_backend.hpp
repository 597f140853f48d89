// gpukit::array::opencl_backend: the array engine on an OpenCL device, queuing its work on one
// gpukit::cl queue (PoCL on a CPU, NVIDIA's OpenCL, any OpenCL 1.2+ implementation).
//
// Memory is OpenCL memory (device_buffer::space opencl): new cl::buffers of the queue's
// context, or what a buffer_source gives (a pool's buffers, a Python allocator's, shared virtual
// memory, each made a device_buffer by array::borrow); generated kernels are OpenCL C,
// built once per context and device (every backend of the pair shares them) and cached by
// key; launches set the arguments and enqueue the kernel under a lock, so one backend may be
// used from several threads. Element types: bool (held as
// a uchar of 0 or 1), the integers, float32, complex64 (PyOpenCL's cfloat_t), and float64 and
// complex128 where the device has cl_khr_fp64 (a logic_error says so where it does not).
// Kernels are built with GK_CPU defined on a CPU device, where a group's work items run one
// after the other: a generated kernel's loop then walks consecutive elements per work item.
#pragma once

#include "gpukit/array/backend.hpp"
#include "gpukit/cl/buffer.hpp"
#include "gpukit/cl/queue.hpp"
#include "gpukit/cl/svm.hpp"

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace gpukit::array {

// The backend of an OpenCL device: OpenCL C kernels, OpenCL memory, and work queued on one
// cl::queue (see the top of this file).
class opencl_backend final : public backend {
public:
    // Where allocate() takes memory from: OpenCL memory of the queue's context (array::borrow
    // of a cl::buffer or of SVM) of at least the bytes asked for (1 for 0).
    using buffer_source = std::function<std::shared_ptr<const device_buffer>(std::size_t bytes)>;

    // Work on `q` (the backend holds a reference of its own to it and its context), with
    // memory from `source` (empty: new buffers of q's context). `build_options` go into every
    // kernel's build (an include path for the headers user preambles include, say).
    explicit opencl_backend(const cl::queue& q, buffer_source source = {}, std::string build_options = {});
    // Waits for the commands that still use SVM it was given.
    ~opencl_backend() override;

    kernel_language language() const noexcept override { return kernel_language::opencl; }
    memory_space space() const noexcept override { return memory_space::opencl; }
    std::string name() const override;
    std::string type_problem(dtype t) const override;
    unsigned preferred_group_size() const noexcept override { return group_size_; }

    std::shared_ptr<const device_buffer> allocate(std::size_t bytes) override;
    void write(const device_buffer& dst, std::size_t offset, std::span<const std::byte> src) override;
    void read(const device_buffer& src, std::size_t offset, std::span<std::byte> dst) override;

    loaded_kernel kernel(std::uint64_t key, const std::string& name,
                         const std::function<std::string()>& source) override;
    void launch(const loaded_kernel& k, const launch_shape& shape, std::span<const kernel_argument> args) override;
    void synchronize() override;

    // The queue the backend's copies and kernels go to (the backend's own reference to it).
    const cl::queue& queue() const noexcept { return queue_; }
    // The completion of the last kernel this backend queued (empty before the first): as the
    // queue runs in order, the completion of an operation (PyOpenCL's arrays keep it).
    std::optional<cl::event> last_event() const;

private:
    struct built_kernel;
    struct built_program;
    struct program_cache;
    // SVM a queued kernel uses (OpenCL does not count references to it), kept until the
    // command is over. A later launch() or synchronize() drops it, on the caller's thread:
    // dropping SVM may free it, which must not happen on OpenCL's completion thread.
    struct svm_in_use {
        cl::event done;
        std::vector<std::shared_ptr<const void>> owners;
    };
    void drop_finished_svm(bool all);

    cl::queue queue_;
    cl::context context_;
    buffer_source source_;
    std::string build_options_;
    bool has_fp64_;
    unsigned group_size_;
    unsigned full_grid_;
    bool gpu_;                                 // CL_DEVICE_TYPE_GPU: what a loaded_kernel tells launches
    std::shared_ptr<program_cache> programs_;  // shared by the backends of one context and device
    mutable std::mutex launches_mutex_;        // guards what launches leave: the two below
    std::vector<svm_in_use> svm_in_use_;
    cl::detail::retained<cl_event> last_launch_;
};

// An OpenCL buffer as array memory (device_buffer::space opencl), kept alive by the result.
std::shared_ptr<const device_buffer> borrow(std::shared_ptr<const cl::buffer> b);
// Shared virtual memory (an svm_allocation, a pool's pooled_svm, an svm_range) as array
// memory, kept alive by the result: kernels take it as a pointer (clSetKernelArgSVMPointer) and
// copies are SVM copies. Coarse-grained SVM must not be mapped for the host while arrays use it.
// logic_error when it was released.
std::shared_ptr<const device_buffer> borrow(std::shared_ptr<const cl::svm_pointer> p);

}  // namespace gpukit::array
