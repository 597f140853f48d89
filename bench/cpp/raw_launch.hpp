// The C++ sides of the launch benchmarks: an empty kernel launched through the raw driver
// call, cuLaunchKernel, with nothing of gpukit in between, and through gpukit's launch();
// and the floor of the small-array cases, an elementwise add launched the raw way.
#pragma once

#include <vector>

namespace gpukit::bench {

// Seconds of host time per cuLaunchKernel call, one entry per repeat (each repeat times
// `launches` back-to-back launches of an empty kernel on a fresh stream, after a warm-up).
// Needs a current context.
std::vector<double> raw_launch_seconds(int launches, int repeats);

// The same through gpukit's typed C++ launch (gpukit::cuda::launch with a launch_config),
// its checks included, for the ratio against the raw call.
std::vector<double> gpukit_launch_seconds(int launches, int repeats);

// Seconds per raw cuLaunchKernel of `z[i] = x[i] + y[i]` on `elements` float32 values, into a
// buffer allocated once: the least an `x + y` on small arrays can cost. The kernel is
// compiled with NVRTC and loaded before timing. One entry per repeat; a repeat times
// `batches` batches of `launches` back-to-back launches, each batch ended by a stream
// synchronization (timed too, as in the Python sides it is compared with), after one
// warm-up batch. logic_error unless every count is positive. Needs a current context.
std::vector<double> raw_add_launch_seconds(int elements, int launches, int batches, int repeats);

}  // namespace gpukit::bench
