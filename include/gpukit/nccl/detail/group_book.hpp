// What gpukit knows of the NCCL groups open on the calling thread: how deep they nest, the
// communicators they are making, and the first call refused inside them.
//
// NCCL defers the work of every call made between ncclGroupStart and the outermost
// ncclGroupEnd, making communicators included: ncclCommInitRank returns a handle that is not
// ready yet, ncclCommSplit writes the new handle only when the group ends. NCCL offers no
// call that says whether a group is open (its depth is a thread-local of its own), so gpukit
// counts the groups it opens itself (group.hpp), per thread as NCCL does, and settles the
// communicators when the outermost one ends. And as NCCL fails a whole group whose calls it
// refused, gpukit fails the group whose calls its own checks refused (refusing_in_group()).
// Internal: group.cpp and communicator.cpp share it; the tests drive it without NCCL.
#pragma once

#include "gpukit/cuda/context.hpp"
#include "gpukit/nccl/api.hpp"

#include <memory>
#include <string>
#include <vector>

namespace gpukit::nccl::detail {

// A communicator a group is making, shared by its communicator object and the group.
struct pending_comm {
    enum class phase { waiting, made, failed };
    // Given by ncclCommInitRank at once; ncclCommSplit writes it when the group ends (so it
    // must stay put until then, which is why the group shares the object).
    comm_t handle = nullptr;
    phase state = phase::waiting;
    // The primary context NCCL calls on the handle need, should the group have to release it.
    cuda::context_state_ptr primary;
};

// One thread's groups.
class group_book {
public:
    int depth() const noexcept { return depth_; }
    bool open() const noexcept { return depth_ > 0; }
    void enter() noexcept { ++depth_; }
    // Leaves one group; true when that was the outermost. logic_error when none is open.
    bool leave();

    // Has the outermost group settle `p` when it ends. logic_error when no group is open.
    void enroll(std::shared_ptr<pending_comm> p);
    std::size_t enrolled() const noexcept { return waiting_.size(); }

    // Records that a call inside the group was refused (the first reason is kept).
    void refuse(std::string why);
    bool refused() const noexcept { return !refusal_.empty(); }
    const std::string& refusal() const noexcept { return refusal_; }

    // What the end of the outermost group leaves to release through NCCL.
    struct release_list {
        std::vector<std::shared_ptr<pending_comm>> destroy;  // made, but nobody holds them any more
        std::vector<std::shared_ptr<pending_comm>> abort;    // the group failed: NCCL's way out
    };
    // The outermost group ended, successfully or not: every enrolled communicator is made or
    // failed (a failed one keeps no handle: the caller aborts it), the book is emptied (the
    // refusal too), and what needs an NCCL call is returned.
    release_list settle(bool ended_ok);

private:
    int depth_ = 0;
    std::vector<std::shared_ptr<pending_comm>> waiting_;
    std::string refusal_;
};

// The calling thread's book.
group_book& this_thread_groups() noexcept;

// body(), recording the reason when it throws inside a group (and rethrowing), so that the
// group fails at its end as NCCL fails a group whose calls it refused. Every gpukit call
// that may stand in a group runs its checks through it.
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
            book.refuse("a call raised an exception that is no std::exception");
        throw;
    }
}

}  // namespace gpukit::nccl::detail
