#include "pool_bench.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/memory/null_allocator.hpp"
#include "gpukit/memory/pool.hpp"

#include <chrono>
#include <latch>
#include <thread>
#include <vector>

namespace gpukit::bench {

std::vector<double> pool_pair_seconds(std::size_t bytes, int pairs, int repeats, int threads) {
    if (bytes == 0 || pairs <= 0 || repeats <= 0 || threads <= 0)
        throw logic_error("pool_pair_seconds: bytes, pairs, repeats and threads must be positive");
    using pool_type = memory::memory_pool<memory::null_allocator>;
    pool_type pool{memory::null_allocator{}};
    {
        // Warm-up: one block per thread is enough for every timed allocation to hit.
        std::vector<pool_type::allocation> blocks;
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

}  // namespace gpukit::bench
