// Layouts derived from an array's layout for gpuarray's copies and views: numpy's order 'K'
// for new arrays, numpy's rules for viewing elements as a type of another size, and a view of
// any element (a record, a vector type) as machine words, which gpukit's kernels copy and fill.
#pragma once

#include "gpukit/core/layout.hpp"

#include <cuda.h>

#include <cstdint>

namespace gpukit::array {

// Elements of any type: where element [0, ..., 0] is and how the others lie (the layout's
// itemsize is the element's size in bytes; its offset is not used).
struct element_array {
    CUdeviceptr data = 0;   // the address of element [0, ..., 0]
    gpukit::layout layout;  // shape, byte strides and element size
};

// Whether the elements of `l` fill exactly nbytes() bytes from the lowest one, with positive
// strides: a C- or F-contiguous layout or one with its axes permuted (a transposed array).
// Such an array is copied as one block of bytes into a layout with the same strides.
bool is_dense(const gpukit::layout& l) noexcept;

// The same bytes seen as elements of `itemsize` bytes, as numpy's ndarray.view(dtype) sees
// them: the last axis must be contiguous (or hold at most one element) and its bytes are
// divided into the new elements; a 0-d array keeps its itemsize. std::invalid_argument with
// numpy's message otherwise.
gpukit::layout with_itemsize(const gpukit::layout& l, std::int64_t itemsize);

// The widest machine word (8, 4, 2 or 1 bytes) that divides the item size, the address
// `data` of element 0 and every stride that is used (of axes longer than 1).
std::int64_t word_size(const gpukit::layout& l, CUdeviceptr data) noexcept;

// `l` seen as words of `word` bytes (which word_size() allows): one more axis, last, of
// itemsize / word words `word` bytes apart. Copying or filling these words copies or fills
// the elements whatever their type.
gpukit::layout as_words(const gpukit::layout& l, std::int64_t word);

// Whether the bytes of two arrays overlap without the arrays being the same elements in the
// same order (one first element, shape, strides and element size, and one element type unless
// `different_types`): then a kernel reading one while writing the other would race, and an
// operation copies the input first, as numpy does. An array is its buffer's address and a
// layout whose offset places element [0, ..., 0].
bool overlaps_differently(CUdeviceptr a_base, const gpukit::layout& a, CUdeviceptr b_base, const gpukit::layout& b,
                          bool different_types = false) noexcept;

}  // namespace gpukit::array
