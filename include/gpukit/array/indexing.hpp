// Gathers and scatters through index arrays: numpy's take, and PyCUDA's multi_take,
// multi_put and multi_take_put (which read through texture references in PyCUDA; here
// through plain device memory).
//
// One kernel copies elements for every position i of its index arrays and every pair k of
// arrays (up to max_indexed_arrays pairs per launch):
//
//   out_k[d] = source_k[s]   with s = source_index[i] + offset_k (or i without a source index)
//                            and  d = dest_index[i] (or i without a destination index).
//
// Elements are copied as opaque words, so every dtype works (records and CUDA vector types
// included). A negative s or d counts from the end of its array, as numpy's indices do. An s
// beyond its array reads a zero element and a d beyond its array is not written: numpy raises
// IndexError there, which a kernel cannot do without the caller waiting for it.
#pragma once

#include "gpukit/array/backend.hpp"
#include "gpukit/array/ndarray.hpp"
#include "gpukit/array/views.hpp"
#include "gpukit/cuda/stream.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace gpukit::array {

// The most pairs of arrays one launch of the indexed copy kernel copies.
inline constexpr int max_indexed_arrays = 16;

// One generated kernel. Indices are of an integer type or bool.
struct indexed_copy_spec {
    int word = 4;                       // bytes of the words elements are copied as: 1, 2, 4, 8 or 16
    int words = 1;                      // words per element
    std::optional<dtype> source_index;  // none: s = i
    std::optional<dtype> dest_index;    // none: d = i
    int arrays = 1;                     // pairs of arrays: 1 to max_indexed_arrays
    bool offsets = false;               // offset_k added to s
    int source_ndim = 0;                // 0: flat sources, in memory order; k: one strided source of k axes, in C order

    // Whether two specs are equal field by field (equal specs generate the same kernel).
    friend bool operator==(const indexed_copy_spec&, const indexed_copy_spec&) = default;
};

// The kernel's CUDA C (one kernel, gk_indexed_copy). logic_error for a spec out of range.
std::string indexed_copy_source(const indexed_copy_spec& spec);

// numpy's take: out[i] = source.flat[indices[i]] for every position i of `indices`, source of
// any layout (its position in C order), `indices` and `out` C-contiguous with indices' size.
void take(const element_array& source, const ndarray& indices, const element_array& out, cuda::stream_view s);

// The indexed copy above for every k: sources, outs and index arrays contiguous (positions
// in memory order); all sources and outs of one element size; source_indices and
// dest_indices (when given, at least one is) of one size n, which also bounds i. An array read
// or written at i must hold at least n elements. offsets: empty, or one per pair. Pairs
// beyond max_indexed_arrays take further launches. logic_error for arguments that do not fit.
void indexed_copy(std::span<const element_array> sources, std::span<const element_array> outs,
                  const ndarray* source_indices, const ndarray* dest_indices, std::span<const std::int64_t> offsets,
                  cuda::stream_view s);

// The indexed copy on any backend (OpenCL's gpukit.cl.array take and multi_* functions), one
// pair of arrays per launch: out_k[d] = sources_k[s] with s = source_index[i] (or i) plus
// offsets[k] (when given), d = dest_index[i] (or i), over i below the index arrays' size
// (or, with neither, the smallest source's). Every array contiguous (positions in memory
// order); sources and outs of one element size (1, 2, 4, 8 or 16 bytes); indices of an
// integer type or bool. Negative s and d count from the end; an s beyond its source reads
// zero bytes, a d beyond its out writes nothing (so do positions i beyond an array read or
// written at i: PyOpenCL's multi_put reads its sources at every i of the indices). logic_error
// for arguments that do not fit or memory not `b`'s.
void indexed_copy(std::span<const ndarray> sources, std::span<const ndarray> outs, const ndarray* source_indices,
                  const ndarray* dest_indices, std::span<const std::int64_t> offsets, backend& b);

// The pass kernel of that indexed copy (gk_gather_scatter) for elements of `element_size`
// bytes and the given index types, in `language`.
std::string portable_indexed_copy_source(std::size_t element_size, std::optional<dtype> source_index,
                                         std::optional<dtype> dest_index, kernel_language language);

}  // namespace gpukit::array
