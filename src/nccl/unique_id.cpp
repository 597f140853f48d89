#include "gpukit/nccl/unique_id.hpp"

#include "gpukit/nccl/error.hpp"

#include <cstring>
#include <string>

namespace gpukit::nccl {

unique_id unique_id::from_bytes(std::span<const std::byte> bytes) {
    if (bytes.size() != unique_id_bytes)
        throw argument_error("an NCCL unique id is " + std::to_string(unique_id_bytes) + " bytes, got " +
                             std::to_string(bytes.size()));
    unique_id id;
    std::memcpy(id.bytes_.data(), bytes.data(), unique_id_bytes);
    return id;
}

raw_unique_id unique_id::raw() const noexcept {
    raw_unique_id raw;
    std::memcpy(raw.internal, bytes_.data(), unique_id_bytes);
    return raw;
}

unique_id get_unique_id() {
    raw_unique_id raw;
    check(api().ncclGetUniqueId(&raw), "ncclGetUniqueId");
    unique_id id;
    std::memcpy(id.bytes_.data(), raw.internal, unique_id_bytes);
    return id;
}

}  // namespace gpukit::nccl
