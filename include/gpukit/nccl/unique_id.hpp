// The unique id every rank of a new communicator is given: 128 opaque bytes made by one
// process (get_unique_id()) and sent to the others by any means (MPI, a file, a socket).
#pragma once

#include "gpukit/nccl/api.hpp"

#include <array>
#include <cstddef>
#include <span>

namespace gpukit::nccl {

class unique_id {
public:
    using bytes_type = std::array<std::byte, unique_id_bytes>;

    // The id held in `bytes`; argument_error unless there are exactly unique_id_bytes.
    static unique_id from_bytes(std::span<const std::byte> bytes);

    const bytes_type& bytes() const noexcept { return bytes_; }
    raw_unique_id raw() const noexcept;

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
