#include "gpukit/cl/queue.hpp"

#include "gpukit/cl/api.hpp"

#include <algorithm>
#include <utility>

namespace gpukit::cl {

queue queue::create(const context& ctx, const device& dev, bool profiling) {
    if (std::find(ctx.devices().begin(), ctx.devices().end(), dev) == ctx.devices().end())
        throw logic_error("creating a command queue: device '" + dev.name() + "' is not one of the context's devices",
                          CL_INVALID_DEVICE, "clCreateCommandQueueWithProperties");
    const cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES,
                                              profiling ? cl_queue_properties{CL_QUEUE_PROFILING_ENABLE} : 0, 0};
    detail::retained<cl_command_queue> handle(
        GPUKIT_CL_CREATE(clCreateCommandQueueWithProperties, "creating a queue on '" + dev.name() + "'", ctx.handle(),
                         dev.handle(), properties),
        detail::adopt);
    return queue(std::move(handle), ctx.handle(), dev, profiling);
}

void queue::finish() const { GPUKIT_CL(clFinish, handle()); }

void queue::flush() const { GPUKIT_CL(clFlush, handle()); }

}  // namespace gpukit::cl
