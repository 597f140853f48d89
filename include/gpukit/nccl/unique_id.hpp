// The unique id every rank of a new communicator is given: 128 opaque bytes made by one
// process (get_unique_id()) and sent to the others by any means (MPI, a file, a socket).
#pragma once

#include "gpukit/nccl/api.hpp"

#include <array>
#include <cstddef>
#include <span>

namespace gpukit::nccl {

// An NCCL unique id, as a value: copy it, compare it, and send its bytes() to the other ranks,
// which rebuild it with from_bytes(). Made only by get_unique_id() and from_bytes().
class unique_id {
public:
    // The id's bytes: exactly unique_id_bytes (128) of them.
    using bytes_type = std::array<std::byte, unique_id_bytes>;

    // The id held in `bytes`; argument_error unless there are exactly unique_id_bytes.
    static unique_id from_bytes(std::span<const std::byte> bytes);

    // The id's 128 bytes, to send to the other ranks.
    const bytes_type& bytes() const noexcept { return bytes_; }
    // The same bytes as NCCL's ncclUniqueId, for passing to NCCL.
    raw_unique_id raw() const noexcept;

    // Equal when the bytes are: the ids name the same communicator.
    friend bool operator==(const unique_id&, const unique_id&) = default;

private:
    unique_id() = default;
    bytes_type bytes_{};

    friend unique_id get_unique_id();
};

// A new id from ncclGetUniqueId. It holds the address of a bootstrap socket this process
// opens, so rank 0 of the communicator usually makes it.
unique_id get_unique_id();

}  // namespace gpukit::nccl
