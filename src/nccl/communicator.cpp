#include "gpukit/nccl/communicator.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/nccl/agreement.hpp"
#include "gpukit/nccl/detail/group_book.hpp"
#include "gpukit/nccl/error.hpp"

#include <algorithm>
#include <mutex>
#include <string>
#include <utility>

namespace gpukit::nccl {
namespace {

cuda::context_state_ptr primary_of(const cuda::device& dev) { return cuda::context::retain_primary(dev).state(); }

void check_ranks(int nranks, int rank) {
    if (nranks < 1)
        throw argument_error("an NCCL communicator needs at least one rank, got nranks=" + std::to_string(nranks));
    if (rank < 0 || rank >= nranks)
        throw argument_error("rank " + std::to_string(rank) + " is outside [0, " + std::to_string(nranks) +
                             ") for a communicator of " + std::to_string(nranks) + " ranks");
}

// Keeps, for the life of the process, the place a split made inside a group gpukit did not
// open (another library's ncclGroupStart) tells NCCL to write the new handle to when that
// group ends: freeing it would let NCCL write into freed memory.
void keep_for_a_foreign_group(std::shared_ptr<detail::pending_comm> slot) {
    static std::mutex lock;
    static auto* kept = new std::vector<std::shared_ptr<detail::pending_comm>>();  // never freed, on purpose
    std::lock_guard<std::mutex> hold(lock);
    kept->push_back(std::move(slot));
}

// Destroys or aborts `handle` from a destructor: never throws, reports a failure.
void release_quietly(comm_t handle, const cuda::context_state_ptr& primary) noexcept {
    try {
        cuda::scoped_context in(*primary, std::nothrow);
        if (const result code = api().ncclCommDestroy(handle); code != result::success)
            cleanup_warning("ncclCommDestroy failed while releasing an NCCL communicator: " + result_name(code));
    } catch (...) {
    }
}

// Makes an NCCL call, its arguments bound by `call`, in `primary`: now, or, inside a group,
// when the outermost group ends (group.hpp), recorded until then. Throws nccl_error when
// NCCL refuses a call made now; `comm` is the communicator whose last error NCCL keeps.
template <class Call>
void call_or_record(const char* routine, comm_t comm, const cuda::context_state_ptr& primary, Call call) {
    (void)api();  // NCCL must load, for a recorded call too: the refusal then names this call
    if (detail::group_book& book = detail::this_thread_groups(); book.open()) {
        book.record({routine, comm, [primary, call = std::move(call)] {
                         cuda::scoped_context in(*primary);
                         return call();
                     }});
        return;
    }
    cuda::scoped_context in(*primary);
    check(call(), routine, comm);
}

}  // namespace

communicator::communicator(comm_t handle, cuda::context_state_ptr primary)
    : handle_(handle), device_(primary->device_ordinal), primary_(std::move(primary)) {
    // Owned from here on: if a query fails, the destructor gives the handle back.
}

communicator communicator::create(const unique_id& id, int nranks, int rank, const cuda::device& dev) {
    return detail::refusing_in_group([&] {
        check_ranks(nranks, rank);
        auto slot = std::make_shared<detail::pending_comm>();
        slot->primary = primary_of(dev);
        call_or_record("ncclCommInitRank", nullptr, slot->primary, [slot, nranks, raw = id.raw(), rank] {
            return api().ncclCommInitRank(&slot->handle, nranks, raw, rank);
        });
        communicator made = from_slot(std::move(slot));
        made.rank_ = rank;  // what NCCL's ncclCommUserRank and ncclCommCount would say
        made.size_ = nranks;
        return made;
    });
}

communicator communicator::create(const unique_id& id, int nranks, int rank) {
    return detail::refusing_in_group([&] {
        check_ranks(nranks, rank);  // before looking for a context, so the error says what was wrong
        const cuda::context current = cuda::context::current_or_throw(
            "making an NCCL communicator without naming its device (it takes the current context's)");
        return create(id, nranks, rank, current.get_device());
    });
}

std::vector<communicator> communicator::init_all(const std::vector<cuda::device>& devices) {
    return detail::refusing_in_group([&] {
        if (devices.empty())
            throw argument_error("init_all needs at least one device");
        std::vector<int> ordinals;
        std::vector<std::shared_ptr<detail::pending_comm>> slots;
        for (const auto& dev : devices) {
            if (std::find(ordinals.begin(), ordinals.end(), dev.ordinal()) != ordinals.end())
                throw argument_error("init_all: device " + std::to_string(dev.ordinal()) +
                                     " is named twice; NCCL runs one rank per device");
            ordinals.push_back(dev.ordinal());
            slots.push_back(std::make_shared<detail::pending_comm>());
            slots.back()->primary = primary_of(dev);
        }
        // NCCL switches devices while it sets the ranks up and switches back to the device it
        // found current: with the first device's primary context pushed, the pop after the
        // call restores whatever context the caller had.
        call_or_record("ncclCommInitAll", nullptr, slots.front()->primary, [slots, ordinals] {
            std::vector<comm_t> handles(slots.size(), nullptr);
            const result code =
                api().ncclCommInitAll(handles.data(), static_cast<int>(handles.size()), ordinals.data());
            for (std::size_t k = 0; k < slots.size(); ++k)
                slots[k]->handle = handles[k];
            return code;
        });
        std::vector<communicator> made;
        made.reserve(slots.size());
        for (std::size_t k = 0; k < slots.size(); ++k) {
            communicator& comm = made.emplace_back(from_slot(slots[k]));
            comm.rank_ = static_cast<int>(k);  // ncclCommInitAll's ranks: k on devices[k]
            comm.size_ = static_cast<int>(slots.size());
        }
        return made;
    });
}

communicator communicator::from_slot(std::shared_ptr<detail::pending_comm> slot) {
    if (detail::group_book& book = detail::this_thread_groups(); book.open()) {
        book.enroll(slot);
        communicator made(nullptr, slot->primary);
        made.pending_ = std::move(slot);
        return made;
    }
    return communicator(slot->handle, slot->primary);
}

void communicator::settle() const {
    if (pending_)
        take_made_handle();
    if (!handle_)
        throw logic_error("this NCCL communicator has been destroyed or aborted; it can no longer be used");
    if (rank_ < 0) {  // a split's: NCCL works them out
        check(api().ncclCommUserRank(handle_, &rank_), "ncclCommUserRank", handle_);
        check(api().ncclCommCount(handle_, &size_), "ncclCommCount", handle_);
    }
}

void communicator::take_made_handle() const {
    switch (pending_->state) {
    case detail::pending_comm::phase::waiting:
        throw logic_error(
            "this NCCL communicator is being made by a group that has not ended; use it after the "
            "group (the with-block) ends, where NCCL makes it");
    case detail::pending_comm::phase::failed:
        throw logic_error(
            "the NCCL group that was making this communicator failed, so it was never made (or "
            "was aborted after NCCL's failure); it can no longer be used");
    case detail::pending_comm::phase::made:
        break;
    }
    if (!pending_->handle) {  // NCCL reported success but wrote no handle: treat it as failed
        pending_->state = detail::pending_comm::phase::failed;
        throw logic_error("the NCCL group that was making this communicator ended without making it");
    }
    handle_ = std::exchange(pending_->handle, nullptr);
    pending_.reset();
}

communicator::communicator(communicator&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), rank_(other.rank_), size_(other.size_), device_(other.device_),
      primary_(std::move(other.primary_)), checks_agreement_(other.checks_agreement_),
      pending_(std::move(other.pending_)) {}

communicator& communicator::operator=(communicator&& other) noexcept {
    if (this != &other) {
        release_now();
        handle_ = std::exchange(other.handle_, nullptr);
        rank_ = other.rank_;
        size_ = other.size_;
        device_ = other.device_;
        primary_ = std::move(other.primary_);
        checks_agreement_ = other.checks_agreement_;
        pending_ = std::move(other.pending_);
    }
    return *this;
}

communicator::~communicator() { release_now(); }

void communicator::release_now() noexcept {
    // A communicator its group has not made yet is the group's to destroy when it ends; one
    // whose group failed was never made, or was aborted there.
    if (pending_ && pending_->state == detail::pending_comm::phase::made)
        handle_ = std::exchange(pending_->handle, nullptr);
    pending_.reset();
    if (!handle_)
        return;
    const comm_t handle = std::exchange(handle_, nullptr);
    if (detail::group_book& book = detail::this_thread_groups(); book.open()) {
        try {
            book.release_at_end(handle, primary_, false);  // after the group's calls, which may use it
            return;
        } catch (...) {
        }
    }
    release_quietly(handle, primary_);
}

void communicator::end_with(result (*nccl_api::*end)(comm_t), const char* routine) {
    if (pending_) {
        if (pending_->state == detail::pending_comm::phase::failed)
            return;  // the group failed: it never made it, or aborted it
        if (pending_->state == detail::pending_comm::phase::waiting)
            throw logic_error(
                "an NCCL communicator cannot be destroyed or aborted before the group that makes it "
                "ends");
        take_made_handle();
    }
    if (!handle_)
        return;
    // NCCL frees the communicator whatever it returns: never hand the handle to it again.
    const comm_t handle = std::exchange(handle_, nullptr);
    if (detail::group_book& book = detail::this_thread_groups(); book.open()) {
        book.release_at_end(handle, primary_, end == &nccl_api::ncclCommAbort);  // after the group's calls
        return;
    }
    cuda::scoped_context in(*primary_);
    check((api().*end)(handle), routine);
}

void communicator::destroy() { end_with(&nccl_api::ncclCommDestroy, "ncclCommDestroy"); }

void communicator::abort() { end_with(&nccl_api::ncclCommAbort, "ncclCommAbort"); }

bool communicator::is_destroyed() const noexcept {
    if (pending_)
        return pending_->state == detail::pending_comm::phase::failed;
    return handle_ == nullptr;
}

bool communicator::is_pending() const noexcept {
    return pending_ && pending_->state == detail::pending_comm::phase::waiting;
}

int communicator::rank() const {
    if (rank_ < 0)
        settle();
    return rank_;
}

int communicator::size() const {
    if (size_ < 0)
        settle();
    return size_;
}

comm_t communicator::handle() const {
    if (pending_ || !handle_)
        settle();
    return handle_;
}

void communicator::check_type(data_type type) {
    if (!loaded_nccl_supports(type)) {
        const int v = version();
        throw argument_error(std::string(name(type)) + " needs NCCL 2.24 or newer; the NCCL loaded (" +
                             nccl_library_path() + ") is " + std::to_string(v / 10000) + "." +
                             std::to_string(v / 100 % 100) + "." + std::to_string(v % 100));
    }
}

void communicator::check_op(data_type type, reduce_op op) {
    // NCCL 2.28 answers avg of float8 with ncclInvalidArgument and no word why.
    if (op == reduce_op::avg && (type == data_type::float8_e4m3 || type == data_type::float8_e5m2))
        throw argument_error("NCCL has no avg for " + std::string(name(type)) +
                             "; reduce with sum and divide by the number of ranks");
}

void communicator::agree(collective what, std::size_t count, data_type type, int op, int root,
                         cuda::stream_view stream) const {
    if (checks_agreement_ && !detail::this_thread_groups().open())
        check_agreement(*this, signature_of(what, count, type, op, root), stream);
}

void communicator::check_rank(int rank, const char* what) const {
    if (rank < 0 || rank >= size_)
        throw argument_error(std::string(what) + " " + std::to_string(rank) + " is outside [0, " +
                             std::to_string(size_) + ") for this communicator of " + std::to_string(size_) +
                             (size_ == 1 ? " rank" : " ranks"));
}

std::optional<communicator> communicator::split(int color, int key) const {
    return detail::refusing_in_group([&]() -> std::optional<communicator> {
        if (color < 0 && color != split_no_color)
            throw argument_error("split: color must be 0 or more, or split_no_color (" +
                                 std::to_string(split_no_color) + ") for a rank that joins no communicator; got " +
                                 std::to_string(color));
        const comm_t parent = handle();
        // Where NCCL writes the new handle: at once outside a group; inside one, at the end of
        // the group that issues the call (even for split_no_color, which gets null).
        auto slot = std::make_shared<detail::pending_comm>();
        slot->primary = primary_;
        call_or_record("ncclCommSplit", parent, primary_, [parent, color, key, slot] {
            return api().ncclCommSplit(parent, color, key, &slot->handle, nullptr);
        });
        if (detail::this_thread_groups().open()) {
            communicator made = from_slot(std::move(slot));  // pending until the group ends
            if (color == split_no_color)
                return std::nullopt;
            return made;
        }
        if (color == split_no_color)
            return std::nullopt;
        if (!slot->handle) {
            // Outside any group NCCL splits at once; so it deferred this split to a group that
            // gpukit did not open, which will write the handle later.
            keep_for_a_foreign_group(std::move(slot));
            throw logic_error(
                "split: NCCL deferred the split to an NCCL group that gpukit did not open (another "
                "library's ncclGroupStart on this thread); group gpukit's calls with gpukit's group");
        }
        communicator made(slot->handle, primary_);
        made.settle();
        return made;
    });
}

void communicator::all_reduce(const void* send, void* recv, std::size_t count, data_type type, reduce_op op,
                              cuda::stream_view stream) const {
    detail::refusing_in_group([&] {
        const comm_t h = handle();
        agree(collective::all_reduce, count, type, static_cast<int>(op), -1, stream);
        check_type(type);
        check_op(type, op);
        const CUstream s = stream.handle();
        call_or_record("ncclAllReduce", h, primary_, [=] {
            return api().ncclAllReduce(send, recv, count, static_cast<int>(type), static_cast<int>(op), h, s);
        });
    });
}

void communicator::reduce(const void* send, void* recv, std::size_t count, data_type type, reduce_op op, int root,
                          cuda::stream_view stream) const {
    detail::refusing_in_group([&] {
        const comm_t h = handle();
        agree(collective::reduce, count, type, static_cast<int>(op), root, stream);
        check_type(type);
        check_op(type, op);
        check_rank(root, "root");
        const CUstream s = stream.handle();
        call_or_record("ncclReduce", h, primary_, [=] {
            return api().ncclReduce(send, recv, count, static_cast<int>(type), static_cast<int>(op), root, h, s);
        });
    });
}

void communicator::broadcast(const void* send, void* recv, std::size_t count, data_type type, int root,
                             cuda::stream_view stream) const {
    detail::refusing_in_group([&] {
        const comm_t h = handle();
        agree(collective::broadcast, count, type, -1, root, stream);
        check_type(type);
        check_rank(root, "root");
        const CUstream s = stream.handle();
        call_or_record("ncclBroadcast", h, primary_,
                       [=] { return api().ncclBroadcast(send, recv, count, static_cast<int>(type), root, h, s); });
    });
}

void communicator::all_gather(const void* send, void* recv, std::size_t send_count, data_type type,
                              cuda::stream_view stream) const {
    detail::refusing_in_group([&] {
        const comm_t h = handle();
        agree(collective::all_gather, send_count, type, -1, -1, stream);
        check_type(type);
        const CUstream s = stream.handle();
        call_or_record("ncclAllGather", h, primary_,
                       [=] { return api().ncclAllGather(send, recv, send_count, static_cast<int>(type), h, s); });
    });
}

void communicator::reduce_scatter(const void* send, void* recv, std::size_t recv_count, data_type type, reduce_op op,
                                  cuda::stream_view stream) const {
    detail::refusing_in_group([&] {
        const comm_t h = handle();
        agree(collective::reduce_scatter, recv_count, type, static_cast<int>(op), -1, stream);
        check_type(type);
        check_op(type, op);
        const CUstream s = stream.handle();
        call_or_record("ncclReduceScatter", h, primary_, [=] {
            return api().ncclReduceScatter(send, recv, recv_count, static_cast<int>(type), static_cast<int>(op), h, s);
        });
    });
}

void communicator::send(const void* buffer, std::size_t count, data_type type, int peer,
                        cuda::stream_view stream) const {
    detail::refusing_in_group([&] {
        const comm_t h = handle();
        check_type(type);
        check_rank(peer, "peer");
        const CUstream s = stream.handle();
        call_or_record("ncclSend", h, primary_,
                       [=] { return api().ncclSend(buffer, count, static_cast<int>(type), peer, h, s); });
    });
}

void communicator::recv(void* buffer, std::size_t count, data_type type, int peer, cuda::stream_view stream) const {
    detail::refusing_in_group([&] {
        const comm_t h = handle();
        check_type(type);
        check_rank(peer, "peer");
        const CUstream s = stream.handle();
        call_or_record("ncclRecv", h, primary_,
                       [=] { return api().ncclRecv(buffer, count, static_cast<int>(type), peer, h, s); });
    });
}

}  // namespace gpukit::nccl
