#include "gpukit/nccl/agreement.hpp"

#include "gpukit/cuda/copy.hpp"
#include "gpukit/cuda/memory.hpp"
#include "gpukit/nccl/communicator.hpp"
#include "gpukit/nccl/error.hpp"

#include <vector>

namespace gpukit::nccl {
namespace {

// The integers travel as NCCL's int64, so a signature must be nothing but them.
constexpr std::size_t signature_fields = sizeof(call_signature) / sizeof(std::int64_t);
static_assert(sizeof(call_signature) == signature_fields * sizeof(std::int64_t));

constexpr collective collectives[] = {collective::all_reduce, collective::reduce,         collective::broadcast,
                                      collective::all_gather, collective::reduce_scatter, collective::send,
                                      collective::recv};

// A name for a value another rank sent, which this rank cannot vouch for.
template <class Enum, std::size_t N, class Name>
std::string name_or_number(std::int64_t value, const Enum (&known)[N], Name name_of, const char* what) {
    for (Enum e : known)
        if (static_cast<std::int64_t>(e) == value)
            return std::string(name_of(e));
    return std::string(what) + (*what ? " #" : "#") + std::to_string(value);
}

constexpr data_type data_types[] = {data_type::int8,     data_type::uint8,       data_type::int32,
                                    data_type::uint32,   data_type::int64,       data_type::uint64,
                                    data_type::float16,  data_type::float32,     data_type::float64,
                                    data_type::bfloat16, data_type::float8_e4m3, data_type::float8_e5m2};
constexpr reduce_op reduce_ops[] = {reduce_op::sum, reduce_op::prod, reduce_op::max, reduce_op::min, reduce_op::avg};

}  // namespace

call_signature signature_of(collective what, std::size_t count, data_type type, int op, int root) {
    return {static_cast<std::int64_t>(what), static_cast<std::int64_t>(count), static_cast<std::int64_t>(type), op,
            root};
}

call_signature refused_signature(collective what) { return {static_cast<std::int64_t>(what), -1, -1, -1, -1}; }

std::string describe(const call_signature& call) {
    if (call.count < 0)
        return name_or_number(
                   call.what, collectives, [](collective c) { return name(c); }, "collective") +
               " that the rank's own checks refused (its error says why)";
    std::string text = name_or_number(
                           call.what, collectives, [](collective c) { return name(c); }, "collective") +
                       " of " + std::to_string(call.count) + " " +
                       name_or_number(
                           call.type, data_types, [](data_type t) { return name(t); }, "type");
    if (call.op >= 0)
        text += ", op " + name_or_number(
                              call.op, reduce_ops, [](reduce_op o) { return name(o); }, "");
    if (call.root >= 0)
        text += ", root " + std::to_string(call.root);
    return text;
}

void require_agreement(const char* call, std::span<const call_signature> per_rank) {
    std::string differ;
    std::size_t differing = 0;
    constexpr std::size_t shown = 4;  // ranks named in the message besides rank 0
    for (std::size_t r = 1; r < per_rank.size(); ++r) {
        if (per_rank[r] == per_rank[0])
            continue;
        if (++differing <= shown)
            differ += "; rank " + std::to_string(r) + ": " + describe(per_rank[r]);
    }
    if (differing == 0)
        return;
    if (differing > shown)
        differ += "; and " + std::to_string(differing - shown) + " more ranks that differ from rank 0";
    throw argument_error(std::string(call) +
                         ": the ranks disagree on the call, which NCCL needs to be the same on every rank (the "
                         "same collective, count, dtype, op and root); nothing was run: rank 0: " +
                         describe(per_rank[0]) + differ);
}

void check_agreement(const communicator& comm, const call_signature& mine, cuda::stream_view stream) {
    const comm_t handle = comm.handle();
    const auto ranks = static_cast<std::size_t>(comm.size());
    cuda::scoped_context in(*comm.context());
    // Every rank's signature, then this rank's own to send.
    cuda::device_allocation memory = cuda::device_allocation::allocate((ranks + 1) * sizeof(call_signature));
    const CUdeviceptr gathered = memory.get();
    const CUdeviceptr own = gathered + ranks * sizeof(call_signature);
    // From pageable memory the copy is staged before the call returns, so `mine` may go.
    cuda::memcpy_htod_async(own, &mine, sizeof(call_signature), stream);
    check(api().ncclAllGather(reinterpret_cast<const void*>(own), reinterpret_cast<void*>(gathered), signature_fields,
                              static_cast<int>(data_type::int64), handle, stream.handle()),
          "ncclAllGather", handle);
    std::vector<call_signature> per_rank(ranks);
    cuda::memcpy_dtoh_async(per_rank.data(), gathered, ranks * sizeof(call_signature), stream);
    stream.synchronize();
    require_agreement(name(static_cast<collective>(mine.what)), per_rank);
}

void announce_refusal(const communicator& comm, collective what) noexcept {
    try {
        check_agreement(comm, refused_signature(what), {});
    } catch (...) {  // the other ranks learn of it; this rank raises its own error
    }
}

}  // namespace gpukit::nccl
