// Byte sizes the memory tests write their requests in.
#pragma once

#include <cstddef>

namespace gpukit::test {

inline constexpr std::size_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

}  // namespace gpukit::test
