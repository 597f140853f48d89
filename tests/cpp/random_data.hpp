// Random test data with a fixed seed (the tests never check on zeros).
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace gpukit::testing {

inline std::vector<std::uint8_t> random_bytes(std::size_t n, unsigned seed) {
    std::mt19937 engine(seed);
    std::uniform_int_distribution<int> byte(0, 255);
    std::vector<std::uint8_t> out(n);
    for (auto& b : out)
        b = static_cast<std::uint8_t>(byte(engine));
    return out;
}

inline std::vector<float> random_floats(std::size_t n, unsigned seed, float low = -100.0f, float high = 100.0f) {
    std::mt19937 engine(seed);
    std::uniform_real_distribution<float> value(low, high);
    std::vector<float> out(n);
    for (float& v : out)
        v = value(engine);
    return out;
}

}  // namespace gpukit::testing
