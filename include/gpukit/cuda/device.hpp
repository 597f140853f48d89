// A CUDA device: a cheap value naming one GPU by its ordinal.
#pragma once

#include <cuda.h>

#include <array>
#include <cstddef>
#include <string>
#include <utility>

namespace gpukit::cuda {

class context;

class device {
public:
    // How many CUDA devices the driver sees; 0 when it has none.
    static int count();
    // The device with this ordinal; logic_error naming the valid range when there is none.
    static device get(int ordinal);
    // The device at this PCI bus id ("0000:65:00.0"); logic_error when none matches.
    static device from_pci_bus_id(const std::string& pci_bus_id);

    int ordinal() const noexcept { return ordinal_; }
    CUdevice handle() const noexcept { return static_cast<CUdevice>(ordinal_); }

    std::string name() const;
    std::string pci_bus_id() const;
    std::pair<int, int> compute_capability() const;
    std::size_t total_memory() const;
    int attribute(CUdevice_attribute attribute) const;
    std::array<unsigned char, 16> uuid() const;
    bool can_access_peer(const device& peer) const;

    // A new context on this device, made current on the calling thread (pushed).
    context make_context(unsigned int flags = 0) const;
    // The device's primary context (the one the runtime API uses), not made current.
    context retain_primary_context() const;

    friend bool operator==(const device&, const device&) = default;

private:
    explicit device(int ordinal) noexcept : ordinal_(ordinal) {}
    int ordinal_;
};

}  // namespace gpukit::cuda
