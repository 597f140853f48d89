#include "gpukit/nccl/group.hpp"

#include "gpukit/cuda/api.hpp"
#include "gpukit/nccl/detail/group_book.hpp"
#include "gpukit/nccl/error.hpp"
#include "gpukit/nccl/types.hpp"

#include <string>

namespace gpukit::nccl {
namespace {

// ncclGroupEnd, with the calling thread's current context put back afterwards: NCCL sets
// each grouped communicator's device with the CUDA runtime, then the device it found,
// whose primary context then replaces any other context that was current.
result end_group() {
    CUcontext current = nullptr;
    GPUKIT_CU(cuCtxGetCurrent, &current);
    const result code = api().ncclGroupEnd();
    GPUKIT_CU(cuCtxSetCurrent, current);
    return code;
}

// Makes NCCL fail the open group at its end, launching none of its calls: NCCL records the
// error of any call it refuses inside a group and fails the group with it (every version
// since 2.18 does so for a collective on a null communicator, refused before anything else
// is looked at). gpukit's own refusals happen before NCCL sees the call, so they need this.
void make_nccl_fail_the_group() noexcept {
    (void)api().ncclAllReduce(nullptr, nullptr, 0, static_cast<int>(data_type::int8),
                              static_cast<int>(reduce_op::sum), nullptr, nullptr);
}

// Releases what the end of the outermost group left over; failures are warnings (the
// communicators are gone either way).
void release(const detail::group_book::release_list& list) noexcept {
    const auto end_each = [](const auto& pending, result (*nccl_api::*call)(comm_t), const char* routine) {
        for (const auto& p : pending) {
            cuda::scoped_context in(*p->primary, std::nothrow);
            if (const result code = (api().*call)(p->handle); code != result::success)
                cleanup_warning(std::string(routine) + " failed after an NCCL group ended: " + result_name(code));
            p->handle = nullptr;
        }
    };
    try {
        end_each(list.destroy, &nccl_api::ncclCommDestroy, "ncclCommDestroy");
        end_each(list.abort, &nccl_api::ncclCommAbort, "ncclCommAbort");
    } catch (...) {
    }
}

}  // namespace

group::group() {
    check(api().ncclGroupStart(), "ncclGroupStart");
    detail::this_thread_groups().enter();
}

group::~group() {
    if (open_)  // the scope ends: cancelled when an exception leaves it, else ended
        finish_quietly(std::uncaught_exceptions() > exceptions_at_start_);
}

void group::end() {
    if (!open_)
        throw logic_error("this NCCL group has ended already");
    open_ = false;
    finish(false);
}

void group::cancel() noexcept {
    if (open_)
        finish_quietly(true);
}

void group::finish_quietly(bool cancelled) noexcept {
    open_ = false;
    try {
        finish(cancelled);
    } catch (const std::exception& e) {
        cleanup_warning(std::string(cancelled ? "cancelling" : "ending") + " an NCCL group failed: " + e.what());
    } catch (...) {
    }
}

void group::finish(bool cancelled) {
    detail::group_book& book = detail::this_thread_groups();
    if (cancelled)  // the enclosing groups must not launch what this one discards
        book.refuse("a group inside it was cancelled (its scope was left by an exception)");
    if (!book.leave()) {  // nested: NCCL only counts down
        check(end_group(), "ncclGroupEnd");
        return;
    }
    const bool refused = book.refused();
    const std::string why = book.refusal();
    if (refused)
        make_nccl_fail_the_group();
    result code = result::success;
    try {
        code = end_group();
    } catch (...) {
        release(book.settle(false));
        throw;
    }
    release(book.settle(code == result::success && !refused));
    if (cancelled)
        return;
    if (refused)
        throw nccl_error("ncclGroupEnd failed: " + result_name(result::invalid_argument) +
                             ": a call in the group was refused, so NCCL launched none of the group's calls: " + why,
                         static_cast<int>(result::invalid_argument), "ncclGroupEnd");
    check(code, "ncclGroupEnd");
}

}  // namespace gpukit::nccl
