#include "gpukit/cuda/event.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"

#include <utility>

namespace gpukit::cuda {

event event::create(unsigned int flags) {
    context ctx = context::current_or_throw("creating an Event");
    CUevent handle = nullptr;
    const CUresult result = api().cuEventCreate(&handle, flags);
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, "cuEventCreate",
                         "flags " + std::to_string(flags) + "; INTERPROCESS events also need DISABLE_TIMING");
    return event(handle, flags, ctx.state(), false);
}

event event::from_ipc_handle(const CUipcEventHandle& ipc) {
    context ctx = context::current_or_throw("opening an IPC Event");
    CUevent handle = nullptr;
    GPUKIT_CU(cuIpcOpenEventHandle, &handle, ipc);
    // The exporting process records it; treat it as recorded so waits are allowed.
    return event(handle, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING, ctx.state(), true);
}

event::event(event&& other) noexcept
    : owned_(std::move(other.owned_)), flags_(other.flags_), recorded_(other.recorded_.load()) {}

event& event::operator=(event&& other) noexcept {
    owned_ = std::move(other.owned_);  // destroys the event this held
    flags_ = other.flags_;
    recorded_ = other.recorded_.load();
    return *this;
}

void event::record(stream_view s) {
    GPUKIT_CU(cuEventRecord, handle(), s.handle());
    recorded_ = true;
}

void event_view::synchronize() const { GPUKIT_CU(cuEventSynchronize, handle()); }

bool event_view::query() const { return is_ready(api().cuEventQuery(handle()), "cuEventQuery"); }

float event::time_since(const event& start) const {
    for (const event* e : {&start, this}) {
        if (!e->was_recorded())
            throw logic_error(
                "Event.time_since/time_till: an event was never recorded; call record() on both "
                "events, then synchronize() the later one, before timing");
        if (e->flags() & CU_EVENT_DISABLE_TIMING)
            throw logic_error(
                "Event.time_since/time_till: an event was created with DISABLE_TIMING and "
                "cannot be timed");
    }
    float ms = 0.0f;
    const CUresult result = api().cuEventElapsedTime(&ms, start.handle(), handle());
    if (result == CUDA_ERROR_NOT_READY)
        throw logic_error(
            "Event.time_since/time_till: the events have not completed yet; call synchronize() "
            "on the later event first",
            result, "cuEventElapsedTime");
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, "cuEventElapsedTime");
    return ms;
}

CUipcEventHandle event::ipc_handle() const {
    if ((flags_ & CU_EVENT_INTERPROCESS) == 0 || (flags_ & CU_EVENT_DISABLE_TIMING) == 0)
        throw logic_error(
            "Event.ipc_handle(): the event must be created with event_flags.INTERPROCESS | "
            "event_flags.DISABLE_TIMING");
    CUipcEventHandle handle{};
    GPUKIT_CU(cuIpcGetEventHandle, &handle, this->handle());
    return handle;
}

}  // namespace gpukit::cuda
