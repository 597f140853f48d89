// Without an NVIDIA driver, CUDA calls fail with a clear runtime_error naming the library.
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/device.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace {

TEST(NoDriver, CallsSayWhichLibraryIsMissing) {
    if (gpukit::cuda::driver_available())
        GTEST_SKIP() << "a CUDA driver is installed here";
    try {
        gpukit::cuda::device::count();
        FAIL() << "device::count() worked without a driver";
    } catch (const gpukit::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("libcuda.so.1"), std::string::npos) << e.what();
    }
    EXPECT_THROW(gpukit::cuda::api(), gpukit::runtime_error);
    try {
        gpukit::cuda::driver_library_path();
        FAIL() << "driver_library_path() worked without a driver";
    } catch (const gpukit::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("libcuda.so.1"), std::string::npos) << e.what();
    }
}

// Names cross into the driver as C strings: one holding a NUL is refused before the driver is
// asked (so with or without one).
TEST(NoDriver, ANulInAPciBusIdIsRefusedFirst) {
    EXPECT_THROW(gpukit::cuda::device::from_pci_bus_id(std::string("0000:65:00.0\0x", 14)), std::invalid_argument);
}

}  // namespace
