#include "copy_baselines.hpp"

#include "gpukit/cuda/api.hpp"

#include <chrono>

namespace gpukit::bench {
namespace {

void synchronize_current() { GPUKIT_CU(cuCtxSynchronize); }

// Times `copy`, then `wait` (device-to-device copies return early).
template <class Copy, class Wait = void (*)()>
std::vector<double> rates(std::size_t bytes, int repeats, Copy copy, Wait wait = synchronize_current) {
    copy();  // warm-up: first-touch page faults, driver-internal buffers
    wait();
    std::vector<double> out;
    for (int r = 0; r < repeats; ++r) {
        const auto start = std::chrono::steady_clock::now();
        copy();
        wait();
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
    return rates(bytes, repeats,
                 [&] { GPUKIT_CU(cuMemcpyDtoD, static_cast<CUdeviceptr>(dst), static_cast<CUdeviceptr>(src), bytes); });
}

std::vector<double> raw_peer_rate(std::uint64_t dst, std::uintptr_t dst_context, std::uint64_t src,
                                  std::uintptr_t src_context, std::size_t bytes, int repeats) {
    const auto to = reinterpret_cast<CUcontext>(dst_context), from = reinterpret_cast<CUcontext>(src_context);
    const auto wait_both = [&] {
        for (CUcontext c : {from, to}) {
            GPUKIT_CU(cuCtxPushCurrent, c);
            GPUKIT_CU(cuCtxSynchronize);
            GPUKIT_CU(cuCtxPopCurrent, &c);
        }
    };
    return rates(
        bytes, repeats,
        [&] { GPUKIT_CU(cuMemcpyPeer, static_cast<CUdeviceptr>(dst), to, static_cast<CUdeviceptr>(src), from, bytes); },
        wait_both);
}

}  // namespace gpukit::bench
