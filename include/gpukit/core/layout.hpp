// The layout of an n-dimensional array over a flat buffer: shape, strides in bytes, the
// element size and the byte offset of element [0, ..., 0]. All view arithmetic of gpukit's
// array types (reshape, ravel, slicing, transpose, squeeze, split, broadcasting) lives
// here, once, and is tested on the CPU.
//
// Errors follow numpy's (Python sees the exception nanobind maps each to):
//   std::invalid_argument (ValueError)  a bad request: negative extent, repeated axis, sizes
//                                       that differ, a zero slice step, shapes that do not
//                                       broadcast
//   std::length_error     (ValueError)  a size, byte count or byte offset beyond 64 bits
//                                       ("array is too big")
//   std::out_of_range     (IndexError)  an index or axis out of bounds
//   gpukit::logic_error   (LogicError)  the view exists only as a copy (reshape, ravel)
// Every layout's element count times its item size, and the bytes it reaches from its
// buffer, fit in a signed 64-bit integer (the constructor checks), so size(), nbytes() and
// byte_extent() cannot overflow, and nor can the views computed from a layout.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace gpukit {

enum class order { c, f };

// One entry of a basic index: an integer, a slice, a new axis or an ellipsis.
struct slice {
    std::optional<std::int64_t> start, stop, step;
};
struct new_axis {};
struct ellipsis {};
using index_item = std::variant<std::int64_t, slice, new_axis, ellipsis>;

class layout {
public:
    layout() = default;
    // A contiguous layout of `shape` in `order`.
    static layout contiguous(std::vector<std::int64_t> shape, std::int64_t itemsize, order o = order::c);
    // A contiguous layout of `like`'s shape, its elements in like's memory order: C or
    // Fortran order when `like` is C- or Fortran-contiguous, otherwise the axes ordered by the
    // magnitude of their strides, largest outermost, ties in axis order (numpy's order "K"),
    // so that a copy walks memory as the original does. The strides are positive.
    static layout contiguous_like(const layout& like, std::int64_t itemsize);
    // Any strided layout; checked for consistency (non-negative extents, positive itemsize,
    // sizes and byte range within 64 bits).
    layout(std::vector<std::int64_t> shape, std::vector<std::int64_t> strides, std::int64_t itemsize,
           std::int64_t offset = 0);

    const std::vector<std::int64_t>& shape() const noexcept { return shape_; }
    const std::vector<std::int64_t>& strides() const noexcept { return strides_; }
    std::int64_t itemsize() const noexcept { return itemsize_; }
    std::int64_t offset() const noexcept { return offset_; }
    int ndim() const noexcept { return static_cast<int>(shape_.size()); }
    std::int64_t size() const noexcept;
    std::int64_t nbytes() const noexcept { return size() * itemsize_; }

    bool is_c_contiguous() const noexcept;
    bool is_f_contiguous() const noexcept;
    bool is_contiguous() const noexcept { return is_c_contiguous() || is_f_contiguous(); }
    // The lowest and one-past-the-highest byte (relative to the buffer) any element touches;
    // {offset, offset} for an empty array.
    std::pair<std::int64_t, std::int64_t> byte_extent() const noexcept;

    // A view with a new shape (one extent may be -1), reading elements in `o`. Throws
    // invalid_argument when the sizes differ, logic_error when the new shape cannot be a
    // view of this layout without a copy.
    layout reshape(std::vector<std::int64_t> new_shape, order o = order::c) const;
    // A one-dimensional view; logic_error when the array is not contiguous in `o`.
    layout ravel(order o = order::c) const;
    // Axes reversed.
    layout transpose() const;
    // Axes permuted: axis k of the view is axis axes[k] of this layout (each axis once).
    layout transpose(const std::vector<int>& axes) const;
    // Every length-1 axis removed.
    layout squeeze() const;
    // The listed axes removed: each of length 1, none repeated (an empty list removes none).
    layout squeeze(const std::vector<int>& axes) const;
    // Basic indexing: integers drop an axis, slices keep it, new_axis adds one.
    layout index(const std::vector<index_item>& items) const;
    // Views splitting `axis` at the given indices, as numpy.split with a list of indices:
    // part k is the slice [indices[k-1]:indices[k]] (Python's slicing rules, so indices may
    // be negative, unsorted or beyond the axis).
    std::vector<layout> split_at(const std::vector<std::int64_t>& indices, int axis = 0) const;
    // Views splitting `axis` into `sections` equal parts (invalid_argument when it does not divide).
    std::vector<layout> split(std::int64_t sections, int axis = 0) const;
    // A view of shape `shape`, as numpy.broadcast_to: the new leading axes and the stretched
    // length-1 axes get stride 0, the others keep theirs. invalid_argument when this shape
    // cannot be stretched to `shape` (only this layout's axes stretch) or `shape` has a
    // negative extent. A view stretched along an axis is not contiguous (numpy's flags).
    layout broadcast_to(const std::vector<std::int64_t>& shape) const;

    std::string describe() const;  // "shape (3, 4), strides (16, 4), itemsize 4, offset 0"

    friend bool operator==(const layout&, const layout&) = default;

private:
    int normalised_axis(int axis, const char* operation) const;

    std::vector<std::int64_t> shape_;
    std::vector<std::int64_t> strides_;
    std::int64_t itemsize_ = 1;
    std::int64_t offset_ = 0;
};

// The shape of the result of an elementwise operation between arrays of shapes `a` and `b`
// (numpy.broadcast_shapes): trailing axes aligned, missing leading axes taken as 1, each pair
// of extents equal or one of them 1 (so 0 with 1 gives 0). invalid_argument naming both
// shapes when they do not broadcast or an extent is negative. The result's size is checked
// where an array of it is made (layout::contiguous: length_error when too big).
std::vector<std::int64_t> broadcast_shapes(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b);

// The contiguous strides of `shape` in bytes.
std::vector<std::int64_t> contiguous_strides(const std::vector<std::int64_t>& shape, std::int64_t itemsize, order o);

}  // namespace gpukit
