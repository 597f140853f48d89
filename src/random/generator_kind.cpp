#include "gpukit/random/generator_kind.hpp"

namespace gpukit::random {

std::string_view name(generator_kind k) noexcept {
    switch (k) {
    case generator_kind::xorwow:
        return "XORWOW";
    case generator_kind::mrg32k3a:
        return "MRG32k3a";
    case generator_kind::sobol32:
        return "Sobol32";
    case generator_kind::scrambled_sobol32:
        return "ScrambledSobol32";
    case generator_kind::sobol64:
        return "Sobol64";
    case generator_kind::scrambled_sobol64:
        return "ScrambledSobol64";
    }
    return "?";
}

std::string_view state_type(generator_kind k) noexcept {
    switch (k) {
    case generator_kind::xorwow:
        return "curandStateXORWOW_t";
    case generator_kind::mrg32k3a:
        return "curandStateMRG32k3a_t";
    case generator_kind::sobol32:
        return "curandStateSobol32_t";
    case generator_kind::scrambled_sobol32:
        return "curandStateScrambledSobol32_t";
    case generator_kind::sobol64:
        return "curandStateSobol64_t";
    case generator_kind::scrambled_sobol64:
        return "curandStateScrambledSobol64_t";
    }
    return "?";
}

}  // namespace gpukit::random
