#include "gpukit/cl/queue.hpp"

#include "gpukit/cl/api.hpp"
#include "gpukit/cl/detail/info.hpp"
#include "gpukit/cl/detail/wait_list.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

namespace gpukit::cl {

queue queue::create(const context& ctx, const device& dev, bool profiling) {
    return create_with(ctx, dev, profiling ? cl_command_queue_properties{CL_QUEUE_PROFILING_ENABLE} : 0);
}

queue queue::create_with(const context& ctx, const device& dev, cl_command_queue_properties properties) {
    constexpr cl_command_queue_properties known = CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE;
    if (properties & ~known)
        throw logic_error("creating a command queue: properties " + std::to_string(properties) +
                              " are not supported; expected PROFILING_ENABLE and OUT_OF_ORDER_EXEC_MODE_ENABLE bits",
                          CL_INVALID_QUEUE_PROPERTIES, "clCreateCommandQueueWithProperties");
    if (std::find(ctx.devices().begin(), ctx.devices().end(), dev) == ctx.devices().end())
        throw logic_error("creating a command queue: device '" + dev.name() + "' is not one of the context's devices",
                          CL_INVALID_DEVICE, "clCreateCommandQueueWithProperties");
    if ((properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) &&
        !(dev.info<cl_command_queue_properties>(CL_DEVICE_QUEUE_PROPERTIES) & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE))
        throw logic_error("creating a command queue: device '" + dev.name() + "' has no out-of-order queues",
                          CL_INVALID_QUEUE_PROPERTIES, "clCreateCommandQueueWithProperties");
    // In order, whatever was asked (see queue.hpp).
    const cl_queue_properties driver_properties[] = {CL_QUEUE_PROPERTIES, properties & CL_QUEUE_PROFILING_ENABLE, 0};
    detail::retained<cl_command_queue> handle(GPUKIT_CL_CREATE(clCreateCommandQueueWithProperties,
                                                               "creating a queue on '" + dev.name() + "'", ctx.handle(),
                                                               dev.handle(), driver_properties),
                                              detail::adopt);
    return queue(std::move(handle), ctx.handle(), dev, properties);
}

queue queue::wrap(cl_command_queue handle, bool retain) {
    detail::retained<cl_command_queue> owned = detail::reference_to(handle, retain, "a command queue");
    auto query = [&](cl_command_queue_info param) {
        return [=](size_t size, void* value, size_t* size_ret) {
            return api().clGetCommandQueueInfo(handle, param, size, value, size_ret);
        };
    };
    const auto ctx = detail::info_value<cl_context>(query(CL_QUEUE_CONTEXT), "clGetCommandQueueInfo");
    const auto dev = detail::info_value<cl_device_id>(query(CL_QUEUE_DEVICE), "clGetCommandQueueInfo");
    const auto properties =
        detail::info_value<cl_command_queue_properties>(query(CL_QUEUE_PROPERTIES), "clGetCommandQueueInfo");
    if (properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
        throw logic_error(
            "wrapping a command queue: it runs commands out of order; expected an in-order queue "
            "(gpukit relies on commands running in the order queued)",
            CL_INVALID_QUEUE_PROPERTIES, "clGetCommandQueueInfo");
    return queue(std::move(owned), ctx, device(dev), properties & CL_QUEUE_PROFILING_ENABLE);
}

event enqueue_marker(const queue& q, std::span<const cl_event> wait_for) {
    cl_event done = nullptr;
    GPUKIT_CL(clEnqueueMarkerWithWaitList, q.handle(), detail::wait_count(wait_for), detail::wait_list(wait_for),
              &done);
    return event(done);
}

event enqueue_barrier(const queue& q, std::span<const cl_event> wait_for) {
    cl_event done = nullptr;
    GPUKIT_CL(clEnqueueBarrierWithWaitList, q.handle(), detail::wait_count(wait_for), detail::wait_list(wait_for),
              &done);
    return event(done);
}

std::vector<std::byte> queue::info_bytes(cl_command_queue_info param) const {
    if (param == CL_QUEUE_PROPERTIES) {
        std::vector<std::byte> bytes(sizeof properties_);
        std::memcpy(bytes.data(), &properties_, sizeof properties_);
        return bytes;
    }
    return detail::info_bytes(
        [&](size_t size, void* value, size_t* size_ret) {
            return api().clGetCommandQueueInfo(handle(), param, size, value, size_ret);
        },
        "clGetCommandQueueInfo");
}

void queue::finish() const { GPUKIT_CL(clFinish, handle()); }

void queue::flush() const { GPUKIT_CL(clFlush, handle()); }

}  // namespace gpukit::cl
