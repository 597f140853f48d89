// The OpenCL device the C++ OpenCL tests run on: the first one GPUKIT_CL_TEST selects
// (so the GPU machine can run them on NVIDIA's OpenCL too), else the first device found.
#pragma once

#include "gpukit/cl/api.hpp"
#include "gpukit/cl/platform.hpp"
#include "gpukit/cl/select.hpp"

#include <cstdlib>

namespace gpukit::testing {

// Why the OpenCL tests cannot run here, or nullptr when they can.
inline const char* why_no_opencl() {
    if (!cl::available())
        return "no OpenCL ICD loader (libOpenCL.so.1) on this machine";
    for (const cl::platform& p : cl::platform::all())
        if (!p.devices().empty())
            return nullptr;
    return "no OpenCL platform with a device is installed";
}

inline cl::device cl_test_device() {
    if (const char* spec = std::getenv("GPUKIT_CL_TEST"); spec && *spec)
        return cl::select_devices(spec).front();
    return cl::platform::all().front().devices().front();
}

}  // namespace gpukit::testing
