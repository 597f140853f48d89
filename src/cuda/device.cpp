#include "gpukit/cuda/device.hpp"

#include "gpukit/core/c_text.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/api.hpp"
#include "gpukit/cuda/context.hpp"

namespace gpukit::cuda {

int device::count() {
    int n = 0;
    const CUresult result = api().cuDeviceGetCount(&n);
    if (result == CUDA_ERROR_NO_DEVICE || result == CUDA_ERROR_NOT_INITIALIZED)
        return 0;  // cuInit reported no device: counting still works
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, "cuDeviceGetCount");
    return n;
}

device device::get(int ordinal) {
    const int n = count();
    if (ordinal < 0 || ordinal >= n) {
        const std::string valid = n == 0 ? "there is no CUDA device on this machine"
                                         : "valid device numbers are 0 to " + std::to_string(n - 1);
        throw logic_error("device number " + std::to_string(ordinal) + " is out of range: " + valid);
    }
    CUdevice handle = 0;
    GPUKIT_CU(cuDeviceGet, &handle, ordinal);
    return device(static_cast<int>(handle));
}

device device::from_pci_bus_id(const std::string& pci_bus_id) {
    require_c_string(pci_bus_id, "the PCI bus id");
    CUdevice handle = 0;
    const CUresult result = api().cuDeviceGetByPCIBusId(&handle, pci_bus_id.c_str());
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, "cuDeviceGetByPCIBusId",
                         "no CUDA device has PCI bus id '" + pci_bus_id +
                             "'; expected the form 'domain:bus:device.function', e.g. '0000:65:00.0'");
    return device(static_cast<int>(handle));
}

std::string device::name() const {
    char buffer[256] = {};
    GPUKIT_CU(cuDeviceGetName, buffer, sizeof buffer, handle());
    return buffer;
}

std::string device::pci_bus_id() const {
    char buffer[64] = {};
    GPUKIT_CU(cuDeviceGetPCIBusId, buffer, sizeof buffer, handle());
    return buffer;
}

std::pair<int, int> device::compute_capability() const {
    return {attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
            attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)};
}

std::size_t device::total_memory() const {
    std::size_t bytes = 0;
    GPUKIT_CU(cuDeviceTotalMem, &bytes, handle());
    return bytes;
}

int device::attribute(CUdevice_attribute attribute) const {
    int value = 0;
    const CUresult result = api().cuDeviceGetAttribute(&value, attribute, handle());
    if (result != CUDA_SUCCESS)
        throw_cuda_error(result, "cuDeviceGetAttribute", "attribute " + std::to_string(static_cast<int>(attribute)));
    return value;
}

std::array<unsigned char, 16> device::uuid() const {
    CUuuid id{};
    GPUKIT_CU(cuDeviceGetUuid, &id, handle());
    std::array<unsigned char, 16> bytes{};
    for (std::size_t i = 0; i < bytes.size(); ++i)
        bytes[i] = static_cast<unsigned char>(id.bytes[i]);
    return bytes;
}

bool device::can_access_peer(const device& peer) const {
    int can = 0;
    GPUKIT_CU(cuDeviceCanAccessPeer, &can, handle(), peer.handle());
    return can != 0;
}

context device::make_context(unsigned int flags) const { return context::create(*this, flags); }

context device::retain_primary_context() const { return context::retain_primary(*this); }

}  // namespace gpukit::cuda
