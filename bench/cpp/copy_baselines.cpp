#include "copy_baselines.hpp"

#include "gpukit/cuda/api.hpp"

#include <chrono>

namespace gpukit::bench {
namespace {

// Times `copy` (then a context synchronize, since device-to-device copies return early).
template <class Copy>
std::vector<double> rates(std::size_t bytes, int repeats, Copy copy) {
    copy();  // warm-up: first-touch page faults, driver-internal buffers
    GPUKIT_CU(cuCtxSynchronize);
    std::vector<double> out;
    for (int r = 0; r < repeats; ++r) {
        const auto start = std::chrono::steady_clock::now();
        copy();
        GPUKIT_CU(cuCtxSynchronize);
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
        out.push_back(static_cast<double>(bytes) / took.count());
    }
    return out;
}

}  // namespace

std::vector<double> raw_htod_rate(std::uint64_t device, std::uintptr_t host, std::size_t bytes, int repeats) {
    return rates(bytes, repeats, [&] {
        GPUKIT_CU(cuMemcpyHtoD, static_cast<CUdeviceptr>(device), reinterpret_cast<const void*>(host), bytes);
    });
}

std::vector<double> raw_dtoh_rate(std::uintptr_t host, std::uint64_t device, std::size_t bytes, int repeats) {
    return rates(bytes, repeats, [&] {
        GPUKIT_CU(cuMemcpyDtoH, reinterpret_cast<void*>(host), static_cast<CUdeviceptr>(device), bytes);
    });
}

std::vector<double> raw_dtod_rate(std::uint64_t dst, std::uint64_t src, std::size_t bytes, int repeats) {
    return rates(bytes, repeats, [&] {
        GPUKIT_CU(cuMemcpyDtoD, static_cast<CUdeviceptr>(dst), static_cast<CUdeviceptr>(src), bytes);
    });
}

}  // namespace gpukit::bench
