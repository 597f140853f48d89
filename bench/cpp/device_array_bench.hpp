// The C++ side of the small-array benchmarks: gpukit::array::device_array doing what the
// Python sides do (x + y, 2*x + y, sum, ...), so a C++ program's cost is measured beside a
// Python one's.
#pragma once

#include <string>
#include <vector>

namespace gpukit::bench {

// The operations device_array_seconds() times, by the names of gpukit.bench.small.OPERATIONS
// it shares: add, axpy, scale, neg, less, astype, sum, dot, copy.
std::vector<std::string> device_array_operations();

// Seconds per `operation` on two arrays of `elements` float32 (made once, before timing), one
// entry per repeat; a repeat times `batches` batches of `launches` operations, each batch
// ended by a context synchronization (timed, as on the Python sides), after one warm-up batch.
// Results are dropped as soon as they are made; reductions are queued, not read back.
// logic_error for an unknown operation or a count that is not positive. Needs a current
// context.
std::vector<double> device_array_seconds(const std::string& operation, int elements, int launches, int batches,
                                         int repeats);

}  // namespace gpukit::bench
