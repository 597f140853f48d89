#include "gpukit/cuda/kernel_args.hpp"

namespace gpukit::cuda {

void kernel_args::spill() {
    heap_bytes_.assign(bytes_, bytes_ + used_);
    heap_offsets_.assign(offsets_, offsets_ + count_);
    heap_sizes_.assign(sizes_, sizes_ + count_);
    spilled_ = true;
}

void kernel_args::push(const void* value, std::size_t size) {
    const std::size_t offset = used_;
    const std::size_t end = round_up(offset + size);
    if (!spilled_ && (count_ == inline_count || end > inline_bytes))
        spill();
    used_ = end;
    if (spilled_) {
        heap_bytes_.resize(used_);
        std::memcpy(heap_bytes_.data() + offset, value, size);
        heap_offsets_.push_back(offset);
        heap_sizes_.push_back(size);
    } else {
        std::memcpy(bytes_ + offset, value, size);
        offsets_[count_] = offset;
        sizes_[count_] = size;
    }
    ++count_;
}

void** kernel_args::pointers() noexcept {
    if (!spilled_) {
        for (std::size_t i = 0; i < count_; ++i)
            pointers_[i] = bytes_ + offsets_[i];
        return pointers_;
    }
    heap_pointers_.resize(count_);
    for (std::size_t i = 0; i < count_; ++i)
        heap_pointers_[i] = heap_bytes_.data() + heap_offsets_[i];
    return heap_pointers_.data();
}

}  // namespace gpukit::cuda
