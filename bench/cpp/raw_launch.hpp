// The C++ baseline of the launch benchmark: an empty kernel launched through the raw
// driver call, cuLaunchKernel, with nothing of gpukit in between.
#pragma once

#include <vector>

namespace gpukit::bench {

// Seconds of host time per cuLaunchKernel call, one entry per repeat (each repeat times
// `launches` back-to-back launches of an empty kernel on a fresh stream, after a warm-up).
// Needs a current context.
std::vector<double> raw_launch_seconds(int launches, int repeats);

}  // namespace gpukit::bench
