// An NCCL communicator: one rank of a group of GPUs that run collectives together.
//
// A communicator lives in its device's primary context, as NCCL itself assumes (it switches
// devices with the CUDA runtime, which works in primary contexts): the communicator retains
// that context, makes it current around every NCCL call and restores what was current
// after. Buffers and streams must therefore belong to the primary context (or be memory
// of no context, such as cuMemCreate or stream-ordered allocations) of the communicator's
// device: CuPy's, PyTorch's, numba's and gpukit's in the primary context all do.
//
// The collectives take device pointers, an element count, a data type and a stream, as NCCL
// does, and enqueue the work on the stream (in a group, when the outermost group ends). Ranks must call collectives in
// the same order. check_call() (call_checks.hpp) validates buffers that know their extent before these run.
//
// Every call here may stand in a group (group.hpp), with NCCL's semantics: gpukit checks the
// call at once and records it, and the end of the outermost group issues it to NCCL, which
// launches the collectives and send/recv there; create(), init_all() and split() return at
// once with a communicator that is *pending* until then (is_pending()): NCCL makes it when
// the group ends. A pending communicator knows its rank and size when they were given
// (create(), init_all()), not after split(); anything else on it is a logic_error until the
// group ends, and a refused call inside a group makes the whole group fail, issuing none of
// its calls (group.hpp). In a group, destroy(), abort() and the destructor release the
// communicator after the group ends, as the group's calls may use it.
#pragma once

#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/device.hpp"
#include "gpukit/cuda/stream.hpp"
#include "gpukit/nccl/api.hpp"
#include "gpukit/nccl/types.hpp"
#include "gpukit/nccl/unique_id.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

namespace gpukit::nccl {

namespace detail {
struct pending_comm;
}

// One rank's NCCL communicator (ncclComm_t), owned: move-only, destroyed with the object
// unless destroy() or abort() came first. Made by create(), init_all() or split().
class communicator {
public:
    // Joins the communicator of `nranks` ranks that `id` names, as rank `rank`, on `dev`.
    // Blocks until every rank has joined; in a group, returns at once (pending), which is how
    // one thread makes several ranks. argument_error for a rank outside [0, nranks).
    static communicator create(const unique_id& id, int nranks, int rank, const cuda::device& dev);
    // The same on the device of the current context; logic_error when none is current.
    static communicator create(const unique_id& id, int nranks, int rank);
    // One communicator per device in `devices` (rank k on devices[k]), all in this process
    // (ncclCommInitAll; pending in a group). argument_error for an empty list or a device
    // named twice.
    static std::vector<communicator> init_all(const std::vector<cuda::device>& devices);

    // Takes over other's communicator (and its pending state in a group); other is left as
    // if destroyed (is_destroyed()).
    communicator(communicator&& other) noexcept;
    // Releases this communicator as the destructor does, then takes over other's; other is
    // left as if destroyed.
    communicator& operator=(communicator&& other) noexcept;
    // Destroys the communicator if destroy() or abort() has not (in a group, after the group
    // ends); never throws, and reports a failure through the cleanup-warning hook.
    ~communicator();

    // ncclCommDestroy: waits for the communicator's pending work, then frees it. Every later
    // call but destroy() and abort() (which then do nothing) is a logic_error. In a group,
    // the communicator is destroyed after the outermost group ends (cancelled or not), as
    // the group's calls may use it. logic_error for a pending communicator (its group has not
    // made it yet).
    void destroy();
    // ncclCommAbort: frees the communicator without waiting, stopping pending work (for a
    // rank that gives up after an error or a timeout elsewhere); in a group, after the
    // outermost group ends, as destroy(). logic_error when pending.
    void abort();
    // True after destroy() or abort(), and when the group that was making it failed or was
    // cancelled.
    bool is_destroyed() const noexcept;
    // True while the group that makes it has not ended.
    bool is_pending() const noexcept;

    // logic_error while pending after split(), whose rank and size NCCL works out at the end
    // of the group.
    int rank() const;
    // The number of ranks in the communicator; logic_error as rank(), and once destroyed.
    int size() const;
    // The CUDA device the communicator works on.
    cuda::device device() const { return cuda::device::get(device_); }
    // The ordinal of device(), without making a device object.
    int device_ordinal() const noexcept { return device_; }
    // The primary context the communicator works in.
    const cuda::context_state_ptr& context() const noexcept { return primary_; }
    // The NCCL handle; logic_error once destroyed or aborted, and while pending.
    comm_t handle() const;

    // Whether each collective first checks that every rank makes the same call (agreement.hpp:
    // an all-gather and a wait per call; off by default). Every rank must set it alike.
    bool checks_agreement() const noexcept { return checks_agreement_; }
    // Turns the agreement check of checks_agreement() on or off, for this rank's later calls.
    void set_checks_agreement(bool on) noexcept { checks_agreement_ = on; }

    // ncclCommSplit: every rank calls it; ranks with the same `color` form a new
    // communicator, ranked by `key` (ties: by rank here). A rank that passes split_no_color
    // joins none and gets nullopt. argument_error for another negative color. In a group
    // (one thread driving several ranks must split them in one) the communicator returned
    // is pending until the group ends.
    std::optional<communicator> split(int color, int key) const;

    // The collectives. `count` is NCCL's: the elements each rank sends (all_gather) or
    // receives (reduce_scatter), else of each buffer. Sending and receiving buffers may be
    // the same (in place; all_gather's sendbuff then is recvbuff + rank * count elements,
    // reduce_scatter's recvbuff is sendbuff + rank * count elements). argument_error for a
    // root or peer outside [0, size()), a type the loaded NCCL does not know, or avg of a
    // float8 type (NCCL has none).
    //
    // all_reduce: combines the `count` elements of every rank's send with `op`, element by
    // element, and writes the result to every rank's recv.
    void all_reduce(const void* send, void* recv, std::size_t count, data_type type, reduce_op op,
                    cuda::stream_view stream) const;
    // Combines the `count` elements of every rank's send with `op`, as all_reduce, but writes
    // the result only to the recv of rank `root` (other ranks' recv is not used).
    void reduce(const void* send, void* recv, std::size_t count, data_type type, reduce_op op, int root,
                cuda::stream_view stream) const;
    // Copies the `count` elements of rank `root`'s send to every rank's recv (other ranks'
    // send is not used).
    void broadcast(const void* send, void* recv, std::size_t count, data_type type, int root,
                   cuda::stream_view stream) const;
    // Gathers the `send_count` elements of every rank's send into every rank's recv, in rank
    // order: recv holds size() * send_count elements.
    void all_gather(const void* send, void* recv, std::size_t send_count, data_type type,
                    cuda::stream_view stream) const;
    // Combines every rank's send (size() * recv_count elements) with `op`, as all_reduce, and
    // gives each rank one part of the result: rank r's recv gets elements [r * recv_count,
    // (r + 1) * recv_count).
    void reduce_scatter(const void* send, void* recv, std::size_t recv_count, data_type type, reduce_op op,
                        cuda::stream_view stream) const;
    // Point to point: a send on one rank is matched by a recv on its peer. Between ranks
    // driven by one thread (init_all), and to this rank itself, put both in one group.
    void send(const void* buffer, std::size_t count, data_type type, int peer, cuda::stream_view stream) const;
    // Receives `count` elements into `buffer` from the matching send() of rank `peer`; the
    // two must agree on count and type.
    void recv(void* buffer, std::size_t count, data_type type, int peer, cuda::stream_view stream) const;

private:
    communicator(comm_t handle, cuda::context_state_ptr primary);
    // The communicator whose handle NCCL writes to `slot`: that handle outside a group; inside
    // one, a pending communicator that the group makes when it ends (the slot enrolled there).
    static communicator from_slot(std::shared_ptr<detail::pending_comm> slot);
    // Takes the handle of a communicator its group has made, and queries its rank and size
    // when unknown; logic_error while the group is open, when it failed, and once destroyed.
    void settle() const;
    // The handle of a communicator its group has made; logic_error while waiting or failed.
    void take_made_handle() const;
    // The destructor's release: destroys the handle quietly, leaving a pending one to its group.
    void release_now() noexcept;
    // With checks_agreement() and outside a group: check_agreement() for this call, before
    // any check of this rank's own (so a root only one rank gets wrong shows as a
    // disagreement rather than leaving the others waiting).
    void agree(collective what, std::size_t count, data_type type, int op, int root, cuda::stream_view stream) const;
    // argument_error when the loaded NCCL does not know `type` (float8 before 2.24).
    static void check_type(data_type type);
    // argument_error for a reduction NCCL does not have (avg of the float8 types).
    static void check_op(data_type type, reduce_op op);
    // argument_error unless 0 <= rank < size(); `what` names it ("root", "peer").
    void check_rank(int rank, const char* what) const;
    // destroy() and abort(): hands the handle to `end` (ncclCommDestroy or ncclCommAbort) once.
    void end_with(result (*nccl_api::*end)(comm_t), const char* routine);

    // Settled on first use after the group that made the communicator ended (settle()),
    // hence mutable: that changes nothing a caller can see but the time of the queries.
    mutable comm_t handle_ = nullptr;
    mutable int rank_ = -1;  // -1: unknown until the group that splits it ends
    mutable int size_ = -1;
    int device_ = 0;
    cuda::context_state_ptr primary_;
    bool checks_agreement_ = false;
    // Set while the communicator is made by a group; kept after a failed one (for messages).
    mutable std::shared_ptr<detail::pending_comm> pending_;
};

}  // namespace gpukit::nccl
