#include "gpukit/nccl/detail/group_book.hpp"

#include "gpukit/core/error.hpp"

#include <utility>

namespace gpukit::nccl::detail {

bool group_book::leave() {
    if (depth_ == 0)
        throw logic_error("no NCCL group is open on this thread");
    return --depth_ == 0;
}

void group_book::enroll(std::shared_ptr<pending_comm> p) {
    if (depth_ == 0)
        throw logic_error("a communicator can wait for a group only while one is open");
    waiting_.push_back(std::move(p));
}

void group_book::refuse(std::string why) {
    if (refusal_.empty())
        refusal_ = why.empty() ? std::string("a call was refused") : std::move(why);
}

group_book::release_list group_book::settle(bool ended_ok) {
    release_list out;
    std::vector<std::shared_ptr<pending_comm>> settled = std::exchange(waiting_, {});
    refusal_.clear();
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
