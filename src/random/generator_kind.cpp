#include "gpukit/random/generator_kind.hpp"

#include <cstddef>
#include <iterator>

namespace gpukit::random {

namespace {

struct kind_names {
    std::string_view name;
    std::string_view state_type;
};

// One row per generator_kind, in the enum's order.
constexpr kind_names names[] = {
    {"XORWOW", "curandStateXORWOW_t"},   {"MRG32k3a", "curandStateMRG32k3a_t"},
    {"Sobol32", "curandStateSobol32_t"}, {"ScrambledSobol32", "curandStateScrambledSobol32_t"},
    {"Sobol64", "curandStateSobol64_t"}, {"ScrambledSobol64", "curandStateScrambledSobol64_t"},
};

static_assert(std::size(names) == static_cast<std::size_t>(generator_kind::scrambled_sobol64) + 1,
              "a row for every generator_kind");

}  // namespace

std::string_view name(generator_kind k) noexcept { return names[static_cast<int>(k)].name; }

std::string_view state_type(generator_kind k) noexcept { return names[static_cast<int>(k)].state_type; }

}  // namespace gpukit::random
