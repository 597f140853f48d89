// A CUDA device: a cheap value naming one GPU by its ordinal.
#pragma once

#include <cuda.h>

#include <array>
#include <cstddef>
#include <string>
#include <utility>

namespace gpukit::cuda {

class context;

// One CUDA device, named by its ordinal (0 to count() - 1). Copying it is free; it owns
// nothing, and needs no context: its queries go straight to the driver.
class device {
public:
    // How many CUDA devices the driver sees; 0 when it has none.
    static int count();
    // The device with this ordinal; logic_error naming the valid range when there is none.
    static device get(int ordinal);
    // The device at this PCI bus id ("0000:65:00.0"); logic_error when none matches.
    static device from_pci_bus_id(const std::string& pci_bus_id);

    // The device's number, 0 to count() - 1.
    int ordinal() const noexcept { return ordinal_; }
    // The CUdevice, for calling the driver directly.
    CUdevice handle() const noexcept { return static_cast<CUdevice>(ordinal_); }

    // The product name ("NVIDIA H200").
    std::string name() const;
    // The PCI bus id, as from_pci_bus_id takes it ("0000:65:00.0").
    std::string pci_bus_id() const;
    // (major, minor): (9, 0) for compute capability 9.0.
    std::pair<int, int> compute_capability() const;
    // Bytes of device memory in all.
    std::size_t total_memory() const;
    // The value of `attribute` (CU_DEVICE_ATTRIBUTE_*); the driver's error, naming the
    // attribute's number, for one it does not know.
    int attribute(CUdevice_attribute attribute) const;
    // The device's 16-byte UUID, the same in every process (nvidia-smi shows it as GPU-...).
    std::array<unsigned char, 16> uuid() const;
    // True when a context on this device can be given access to memory on `peer`
    // (context::enable_peer_access).
    bool can_access_peer(const device& peer) const;

    // A new context on this device, made current on the calling thread (pushed).
    context make_context(unsigned int flags = 0) const;
    // The device's primary context (the one the runtime API uses), not made current.
    context retain_primary_context() const;

    // True for the same ordinal, that is the same device.
    friend bool operator==(const device&, const device&) = default;

private:
    explicit device(int ordinal) noexcept : ordinal_(ordinal) {}
    int ordinal_;
};

}  // namespace gpukit::cuda
