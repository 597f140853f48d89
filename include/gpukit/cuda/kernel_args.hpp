// Kernel arguments gathered one by one at run time (the Python bindings' launch path).
//
// Values are copied into an inline buffer, so a launch with up to `inline_count` arguments
// of up to `inline_bytes` in all allocates nothing; larger argument lists spill to the heap.
#pragma once

#include <cstddef>
#include <cstring>
#include <vector>

namespace gpukit::cuda {

// A kernel's arguments, appended one by one, in the form launch_packed takes them
// (pointers(), sizes(), count()). Not copyable: the pointers point into the object.
class kernel_args {
public:
    // Bytes of argument values held without allocating (each value rounded up to 16 bytes).
    static constexpr std::size_t inline_bytes = 512;
    // Arguments held without allocating.
    static constexpr std::size_t inline_count = 32;

    // No arguments yet.
    kernel_args() = default;
    kernel_args(const kernel_args&) = delete;
    kernel_args& operator=(const kernel_args&) = delete;

    // Appends a copy of `size` bytes as the next argument.
    void push(const void* value, std::size_t size);
    // Appends a bytewise copy of `value` (sizeof(T) bytes, so T must be trivially copyable)
    // as the next argument.
    template <class T>
    void push_value(const T& value) {
        push(&value, sizeof value);
    }

    // How many arguments were pushed.
    std::size_t count() const noexcept { return count_; }
    // The size in bytes of each argument, count() of them; valid until the next push.
    const std::size_t* sizes() const noexcept { return spilled_ ? heap_sizes_.data() : sizes_; }
    // Pointers to each argument, as cuLaunchKernel wants them; valid until the next push.
    void** pointers() noexcept;

private:
    // Each value starts on a 16-byte boundary, enough for any kernel parameter type.
    static std::size_t round_up(std::size_t n) noexcept { return (n + 15) & ~std::size_t{15}; }
    void spill();

    alignas(16) std::byte bytes_[inline_bytes];
    std::size_t offsets_[inline_count];
    std::size_t sizes_[inline_count];
    void* pointers_[inline_count];
    std::size_t count_ = 0, used_ = 0;
    bool spilled_ = false;
    std::vector<std::byte> heap_bytes_;
    std::vector<std::size_t> heap_offsets_, heap_sizes_;
    std::vector<void*> heap_pointers_;
};

}  // namespace gpukit::cuda
