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

// The memory order of a contiguous array: c (row-major, the last axis varies fastest) or f
// (Fortran, column-major: the first axis varies fastest).
enum class order { c, f };

// A Python slice start:stop:step of one axis; a missing value takes Python's default (the
// whole axis, step 1), negative start and stop count from the end. Step 0 is refused.
struct slice {
    // \var start
    // The first index; nullopt: the start of the axis (its end for a negative step).
    // \var stop
    // The end, excluded; nullopt: past the end of the axis (its start for a negative step).
    // \var step
    // The distance between taken indices, not 0; nullopt: 1.
    std::optional<std::int64_t> start, stop, step;
};
// An index entry that inserts an axis of length 1 (numpy.newaxis, None in Python).
struct new_axis {};
// An index entry that stands for as many whole axes as the other entries leave (`...`).
struct ellipsis {};
// One entry of a basic index: an integer, a slice, a new axis or an ellipsis.
using index_item = std::variant<std::int64_t, slice, new_axis, ellipsis>;

// The shape, byte strides, item size and byte offset of an array over a flat buffer, and the
// views made from them. A value type; it never touches the buffer itself.
class layout {
public:
    // A zero-dimensional layout (one element) of item size 1 at offset 0.
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

    // The extent of each axis, outermost first.
    const std::vector<std::int64_t>& shape() const noexcept { return shape_; }
    // The bytes between neighbouring elements along each axis (may be 0 or negative).
    const std::vector<std::int64_t>& strides() const noexcept { return strides_; }
    // The size of one element in bytes.
    std::int64_t itemsize() const noexcept { return itemsize_; }
    // The byte offset of element [0, ..., 0] from the start of the buffer.
    std::int64_t offset() const noexcept { return offset_; }
    // The number of axes (0 for a scalar).
    int ndim() const noexcept { return static_cast<int>(shape_.size()); }
    // The number of elements: the product of the shape (1 for a scalar, 0 when an extent is 0).
    std::int64_t size() const noexcept;
    // The bytes the elements hold together: size() * itemsize(), whatever the strides.
    std::int64_t nbytes() const noexcept { return size() * itemsize_; }

    // Whether the elements lie next to each other in C order (the last axis fastest), as
    // numpy's C_CONTIGUOUS flag: the strides of length-1 axes do not count, and an empty
    // array is contiguous.
    bool is_c_contiguous() const noexcept;
    // Whether the elements lie next to each other in Fortran order (the first axis fastest),
    // as numpy's F_CONTIGUOUS flag, with the same rules as is_c_contiguous().
    bool is_f_contiguous() const noexcept;
    // Whether the layout is C- or Fortran-contiguous.
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

    // Whether two layouts have the same shape, strides, item size and offset.
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

// The strides in bytes of a contiguous array of `shape` and `itemsize` in order `o` (an
// extent of 0 counts as 1, so the strides stay usable). length_error when a stride does not
// fit in 64 bits.
std::vector<std::int64_t> contiguous_strides(const std::vector<std::int64_t>& shape, std::int64_t itemsize, order o);

}  // namespace gpukit
