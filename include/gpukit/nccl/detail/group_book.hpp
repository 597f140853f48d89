// What gpukit knows of the NCCL groups open on the calling thread: how deep they nest, the
// calls made in them, the communicators they are making, and the first call refused inside
// them.
//
// gpukit does not hand the calls of a group to NCCL as they are made: it records them, and
// the end of the outermost group issues them all, in order, between one ncclGroupStart and
// ncclGroupEnd (group.cpp), or none of them when a call was refused or the group was
// cancelled. Leaving the discarding to NCCL would not do: NCCL runs a collective on a
// communicator of one rank at once, even inside a group, so a failed group could not take
// it back. Groups are counted per thread, as NCCL counts its own. Communicators made in a
// group wait in the book until its end (pending_comm); a communicator destroyed or aborted
// inside one is released after it, as the recorded calls may still use it.
// Internal: group.cpp and communicator.cpp share it; the tests drive it without NCCL.
#pragma once

#include "gpukit/cuda/context.hpp"
#include "gpukit/nccl/api.hpp"

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gpukit::nccl::detail {

// A communicator a group is making, shared by its communicator object and the group.
struct pending_comm {
    enum class phase { waiting, made, failed };
    // Written by the call that makes it when the group issues it (ncclCommSplit writes it
    // only at ncclGroupEnd, so it must stay put until then, which is why it is shared).
    comm_t handle = nullptr;
    phase state = phase::waiting;
    // The primary context NCCL calls on the handle need, should the group have to release it.
    cuda::context_state_ptr primary;
};

// An NCCL call made inside a group, kept until the outermost group ends.
struct recorded_call {
    const char* routine = "";       // "ncclAllReduce": what an error names
    comm_t comm = nullptr;          // the communicator whose last error NCCL keeps, if any
    std::function<result()> issue;  // makes the call, arguments bound, in its context
};

// One thread's groups.
class group_book {
public:
    int depth() const noexcept { return depth_; }
    bool open() const noexcept { return depth_ > 0; }
    void enter() noexcept { ++depth_; }
    // Leaves one group; true when that was the outermost. logic_error when none is open.
    bool leave();

    // Records a call for the outermost group to issue. logic_error when no group is open.
    void record(recorded_call call);
    std::size_t recorded() const noexcept { return calls_.size(); }
    // The recorded calls, in the order they were made; the book keeps none.
    std::vector<recorded_call> take_calls() noexcept { return std::exchange(calls_, {}); }
    // Keeps `owner` (what the recorded calls use: a binding's references to the buffers and
    // streams) until the outermost group ends. logic_error when no group is open.
    void keep(std::shared_ptr<void> owner);
    std::size_t kept() const noexcept { return owners_.size(); }

    // Has the outermost group settle `p` when it ends. logic_error when no group is open.
    void enroll(std::shared_ptr<pending_comm> p);
    std::size_t enrolled() const noexcept { return waiting_.size(); }
    // A communicator destroyed (`abort`: aborted) inside the group, released when the
    // outermost group ends, whether it issued its calls or not. logic_error when none is open.
    void release_at_end(comm_t handle, cuda::context_state_ptr primary, bool abort);

    // Records that a call inside the group was refused (the first reason is kept).
    void refuse(std::string why);
    bool refused() const noexcept { return !refusal_.empty(); }
    const std::string& refusal() const noexcept { return refusal_; }

    // What the end of the outermost group leaves to release through NCCL.
    struct release_list {
        std::vector<std::shared_ptr<pending_comm>> destroy;  // nobody holds them any more
        std::vector<std::shared_ptr<pending_comm>> abort;    // the group failed, or abort() asked
    };
    // The outermost group ended, successfully or not (`ended_ok`: NCCL made what it was
    // asked to make): every enrolled communicator is made or failed (a failed one keeps no
    // handle: the caller aborts it where NCCL gave it one), the book is emptied (calls not
    // taken, owners kept and the refusal too), and what needs an NCCL call is returned.
    release_list settle(bool ended_ok);

private:
    int depth_ = 0;
    std::vector<recorded_call> calls_;
    std::vector<std::shared_ptr<void>> owners_;
    std::vector<std::shared_ptr<pending_comm>> waiting_;
    release_list released_at_end_;
    std::string refusal_;
};

// The calling thread's book.
group_book& this_thread_groups() noexcept;

// body(), recording the reason when it throws inside a group (and rethrowing), so that the
// group fails at its end, issuing none of its calls. Every gpukit call that may stand in a
// group runs its checks through it.
template <class Body>
decltype(auto) refusing_in_group(Body&& body) {
    try {
        return body();
    } catch (const std::exception& e) {
        if (group_book& book = this_thread_groups(); book.open())
            book.refuse(e.what());
        throw;
    } catch (...) {
        if (group_book& book = this_thread_groups(); book.open())
            book.refuse("a call in the group failed with an error that carries no message");
        throw;
    }
}

}  // namespace gpukit::nccl::detail
