// The OpenCL device the C++ OpenCL tests run on: the first one GPUKIT_CL_TEST selects
// (so the GPU machine can run them on NVIDIA's OpenCL too), else the first device found.
#pragma once

#include "gpukit/cl/platform.hpp"
#include "gpukit/cl/select.hpp"

#include <cstdlib>

namespace gpukit::testing {

inline cl::device cl_test_device() {
    if (const char* spec = std::getenv("GPUKIT_CL_TEST"); spec && *spec)
        return cl::select_devices(spec).front();
    return cl::platform::all().front().devices().front();
}

}  // namespace gpukit::testing
