#include "gpukit/cl/event.hpp"

#include "gpukit/cl/api.hpp"
#include "gpukit/cl/context.hpp"
#include "gpukit/cl/detail/info.hpp"

#include <atomic>
#include <exception>
#include <memory>
#include <string>
#include <mutex>
#include <utility>

namespace gpukit::cl {

namespace detail {

// What keep_until_complete keeps. Both the event and OpenCL's completion callback may be the
// first to learn that the command is over, on different threads: the lock makes exactly one of
// them take the owner.
struct kept_owner {
    std::mutex lock;
    std::shared_ptr<void> owner;

    void drop() noexcept {
        std::shared_ptr<void> taken;
        {
            std::lock_guard guard(lock);
            taken = std::move(owner);
        }
        // `taken` goes here, outside the lock: its destructor may take locks of its own.
    }
};

}  // namespace detail

namespace {

// Completion callbacks set and not yet called.
std::atomic<std::size_t> callbacks_in_flight{0};

// Called by OpenCL, on a thread of its own, once the command is complete or has failed.
void CL_CALLBACK drop_kept_owner(cl_event, cl_int, void* data) {
    {
        const std::unique_ptr<std::shared_ptr<detail::kept_owner>> kept(
            static_cast<std::shared_ptr<detail::kept_owner>*>(data));
        (*kept)->drop();
    }
    callbacks_in_flight.fetch_sub(1, std::memory_order_release);
}

// Called by OpenCL, on a thread of its own, when the command reaches the status set_callback
// asked for: runs the program's callback once and frees it.
void CL_CALLBACK run_callback(cl_event, cl_int status, void* data) {
    {
        const std::unique_ptr<std::function<void(cl_int)>> callback(static_cast<std::function<void(cl_int)>*>(data));
        try {
            (*callback)(status);
        } catch (...) {
            std::terminate();  // no exception may cross OpenCL's C frames (set_callback says so)
        }
    }
    callbacks_in_flight.fetch_sub(1, std::memory_order_release);
}

}  // namespace

void event::set_callback(cl_int type, std::function<void(cl_int)> callback) const {
    const char* routine = "clSetEventCallback";
    if (type != CL_SUBMITTED && type != CL_RUNNING && type != CL_COMPLETE)
        throw logic_error("set_callback: type " + std::to_string(type) +
                              " is not a status OpenCL reports; expected CL_SUBMITTED (2), CL_RUNNING (1) or "
                              "CL_COMPLETE (0)",
                          CL_INVALID_VALUE, routine);
    if (!callback)
        throw logic_error("set_callback: the callback is empty; expected a function", CL_INVALID_VALUE, routine);
    auto* for_callback = new std::function<void(cl_int)>(std::move(callback));
    callbacks_in_flight.fetch_add(1, std::memory_order_relaxed);
    const cl_int status = GPUKIT_CL_ENTRY(clSetEventCallback)(handle(), type, &run_callback, for_callback);
    if (status != CL_SUCCESS) {
        callbacks_in_flight.fetch_sub(1, std::memory_order_relaxed);
        delete for_callback;
        throw_cl_error(status, routine);
    }
}

user_event user_event::create(const context& ctx) {
    return user_event(GPUKIT_CL_CREATE(clCreateUserEvent, "a user event", ctx.handle()));
}

void user_event::set_status(cl_int status) {
    const char* routine = "clSetUserEventStatus";
    if (status > CL_COMPLETE)
        throw logic_error("UserEvent.set_status: status " + std::to_string(status) +
                              " is not one a program may set; expected CL_COMPLETE (0) or a negative error code",
                          CL_INVALID_VALUE, routine);
    if (status_set_)
        throw logic_error("UserEvent.set_status: the status is set already; a user event takes one",
                          CL_INVALID_OPERATION, routine);
    GPUKIT_CL(clSetUserEventStatus, handle(), status);
    status_set_ = true;
}

user_event::~user_event() {
    if (!status_set_ && handle() && api().clSetUserEventStatus)
        (void)api().clSetUserEventStatus(handle(), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
}

std::size_t pending_completion_reports() noexcept { return callbacks_in_flight.load(std::memory_order_acquire); }

void event::wait() const {
    const cl_event waited = handle();
    const cl_int status = api().clWaitForEvents(1, &waited);
    // Both answers mean the command is over (done or failed): its host memory is free again.
    if (kept_ && (status == CL_SUCCESS || status == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST))
        kept_->drop();
    if (status == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        throw_cl_error(this->status(), "clWaitForEvents", "the command of this event failed on the device");
    if (status != CL_SUCCESS)
        throw_cl_error(status, "clWaitForEvents");
}

void wait_for_events(std::span<const event* const> events) {
    if (events.empty())  // as clWaitForEvents answers
        throw logic_error("clWaitForEvents: no events given; expected at least one", CL_INVALID_VALUE,
                          "clWaitForEvents");
    for (const event* e : events)
        e->wait();
}

std::vector<std::byte> event::info_bytes(cl_event_info param) const {
    return detail::info_bytes(
        [&](size_t size, void* value, size_t* size_ret) {
            return api().clGetEventInfo(handle(), param, size, value, size_ret);
        },
        "clGetEventInfo");
}

std::vector<std::byte> event::profiling_info_bytes(cl_profiling_info param) const {
    return detail::info_bytes(
        [&](size_t size, void* value, size_t* size_ret) {
            return api().clGetEventProfilingInfo(handle(), param, size, value, size_ret);
        },
        "clGetEventProfilingInfo");
}

cl_int event::status() const {
    cl_int value = 0;
    GPUKIT_CL(clGetEventInfo, handle(), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof value, &value, nullptr);
    return value;
}

profile_times event::profile() const {
    profile_times times;
    const std::pair<cl_profiling_info, cl_ulong*> fields[] = {{CL_PROFILING_COMMAND_QUEUED, &times.queued},
                                                              {CL_PROFILING_COMMAND_SUBMIT, &times.submit},
                                                              {CL_PROFILING_COMMAND_START, &times.start},
                                                              {CL_PROFILING_COMMAND_END, &times.end}};
    for (const auto& [param, slot] : fields) {
        const cl_int status = api().clGetEventProfilingInfo(handle(), param, sizeof(cl_ulong), slot, nullptr);
        if (status != CL_SUCCESS)
            throw_cl_error(status, "clGetEventProfilingInfo",
                           "profiling needs a queue created with profiling enabled and a finished command; "
                           "call wait() first");
    }
    return times;
}

void event::keep_until_complete(std::shared_ptr<void> owner) {
    const char* routine = "clSetEventCallback";
    if (!handle_)
        throw logic_error("keep_until_complete: the event is empty (moved from)", CL_INVALID_EVENT, routine);
    if (kept_)
        throw logic_error("keep_until_complete: this event already keeps an owner; pass one owner that holds both",
                          CL_INVALID_OPERATION, routine);
    kept_ = std::make_shared<detail::kept_owner>();
    kept_->owner = std::move(owner);
    auto* for_callback = new std::shared_ptr<detail::kept_owner>(kept_);
    const auto set_callback = api().clSetEventCallback;
    callbacks_in_flight.fetch_add(1, std::memory_order_relaxed);
    if (set_callback && set_callback(handle(), CL_COMPLETE, &drop_kept_owner, for_callback) == CL_SUCCESS)
        return;
    // Nobody would tell when the command is over: it must be over before this returns.
    callbacks_in_flight.fetch_sub(1, std::memory_order_relaxed);
    delete for_callback;
    wait();
}

}  // namespace gpukit::cl
