#include "gpukit/cuda/constants.hpp"

#include <cuda.h>

#include <iterator>

namespace gpukit::cuda {
namespace {

constexpr named_constant table[] = {
#define GPUKIT_CONSTANT(group, name, identifier) {#group, name, static_cast<long long>(identifier)},
#include "gpukit/cuda/constants_table.inc"
#undef GPUKIT_CONSTANT
};

}  // namespace

std::span<const named_constant> all_constants() noexcept { return table; }

std::optional<long long> find_constant(std::string_view group, std::string_view name) noexcept {
    for (const named_constant& c : table)
        if (group == c.group && name == c.name)
            return c.value;
    return std::nullopt;
}

}  // namespace gpukit::cuda
