// What a collective's arguments must satisfy, checked before NCCL sees them: the buffers'
// element types agree, their sizes fit the collective and the number of ranks, and they and
// the stream belong to the communicator's device and context. The Python layer describes
// each buffer it is given (an array knows its extent; a bare pointer does not) and calls
// check_call(), so every caller gets the same rules and messages.
#pragma once

#include "gpukit/cuda/stream.hpp"
#include "gpukit/nccl/communicator.hpp"
#include "gpukit/nccl/types.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>

namespace gpukit::nccl {

// A buffer as the caller gave it.
struct buffer_arg {
    std::uintptr_t address = 0;           // the device address (send and recv at one address: in place)
    data_type type = data_type::float32;  // the type of its elements
    std::optional<std::size_t> elements;  // nullopt for a bare pointer, whose extent is unknown
    // The buffer's name in messages: "sendbuf", "recvbuf".
    const char* name = "buffer";
    // The context the memory belongs to when its owner says so (gpukit's own allocations),
    // which spares a driver query (about a microsecond) on every call; null: ask the driver.
    CUcontext context = nullptr;
};

// The arguments NCCL gets.
struct checked_call {
    // NCCL's sendbuff; for an in-place all_gather, this rank's part of the one buffer.
    const void* send = nullptr;
    // NCCL's recvbuff; for an in-place reduce_scatter, this rank's part of the one buffer.
    void* recv = nullptr;
    std::size_t count = 0;  // NCCL's count (see communicator)
    // The elements' type, the same for both buffers.
    data_type type = data_type::float32;
};

// Works out NCCL's arguments for `what` on rank `rank` of `ranks` from the buffers, checking
// that they fit. send and recv at one address mean in place (send and recv, having one
// buffer, always pass it twice).
//   - The types must agree (type_error).
//   - With `count`, every buffer that knows its extent must hold at least what the call
//     uses; without it, the count comes from the buffers, whose extents must then fit the
//     collective exactly: all_gather's recvbuf holds `ranks` times sendbuf, reduce_scatter's
//     sendbuf `ranks` times recvbuf, and an in-place all_gather or reduce_scatter buffer
//     holds `ranks` counts; other collectives' buffers are equal. At least one buffer must
//     know its extent when `count` is not given.
// Throws argument_error (or type_error) saying what was wrong and what was expected.
checked_call plan_call(collective what, int ranks, int rank, const buffer_arg& send, const buffer_arg& recv,
                       std::optional<std::size_t> count);

// plan_call() on `comm`, and unless the call moves nothing: each buffer must be device
// memory of the communicator's device in its primary context (or of no context), and
// `stream` a stream of that context (or a default stream); argument_error otherwise.
// `stream_context`: the stream's context when its owner says so (null: ask the driver).
// Inside a group, a refusal also makes the group fail at its end (group.hpp).
checked_call check_call(collective what, const communicator& comm, const buffer_arg& send, const buffer_arg& recv,
                        std::optional<std::size_t> count, cuda::stream_view stream, CUcontext stream_context = nullptr);

}  // namespace gpukit::nccl
