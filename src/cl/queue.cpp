#include "gpukit/cl/queue.hpp"

#include "gpukit/cl/api.hpp"
#include "gpukit/cl/detail/release.hpp"

#include <algorithm>
#include <utility>

namespace gpukit::cl {

queue queue::create(const context& ctx, const device& dev, bool profiling) {
    if (std::find(ctx.devices().begin(), ctx.devices().end(), dev) == ctx.devices().end())
        throw logic_error("creating a command queue: device '" + dev.name() + "' is not one of the context's devices",
                          CL_INVALID_DEVICE, "clCreateCommandQueueWithProperties");
    const cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES,
                                              profiling ? cl_queue_properties{CL_QUEUE_PROFILING_ENABLE} : 0, 0};
    cl_command_queue handle = GPUKIT_CL_CREATE(clCreateCommandQueueWithProperties,
                                               "creating a queue on '" + dev.name() + "'", ctx.handle(),
                                               dev.handle(), properties);
    return queue(handle, ctx.handle(), dev, profiling);
}

queue::queue(queue&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), context_(other.context_), device_(other.device_),
      profiling_(other.profiling_) {}

queue& queue::operator=(queue&& other) noexcept {
    if (this != &other) {
        release();
        handle_ = std::exchange(other.handle_, nullptr);
        context_ = other.context_;
        device_ = other.device_;
        profiling_ = other.profiling_;
    }
    return *this;
}

queue::~queue() { release(); }

void queue::release() noexcept {
    if (!handle_)
        return;
    detail::release_with(&opencl_api::clReleaseCommandQueue, handle_, "clReleaseCommandQueue");
    handle_ = nullptr;
}

void queue::finish() const { GPUKIT_CL(clFinish, handle_); }

void queue::flush() const { GPUKIT_CL(clFlush, handle_); }

}  // namespace gpukit::cl
