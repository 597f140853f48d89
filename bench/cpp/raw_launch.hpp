// The C++ sides of the launch benchmark: an empty kernel launched through the raw driver
// call, cuLaunchKernel, with nothing of gpukit in between, and through gpukit's launch().
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

}  // namespace gpukit::bench
