#include "pool_bench.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/allocators.hpp"
#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/context.hpp"
#include "gpukit/memory/null_allocator.hpp"
#include "gpukit/memory/pool.hpp"

#include <chrono>
#include <latch>
#include <optional>
#include <thread>
#include <vector>

namespace gpukit::bench {
namespace {

void check_arguments(std::size_t bytes, int pairs, int repeats, int threads) {
    if (bytes == 0 || pairs <= 0 || repeats <= 0 || threads <= 0)
        throw logic_error("pool benchmark: bytes, pairs, repeats and threads must be positive");
}

// `per_thread` runs on each worker before the timed region (e.g. making a context current).
template <class Pool, class Setup>
std::vector<double> time_pairs(Pool& pool, std::size_t bytes, int pairs, int repeats, int threads, Setup per_thread) {
    {
        // Warm-up: one block per thread is enough for every timed allocation to hit.
        std::vector<typename Pool::allocation> blocks;
        for (int t = 0; t < threads; ++t)
            blocks.push_back(pool.allocate(bytes));
    }
    std::vector<double> seconds;
    for (int r = 0; r < repeats; ++r) {
        // The threads are created before the clock starts and wait at the latch, so thread
        // start-up is not timed.
        std::latch start(threads + 1);
        std::vector<std::thread> workers;
        for (int t = 0; t < threads; ++t)
            workers.emplace_back([&] {
                per_thread();
                start.arrive_and_wait();
                for (int i = 0; i < pairs; ++i)
                    pool.allocate(bytes).free();
            });
        const auto begin = std::chrono::steady_clock::now();
        start.arrive_and_wait();
        for (std::thread& worker : workers)
            worker.join();
        const auto end = std::chrono::steady_clock::now();
        seconds.push_back(std::chrono::duration<double>(end - begin).count() / (double(pairs) * threads));
    }
    return seconds;
}

}  // namespace

std::vector<double> pool_pair_seconds(std::size_t bytes, int pairs, int repeats, int threads) {
    check_arguments(bytes, pairs, repeats, threads);
    memory::memory_pool<memory::null_allocator> pool{memory::null_allocator{}};
    return time_pairs(pool, bytes, pairs, repeats, threads, [] {});
}

std::vector<double> device_pool_pair_seconds(std::size_t bytes, int pairs, int repeats, int threads) {
    check_arguments(bytes, pairs, repeats, threads);
    const cuda::context ctx = cuda::context::current_or_throw("device_pool_pair_seconds");
    memory::memory_pool<cuda::device_allocator> pool{cuda::device_allocator(ctx.state())};
    return time_pairs(pool, bytes, pairs, repeats, threads, [&] { GPUKIT_CU(cuCtxSetCurrent, ctx.handle()); });
}

std::vector<double> raw_alloc_pair_seconds(std::size_t bytes, int pairs, int repeats) {
    check_arguments(bytes, pairs, repeats, 1);
    const cuda::driver_api& driver = cuda::api();
    auto run = [&] {
        for (int i = 0; i < pairs; ++i) {
            CUdeviceptr p = 0;
            if (driver.cuMemAlloc(&p, bytes) != CUDA_SUCCESS || driver.cuMemFree(p) != CUDA_SUCCESS)
                throw runtime_error("raw_alloc_pair_seconds: cuMemAlloc/cuMemFree failed");
        }
    };
    run();  // warm-up
    std::vector<double> seconds;
    for (int r = 0; r < repeats; ++r) {
        const auto begin = std::chrono::steady_clock::now();
        run();
        seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count() / pairs);
    }
    return seconds;
}

std::vector<double> raw_async_alloc_pair_seconds(std::size_t bytes, int pairs, int repeats) {
    check_arguments(bytes, pairs, repeats, 1);
    const cuda::driver_api& driver = cuda::api();
    CUstream stream = nullptr;
    GPUKIT_CU(cuStreamCreateWithPriority, &stream, CU_STREAM_NON_BLOCKING, 0);
    auto run = [&] {
        for (int i = 0; i < pairs; ++i) {
            CUdeviceptr p = 0;
            if (driver.cuMemAllocAsync(&p, bytes, stream) != CUDA_SUCCESS ||
                driver.cuMemFreeAsync(p, stream) != CUDA_SUCCESS)
                throw runtime_error("raw_async_alloc_pair_seconds: cuMemAllocAsync/cuMemFreeAsync failed");
        }
        driver.cuStreamSynchronize(stream);
    };
    run();  // warm-up: the driver's pool now holds the block
    std::vector<double> seconds;
    for (int r = 0; r < repeats; ++r) {
        const auto begin = std::chrono::steady_clock::now();
        run();
        seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count() / pairs);
    }
    driver.cuStreamDestroy(stream);
    return seconds;
}

}  // namespace gpukit::bench
