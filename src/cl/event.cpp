#include "gpukit/cl/event.hpp"

#include "gpukit/cl/api.hpp"
#include "gpukit/cl/detail/release.hpp"

#include <utility>

namespace gpukit::cl {

event::event(event&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}

event& event::operator=(event&& other) noexcept {
    if (this != &other) {
        release();
        handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
}

event::~event() { release(); }

void event::release() noexcept {
    if (!handle_)
        return;
    detail::release_with(&opencl_api::clReleaseEvent, handle_, "clReleaseEvent");
    handle_ = nullptr;
}

void event::wait() const {
    const cl_int status = api().clWaitForEvents(1, &handle_);
    if (status == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        throw_cl_error(this->status(), "clWaitForEvents", "the command of this event failed on the device");
    if (status != CL_SUCCESS)
        throw_cl_error(status, "clWaitForEvents");
}

cl_int event::status() const {
    cl_int value = 0;
    GPUKIT_CL(clGetEventInfo, handle_, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof value, &value, nullptr);
    return value;
}

profile_times event::profile() const {
    profile_times times;
    const std::pair<cl_profiling_info, cl_ulong*> fields[] = {{CL_PROFILING_COMMAND_QUEUED, &times.queued},
                                                             {CL_PROFILING_COMMAND_SUBMIT, &times.submit},
                                                             {CL_PROFILING_COMMAND_START, &times.start},
                                                             {CL_PROFILING_COMMAND_END, &times.end}};
    for (const auto& [param, slot] : fields) {
        const cl_int status = api().clGetEventProfilingInfo(handle_, param, sizeof(cl_ulong), slot, nullptr);
        if (status != CL_SUCCESS)
            throw_cl_error(status, "clGetEventProfilingInfo",
                           "profiling needs a queue created with profiling enabled and a finished command; "
                           "call wait() first");
    }
    return times;
}

}  // namespace gpukit::cl
