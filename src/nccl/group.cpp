#include "gpukit/nccl/group.hpp"

#include "gpukit/cuda/api.hpp"
#include "gpukit/nccl/detail/group_book.hpp"
#include "gpukit/nccl/error.hpp"
#include "gpukit/nccl/types.hpp"

#include <exception>
#include <string>
#include <vector>

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

// Makes NCCL fail the open group at its end, whatever stopped the issuing: NCCL records the
// error of any call it refuses inside a group and fails the group with it (every version
// since 2.18 does so for a collective on a null communicator, refused before anything else
// is looked at).
void make_nccl_fail_the_group() noexcept {
    (void)api().ncclAllReduce(nullptr, nullptr, 0, static_cast<int>(data_type::int8), static_cast<int>(reduce_op::sum),
                              nullptr, nullptr);
}

// Issues `calls` in order in one NCCL group. The first call NCCL refuses (or that throws)
// stops the issuing and fails NCCL's group; its error is thrown after ncclGroupEnd.
void issue(const std::vector<detail::recorded_call>& calls) {
    check(api().ncclGroupStart(), "ncclGroupStart");
    std::exception_ptr failed;
    try {
        for (const detail::recorded_call& call : calls)
            if (const result code = call.issue(); code != result::success)
                throw_nccl_error(code, call.routine, call.comm);
    } catch (...) {
        failed = std::current_exception();
        make_nccl_fail_the_group();
    }
    const result ended = end_group();
    if (failed)
        std::rethrow_exception(failed);
    check(ended, "ncclGroupEnd");
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

group::group() { detail::this_thread_groups().enter(); }

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
    if (cancelled)  // the enclosing groups must not issue what this one discards
        book.refuse("a group inside it was cancelled (its scope was left by an exception)");
    if (!book.leave())
        return;  // nested: only the outermost end issues
    if (book.refused()) {
        const std::string why = book.refusal();
        release(book.settle(false));
        if (cancelled)
            return;
        throw nccl_error("the NCCL group failed (" + result_name(result::invalid_argument) +
                             "): a call in it was refused, so none of its calls was issued to NCCL (nothing was "
                             "launched, no communicator made): " +
                             why,
                         static_cast<int>(result::invalid_argument), "ncclGroupEnd");
    }
    std::exception_ptr failed;
    {
        const std::vector<detail::recorded_call> calls = book.take_calls();
        try {
            if (!calls.empty())
                issue(calls);
        } catch (...) {
            failed = std::current_exception();
        }
    }  // the calls go before settle(), which counts who holds the communicators they made
    release(book.settle(!failed));
    if (failed)
        std::rethrow_exception(failed);
}

}  // namespace gpukit::nccl
