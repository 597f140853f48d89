#include "gpu_test.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/default_device.hpp"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace {

using gpukit::cuda::device;

TEST(Device, CountAndAttributes) {
    GPUKIT_REQUIRE_GPU();
    ASSERT_GT(device::count(), 0);
    device dev = device::get(0);
    EXPECT_FALSE(dev.name().empty());
    EXPECT_GT(dev.total_memory(), std::size_t{1} << 30);
    auto [major, minor] = dev.compute_capability();
    EXPECT_GE(major, 5);
    EXPECT_GE(minor, 0);
    EXPECT_EQ(dev.attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE), 32);
    EXPECT_GT(dev.attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT), 0);
    EXPECT_EQ(dev.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR), major);
    auto uuid = dev.uuid();
    bool nonzero = false;
    for (unsigned char b : uuid)
        nonzero |= b != 0;
    EXPECT_TRUE(nonzero);
}

TEST(Device, DriverLibraryIsTheLoadedLibcuda) {
    GPUKIT_REQUIRE_GPU();
    const std::string path = gpukit::cuda::driver_library_path();
    EXPECT_TRUE(std::filesystem::is_regular_file(path)) << path;
    EXPECT_EQ(std::filesystem::path(path).filename().string().rfind("libcuda.so", 0), 0u) << path;
}

TEST(Device, PciBusIdRoundTrip) {
    GPUKIT_REQUIRE_GPU();
    device dev = device::get(0);
    const std::string bus = dev.pci_bus_id();
    EXPECT_EQ(device::from_pci_bus_id(bus), dev);
    EXPECT_THROW(device::from_pci_bus_id("not-a-bus-id"), gpukit::cuda_error);
    EXPECT_THROW(device::from_pci_bus_id(bus + std::string("\0x", 2)), std::invalid_argument);
}

TEST(Device, OutOfRangeNumbersAreLogicErrors) {
    GPUKIT_REQUIRE_GPU();
    for (int bad : {-1, device::count(), 1000}) {
        try {
            device::get(bad);
            ADD_FAILURE() << "device " << bad << " accepted";
        } catch (const gpukit::logic_error& e) {
            EXPECT_NE(std::string(e.what()).find("out of range"), std::string::npos) << e.what();
        }
    }
    EXPECT_THROW(device::get(0).attribute(static_cast<CUdevice_attribute>(100000)), gpukit::cuda_error);
}

TEST(Device, PeerAccessQuery) {
    GPUKIT_REQUIRE_GPU();
    device dev = device::get(0);
    EXPECT_FALSE(dev.can_access_peer(dev));  // a device is never its own peer
}

TEST(Device, DefaultDeviceHonoursCudaDevice) {
    GPUKIT_REQUIRE_GPU();
    setenv("CUDA_DEVICE", "0", 1);
    EXPECT_EQ(gpukit::cuda::default_device(), device::get(0));
    setenv("CUDA_DEVICE", "999", 1);
    try {
        gpukit::cuda::default_device();
        ADD_FAILURE() << "CUDA_DEVICE=999 accepted";
    } catch (const gpukit::logic_error& e) {
        EXPECT_NE(std::string(e.what()).find("CUDA_DEVICE"), std::string::npos) << e.what();
    }
    setenv("CUDA_DEVICE", "zero", 1);
    EXPECT_THROW(gpukit::cuda::make_default_context(), gpukit::logic_error);
    unsetenv("CUDA_DEVICE");
}

}  // namespace
