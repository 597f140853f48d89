#include "gpukit/nccl/detail/group_book.hpp"

#include "gpukit/core/error.hpp"

#include <utility>

namespace gpukit::nccl::detail {
namespace {

void require_open(int depth, const char* what) {
    if (depth == 0)
        throw logic_error(std::string(what) + " only while an NCCL group is open on this thread");
}

}  // namespace

bool group_book::leave() {
    if (depth_ == 0)
        throw logic_error("no NCCL group is open on this thread");
    return --depth_ == 0;
}

void group_book::record(recorded_call call) {
    require_open(depth_, "a call can be recorded");
    calls_.push_back(std::move(call));
}

void group_book::keep(std::shared_ptr<void> owner) {
    require_open(depth_, "a group can keep what its calls use");
    owners_.push_back(std::move(owner));
}

void group_book::enroll(std::shared_ptr<pending_comm> p) {
    require_open(depth_, "a communicator can wait for a group");
    waiting_.push_back(std::move(p));
}

void group_book::release_at_end(comm_t handle, cuda::context_state_ptr primary, bool abort) {
    require_open(depth_, "a communicator can be released at the end of a group");
    auto released = std::make_shared<pending_comm>();
    released->handle = handle;
    released->state = pending_comm::phase::made;
    released->primary = std::move(primary);
    (abort ? released_at_end_.abort : released_at_end_.destroy).push_back(std::move(released));
}

void group_book::refuse(std::string why) {
    if (refusal_.empty())
        refusal_ = why.empty() ? std::string("a call was refused") : std::move(why);
}

group_book::release_list group_book::settle(bool ended_ok) {
    // The calls first: they hold the communicators they make, which are counted below.
    calls_.clear();
    owners_.clear();
    refusal_.clear();
    release_list out = std::exchange(released_at_end_, {});
    std::vector<std::shared_ptr<pending_comm>> settled = std::exchange(waiting_, {});
    for (auto& p : settled) {
        if (!ended_ok) {
            p->state = pending_comm::phase::failed;
            if (p->handle)
                out.abort.push_back(p);  // the handle goes with the list; the owner sees `failed`
            continue;
        }
        p->state = pending_comm::phase::made;
        // Only `settled` holds it: its communicator object is gone, nobody can use it.
        if (p->handle && p.use_count() == 1)
            out.destroy.push_back(std::move(p));
    }
    return out;
}

group_book& this_thread_groups() noexcept {
    thread_local group_book book;
    return book;
}

}  // namespace gpukit::nccl::detail
