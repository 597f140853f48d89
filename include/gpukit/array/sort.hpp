// Sorting along one axis of an array, in place, on any backend:
//
//     array::sort(keys, nullptr, /*axis=*/1, backend);        // each row of keys, ascending
//     array::sort(keys, &indices, 0, backend);                 // indices moved with their keys
//
// A bitonic network of compare-and-exchange passes (O(n log^2 n) comparisons in
// ceil(log2 n) * (ceil(log2 n) + 1) / 2 launches), for any length n: the first pass of each
// merge compares mirrored pairs, so that elements beyond n may count as larger than all and
// need no padding. Ascending, NaNs last (numpy's order); not stable: equal keys may change
// order, and the values with them.
#pragma once

#include "gpukit/array/backend.hpp"
#include "gpukit/array/ndarray.hpp"

#include <cstddef>
#include <string>

namespace gpukit::array {

// Sorts the lines of `keys` along `axis` (negative counts from the end) on `b`, applying each
// line's permutation to the same line of `values` when given (an array of keys' shape, any
// dtype of at most 16 bytes). Both may be any views. logic_error for complex or bool keys, a
// values array of another shape or memory, an axis out of range, more than 8 axes, or memory
// that is not `b`'s.
void sort(const ndarray& keys, const ndarray* values, int axis, backend& b);

// The pass kernel (gk_sort_pass) for keys of `key` and values of `value_size` bytes (0: no
// values) in `language`.
std::string sort_source(dtype key, std::size_t value_size, kernel_language language);

}  // namespace gpukit::array
