// Copies and fills of device arrays of any element type, records and CUDA vector types
// included: a driver copy where both layouts allow one (array/pitched_copy.hpp), otherwise an
// elementwise kernel moving the elements as machine words (array/views.hpp's as_words).
#pragma once

#include "gpukit/array/elementwise.hpp"
#include "gpukit/array/views.hpp"
#include "gpukit/cuda/stream.hpp"

#include <cstddef>
#include <span>

namespace gpukit::array {

// Rows narrower than this are copied by a kernel rather than by a 2-D or 3-D driver copy,
// which moves narrow rows slowly.
inline constexpr std::size_t min_pitched_row_bytes = 512;

// dst[...] = src for two arrays of one shape and element size in device memory, queued on
// `s`. logic_error when the shapes or element sizes differ.
void copy_elements(const element_array& dst, const element_array& src, cuda::stream_view s);

// Words per element fill_elements() handles (elements of up to 512 bytes).
inline constexpr int max_fill_words = 64;

// Every element of `dst` set to `pattern` (one element's bytes), queued on `s`. logic_error
// when the pattern's size is not the element size, or the element needs more than
// max_fill_words words.
void fill_elements(const element_array& dst, std::span<const std::byte> pattern, cuda::stream_view s);

// The kernel fill_elements() runs for elements of `words` words of type `word` (uint8,
// uint16, uint32 or uint64): word j of every element set to scalar parameter w<j>.
const elementwise_spec& fill_words_spec(dtype word, int words);

// numpy.arange's kernel for type `t`: z[i] = start + i * step, with scalar parameters start
// and step of type t (made once per type).
const elementwise_spec& arange_spec(dtype t);

}  // namespace gpukit::array
