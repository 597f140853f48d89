// The OpenCL device the C++ OpenCL tests run on: the first one GPUKIT_CL_TEST selects
// (so the GPU machine can run them on NVIDIA's OpenCL too), else the first device found.
#pragma once

#include "gpukit/cl/api.hpp"
#include "gpukit/cl/context.hpp"
#include "gpukit/cl/platform.hpp"
#include "gpukit/cl/queue.hpp"
#include "gpukit/cl/select.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <span>

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

// A fixture with a context and a queue on cl_test_device(); it skips, saying why, where
// OpenCL cannot run. A derived SetUp calls this one first and returns if IsSkipped().
class cl_queue_test : public ::testing::Test {
protected:
    explicit cl_queue_test(bool profiling = false) : profiling_(profiling) {}

    void SetUp() override {
        if (const char* why = why_no_opencl())
            GTEST_SKIP() << why;
        dev.emplace(cl_test_device());
        ctx.emplace(cl::context::create(std::span<const cl::device>(&*dev, 1)));
        q.emplace(cl::queue::create(*ctx, *dev, profiling_));
    }

    std::optional<cl::device> dev;
    std::optional<cl::context> ctx;
    std::optional<cl::queue> q;

private:
    bool profiling_;
};

}  // namespace gpukit::testing
