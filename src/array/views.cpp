#include "gpukit/array/views.hpp"

#include "gpukit/core/error.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace gpukit::array {

bool is_dense(const gpukit::layout& l) noexcept {
    if (l.size() == 0)
        return true;
    // Ordered by stride, the axes longer than 1 must each step over the ones inside it.
    std::vector<std::pair<std::int64_t, std::int64_t>> axes;  // (stride, extent)
    for (int k = 0; k < l.ndim(); ++k)
        if (l.shape()[k] > 1)
            axes.emplace_back(l.strides()[k], l.shape()[k]);
    std::sort(axes.begin(), axes.end());
    std::int64_t expected = l.itemsize();
    for (const auto& [stride, extent] : axes) {
        if (stride != expected)
            return false;
        expected *= extent;
    }
    return true;
}

gpukit::layout with_itemsize(const gpukit::layout& l, std::int64_t itemsize) {
    const std::int64_t old = l.itemsize();
    if (itemsize == old)
        return l;
    if (itemsize <= 0)
        throw std::invalid_argument("view: an item size must be positive, got " + std::to_string(itemsize));
    if (l.ndim() == 0)
        throw std::invalid_argument("Changing the dtype of a 0d array is only supported if the itemsize is unchanged");
    std::vector<std::int64_t> shape = l.shape(), strides = l.strides();
    const std::int64_t last = shape.back();
    if (last > 1 && strides.back() != old)
        throw std::invalid_argument("To change to a dtype of a different size, the last axis must be contiguous");
    if (itemsize < old && old % itemsize != 0)
        throw std::invalid_argument(
            "When changing to a smaller dtype, its size must be a divisor of the size of "
            "original dtype");
    if (itemsize > old && (last * old) % itemsize != 0)
        throw std::invalid_argument(
            "When changing to a larger dtype, its size must be a divisor of the total size "
            "in bytes of the last axis of the array.");
    shape.back() = last * old / itemsize;
    strides.back() = itemsize;
    return gpukit::layout(std::move(shape), std::move(strides), itemsize, l.offset());
}

std::int64_t word_size(const gpukit::layout& l, CUdeviceptr data) noexcept {
    for (std::int64_t word : {8, 4, 2}) {
        bool fits = l.itemsize() % word == 0 && data % static_cast<CUdeviceptr>(word) == 0;
        for (int k = 0; fits && k < l.ndim(); ++k)
            fits = l.shape()[k] <= 1 || l.strides()[k] % word == 0;
        if (fits)
            return word;
    }
    return 1;
}

gpukit::layout as_words(const gpukit::layout& l, std::int64_t word) {
    if (word <= 0 || l.itemsize() % word != 0)
        throw logic_error("as_words: " + std::to_string(word) + "-byte words do not divide " +
                          std::to_string(l.itemsize()) + "-byte elements");
    std::vector<std::int64_t> shape = l.shape(), strides = l.strides();
    shape.push_back(l.itemsize() / word);
    strides.push_back(word);
    return gpukit::layout(std::move(shape), std::move(strides), word, l.offset());
}

bool overlaps_differently(CUdeviceptr a_base, const gpukit::layout& a, CUdeviceptr b_base, const gpukit::layout& b,
                          bool different_types) noexcept {
    if (a.size() == 0 || b.size() == 0)
        return false;
    const auto [a_low, a_high] = a.byte_extent();
    const auto [b_low, b_high] = b.byte_extent();
    const auto a_start = static_cast<std::int64_t>(a_base) + a_low, a_end = static_cast<std::int64_t>(a_base) + a_high;
    const auto b_start = static_cast<std::int64_t>(b_base) + b_low, b_end = static_cast<std::int64_t>(b_base) + b_high;
    if (a_end <= b_start || b_end <= a_start)
        return false;
    const bool same_elements =
        a_base + static_cast<CUdeviceptr>(a.offset()) == b_base + static_cast<CUdeviceptr>(b.offset()) &&
        a.shape() == b.shape() && a.strides() == b.strides() && a.itemsize() == b.itemsize();
    return different_types || !same_elements;
}

}  // namespace gpukit::array
