// Whether the ranks agree on a collective before NCCL runs it.
//
// NCCL trusts every rank to make the same collective with the same count, type, operator and
// root; when they disagree it hangs, or reads and writes past a buffer, with no word of why.
// A communicator whose check_agreement is on (every rank must turn it on) first gathers each
// rank's description of the call through NCCL itself (an all-gather of a few integers, which
// matches on every rank whatever the call) and raises, on every rank alike, an argument_error
// naming what each rank asked for when they differ. It costs an all-gather and a wait per
// call: a tool for finding a bug, not for production runs. A call that one rank's own checks
// refuse (a wrong argument) takes part too, so that the others raise instead of waiting. Inside a group (which launches
// nothing before it ends) there is nothing to wait for, so the check does not run there;
// send and recv, which involve two ranks only, are not checked.
#pragma once

#include "gpukit/cuda/stream.hpp"
#include "gpukit/nccl/call_checks.hpp"
#include "gpukit/nccl/types.hpp"

#include <cstdint>
#include <span>
#include <string>

namespace gpukit::nccl {

class communicator;

// What a rank asks of a collective, as plain integers so that it travels as NCCL's int64.
struct call_signature {
    std::int64_t what = 0;   // collective
    std::int64_t count = 0;  // NCCL's count
    std::int64_t type = 0;   // data_type
    std::int64_t op = -1;    // reduce_op, -1 for a call that does not reduce
    std::int64_t root = -1;  // -1 for a call without a root

    // Equal when all five fields are: the ranks agree.
    friend bool operator==(const call_signature&, const call_signature&) = default;
};

// A collective's signature; op and root are left at -1 when it has none.
call_signature signature_of(collective what, std::size_t count, data_type type, int op = -1, int root = -1);
// The signature of a call this rank's own checks refused (count -1).
call_signature refused_signature(collective what);

// "all_reduce of 1000 float32, op sum" (what a message shows of one rank's call).
std::string describe(const call_signature& call);

// argument_error naming rank 0's call and those of the ranks that differ from it, when any
// does; `call` names the collective this rank made.
void require_agreement(const char* call, std::span<const call_signature> per_rank);

// Gathers `mine` from every rank of `comm` on `stream`, waits for it and calls
// require_agreement(). Every rank must call it for the same collective call.
void check_agreement(const communicator& comm, const call_signature& mine, cuda::stream_view stream);

// For a rank whose own checks refused a call while the others may be checking theirs: takes
// part in the gathering with refused_signature(), so that they raise instead of waiting for
// it. Never throws (the rank raises its own error). The bindings call it when their checks
// refuse a call; a C++ caller whose check_call() refuses one calls it likewise.
void announce_refusal(const communicator& comm, collective what) noexcept;

}  // namespace gpukit::nccl
