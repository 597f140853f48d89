// The C++ baselines of the copy benchmarks: the plain blocking driver copies, with nothing
// of gpukit in between. Each returns bytes per second, one value per repeat, measured in
// host wall-clock time after one warm-up copy. They need a current context; the addresses
// come from the caller, who owns the memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpukit::bench {

std::vector<double> raw_htod_rate(std::uint64_t device, std::uintptr_t host, std::size_t bytes, int repeats);
std::vector<double> raw_dtoh_rate(std::uintptr_t host, std::uint64_t device, std::size_t bytes, int repeats);
std::vector<double> raw_dtod_rate(std::uint64_t dst, std::uint64_t src, std::size_t bytes, int repeats);
// cuMemcpyPeer from `src` of context `src_context` to `dst` of `dst_context` (the handles as
// integers), waiting for both contexts after each copy.
std::vector<double> raw_peer_rate(std::uint64_t dst, std::uintptr_t dst_context, std::uint64_t src,
                                  std::uintptr_t src_context, std::size_t bytes, int repeats);

}  // namespace gpukit::bench
