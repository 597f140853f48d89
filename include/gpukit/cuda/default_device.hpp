// Choosing the default device, by the seed's rules (gpukit.tools.make_default_context):
// the integer in $CUDA_DEVICE, else the integer in ~/.cuda-device (or ~/.cuda_device), else
// every device in turn until one gives a context.
#pragma once

#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/device.hpp"

#include <functional>
#include <optional>
#include <string>

namespace gpukit::cuda {

// A device number the environment asks for, and where it was found.
struct device_choice {
    int number;          // the device ordinal, not yet checked against the devices present
    std::string source;  // where it came from: "CUDA_DEVICE" or the file's path
};

// The device number the environment asks for, if any. A value that is not an integer is a
// logic_error naming where it came from.
std::optional<device_choice> configured_device();

// The configured device (checked against the devices present), or `fallback`.
device default_device(int fallback = 0);

// A context on the default device, made with `maker` (default: device::make_context()).
// With no device configured, tries each device in turn; runtime_error when none works.
context make_default_context(const std::function<context(const device&)>& maker = {});

}  // namespace gpukit::cuda
