// The timing loop of the batched C++ sides (the small-array floor and device_array): seconds
// per operation, one entry per repeat.
#pragma once

#include <chrono>
#include <vector>

namespace gpukit::bench {

// Each repeat times `batches` calls of `batch()`, which runs `per_batch` operations and the
// synchronization that ends them (timed too, as on the Python sides).
template <class Batch>
std::vector<double> seconds_per_operation(Batch&& batch, int per_batch, int batches, int repeats) {
    std::vector<double> seconds;
    for (int r = 0; r < repeats; ++r) {
        const auto start = std::chrono::steady_clock::now();
        for (int b = 0; b < batches; ++b)
            batch();
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
        seconds.push_back(took.count() / (static_cast<double>(per_batch) * batches));
    }
    return seconds;
}

}  // namespace gpukit::bench
