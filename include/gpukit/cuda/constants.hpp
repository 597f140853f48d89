// The named CUDA constants of the seed (device_attribute, ctx_flags, ...), generated from
// cuda.h by tools/gen_cuda_constants.py at build time.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace gpukit::cuda {

// One named CUDA constant: the seed's class it belongs to, its name there and its value.
struct named_constant {
    const char* group;  // the seed's class name: "device_attribute"
    const char* name;   // the member without the C prefix: "MAX_THREADS_PER_BLOCK"
    long long value;    // the value in cuda.h (CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK's)
};

// Every constant, grouped by class, in header order.
std::span<const named_constant> all_constants() noexcept;

// The value of group.name, if the headers define it.
std::optional<long long> find_constant(std::string_view group, std::string_view name) noexcept;

}  // namespace gpukit::cuda
