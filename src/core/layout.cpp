#include "gpukit/core/layout.hpp"

#include "gpukit/core/checked.hpp"
#include "gpukit/core/error.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace gpukit {
namespace {

// `values` as a Python tuple: "(3, 4)", or "(3,4)" with separator "," as numpy's
// broadcasting errors write shapes.
std::string join(const std::vector<std::int64_t>& values, const char* separator = ", ") {
    std::string text = "(";
    for (std::size_t i = 0; i < values.size(); ++i)
        text += (i ? separator : "") + std::to_string(values[i]);
    return text + (values.size() == 1 ? ",)" : ")");
}

void check_extents(const std::vector<std::int64_t>& shape) {
    for (std::int64_t extent : shape)
        if (extent < 0)
            throw std::invalid_argument("negative dimensions are not allowed, got shape " + join(shape));
}

std::length_error too_big(const std::vector<std::int64_t>& shape, std::int64_t itemsize) {
    return std::length_error("array is too big: shape " + join(shape) + " of " + std::to_string(itemsize) +
                             "-byte elements needs more than 2**63 - 1 bytes");
}

// The number of elements of `shape`, after checking, as numpy does, that no extent is
// negative and that the non-zero extents times `itemsize` fit in 64 bits (so a zero extent
// does not make (0, 2**62, 2**62) acceptable).
std::int64_t element_count(const std::vector<std::int64_t>& shape, std::int64_t itemsize) {
    check_extents(shape);
    std::int64_t bytes = itemsize;
    bool empty = false;
    for (std::int64_t extent : shape) {
        if (extent == 0) {
            empty = true;
            continue;
        }
        const auto product = checked_mul(bytes, extent);
        if (!product)
            throw too_big(shape, itemsize);
        bytes = *product;
    }
    return empty ? 0 : bytes / itemsize;
}

// The lowest and one-past-the-highest byte a non-empty layout touches, or nullopt when
// either lies beyond 64 bits.
std::optional<std::pair<std::int64_t, std::int64_t>> reach(const std::vector<std::int64_t>& shape,
                                                           const std::vector<std::int64_t>& strides,
                                                           std::int64_t itemsize, std::int64_t offset) {
    std::int64_t low = offset, high = offset;
    for (std::size_t k = 0; k < shape.size(); ++k) {
        const auto step = checked_mul(shape[k] - 1, strides[k]);
        if (!step)
            return std::nullopt;
        std::int64_t& end = *step < 0 ? low : high;
        const auto moved = checked_add(end, *step);
        if (!moved)
            return std::nullopt;
        end = *moved;
    }
    const auto past_end = checked_add(high, itemsize);
    if (!past_end)
        return std::nullopt;
    return std::pair{low, *past_end};
}

// a * b for a stride or offset of a view inside a valid layout, which always fits; checked
// all the same, since a wrong view would be a silent wrong answer.
std::int64_t view_product(std::int64_t a, std::int64_t b) {
    if (const auto product = checked_mul(a, b))
        return *product;
    throw std::length_error("layout: a stride or offset overflows 64 bits (" + std::to_string(a) + " * " +
                            std::to_string(b) + ")");
}

std::int64_t view_sum(std::int64_t a, std::int64_t b) {
    if (const auto sum = checked_add(a, b))
        return *sum;
    throw std::length_error("layout: an offset overflows 64 bits (" + std::to_string(a) + " + " + std::to_string(b) +
                            ")");
}

// The number of elements of Python's range(start, stop, step) for bounds already clamped to
// an axis. Unsigned, since the step may be as large as 2**63 in either direction.
std::int64_t slice_length(std::int64_t start, std::int64_t stop, std::int64_t step) {
    const bool up = step > 0;
    if (up ? stop <= start : start <= stop)
        return 0;
    const auto span = static_cast<std::uint64_t>(up ? stop - start : start - stop);  // at most the extent + 1
    const std::uint64_t magnitude = up ? static_cast<std::uint64_t>(step) : 0 - static_cast<std::uint64_t>(step);
    return static_cast<std::int64_t>((span - 1) / magnitude + 1);
}

// Resolves a single -1 in `shape` so that the product equals `size`.
std::vector<std::int64_t> resolved_shape(std::vector<std::int64_t> shape, std::int64_t size, std::int64_t itemsize) {
    auto unknown = shape.end();
    for (auto it = shape.begin(); it != shape.end(); ++it) {
        if (*it == -1) {
            if (unknown != shape.end())
                throw std::invalid_argument("reshape: only one dimension may be -1, got " + join(shape));
            unknown = it;
        } else if (*it < 0) {
            throw std::invalid_argument("reshape: dimensions must be non-negative (or one -1), got " + join(shape));
        }
    }
    if (unknown != shape.end()) {
        *unknown = 1;
        const std::int64_t known = element_count(shape, itemsize);
        if (known == 0 || size % known != 0) {
            *unknown = -1;
            throw std::invalid_argument("reshape: cannot infer the -1 in " + join(shape) + " for " +
                                        std::to_string(size) + " elements");
        }
        *unknown = size / known;
    }
    if (element_count(shape, itemsize) != size)
        throw std::invalid_argument("reshape: cannot reshape " + std::to_string(size) + " elements into shape " +
                                    join(shape));
    return shape;
}

// Strides for a view of `old` (C order) with `new_shape`, or nullopt when a copy is needed.
// Axes of extent 1 are free; the others are matched in groups of equal product, and the
// old axes of a group must be laid out one inside the other.
std::optional<std::vector<std::int64_t>> view_strides_c(const std::vector<std::int64_t>& old_shape,
                                                        const std::vector<std::int64_t>& old_strides,
                                                        const std::vector<std::int64_t>& new_shape,
                                                        std::int64_t itemsize) {
    std::vector<std::int64_t> shape, strides;
    for (std::size_t k = 0; k < old_shape.size(); ++k)
        if (old_shape[k] != 1) {
            shape.push_back(old_shape[k]);
            strides.push_back(old_strides[k]);
        }
    std::vector<std::size_t> targets;  // positions in new_shape of extents other than 1
    for (std::size_t k = 0; k < new_shape.size(); ++k)
        if (new_shape[k] != 1)
            targets.push_back(k);

    std::vector<std::int64_t> result = contiguous_strides(new_shape, itemsize, order::c);
    std::size_t i = 0, j = 0;
    while (i < shape.size() && j < targets.size()) {
        std::size_t i_end = i, j_end = j;
        std::int64_t old_product = shape[i], new_product = new_shape[targets[j]];
        while (old_product != new_product) {
            // Both products stay at most the (equal) total sizes, which fit in 64 bits.
            if (old_product < new_product)
                old_product = view_product(old_product, shape[++i_end]);
            else
                new_product = view_product(new_product, new_shape[targets[++j_end]]);
        }
        for (std::size_t k = i; k < i_end; ++k)
            if (strides[k] != view_product(strides[k + 1], shape[k + 1]))
                return std::nullopt;
        result[targets[j_end]] = strides[i_end];
        for (std::size_t k = j_end; k > j; --k)
            result[targets[k - 1]] = view_product(result[targets[k]], new_shape[targets[k]]);
        i = i_end + 1;
        j = j_end + 1;
    }
    return result;
}

template <class T>
std::vector<T> reversed(std::vector<T> v) {
    std::reverse(v.begin(), v.end());
    return v;
}

}  // namespace

std::vector<std::int64_t> contiguous_strides(const std::vector<std::int64_t>& shape, std::int64_t itemsize, order o) {
    std::vector<std::int64_t> strides(shape.size());
    std::int64_t step = itemsize;
    auto assign = [&](std::size_t k) {
        strides[k] = step;
        step = view_product(step, std::max<std::int64_t>(shape[k], 1));
    };
    if (o == order::c)
        for (std::size_t k = shape.size(); k-- > 0;)
            assign(k);
    else
        for (std::size_t k = 0; k < shape.size(); ++k)
            assign(k);
    return strides;
}

layout layout::contiguous(std::vector<std::int64_t> shape, std::int64_t itemsize, order o) {
    if (itemsize <= 0)
        throw std::invalid_argument("layout: the element size must be positive, got " + std::to_string(itemsize));
    element_count(shape, itemsize);  // the strides below are then products that fit
    auto strides = contiguous_strides(shape, itemsize, o);
    return layout(std::move(shape), std::move(strides), itemsize, 0);
}

layout layout::contiguous_like(const layout& like, std::int64_t itemsize) {
    if (like.is_c_contiguous())
        return contiguous(like.shape(), itemsize, order::c);
    if (like.is_f_contiguous())
        return contiguous(like.shape(), itemsize, order::f);
    if (itemsize <= 0)
        throw std::invalid_argument("layout: the element size must be positive, got " + std::to_string(itemsize));
    element_count(like.shape(), itemsize);       // the strides below are then products that fit
    std::vector<int> axes(like.shape().size());  // outermost first
    std::iota(axes.begin(), axes.end(), 0);
    const auto magnitude = [&](int axis) {
        const std::int64_t s = like.strides()[static_cast<std::size_t>(axis)];
        return s < 0 ? -static_cast<std::uint64_t>(s) : static_cast<std::uint64_t>(s);
    };
    std::stable_sort(axes.begin(), axes.end(), [&](int a, int b) { return magnitude(a) > magnitude(b); });
    std::vector<std::int64_t> strides(axes.size());
    std::int64_t stride = itemsize;
    for (auto axis = axes.rbegin(); axis != axes.rend(); ++axis) {
        strides[static_cast<std::size_t>(*axis)] = stride;
        stride *= like.shape()[static_cast<std::size_t>(*axis)];
    }
    return layout(like.shape(), std::move(strides), itemsize, 0);
}

layout::layout(std::vector<std::int64_t> shape, std::vector<std::int64_t> strides, std::int64_t itemsize,
               std::int64_t offset)
    : shape_(std::move(shape)), strides_(std::move(strides)), itemsize_(itemsize), offset_(offset) {
    if (shape_.size() != strides_.size())
        throw std::invalid_argument("layout: shape " + join(shape_) + " and strides " + join(strides_) +
                                    " have different lengths");
    if (itemsize_ <= 0)
        throw std::invalid_argument("layout: the element size must be positive, got " + std::to_string(itemsize_));
    if (element_count(shape_, itemsize_) > 0 && !reach(shape_, strides_, itemsize_, offset_))
        throw std::length_error("layout: " + describe() + " reaches bytes beyond 64-bit offsets");
}

std::int64_t layout::size() const noexcept {
    return std::accumulate(shape_.begin(), shape_.end(), std::int64_t{1}, std::multiplies<>());
}

bool layout::is_c_contiguous() const noexcept {
    if (size() == 0)
        return true;
    std::int64_t expected = itemsize_;
    for (std::size_t k = shape_.size(); k-- > 0;) {
        if (shape_[k] == 1)
            continue;  // the stride of a length-1 axis is never used
        if (strides_[k] != expected)
            return false;
        expected *= shape_[k];
    }
    return true;
}

bool layout::is_f_contiguous() const noexcept {
    if (size() == 0)
        return true;
    std::int64_t expected = itemsize_;
    for (std::size_t k = 0; k < shape_.size(); ++k) {
        if (shape_[k] == 1)
            continue;
        if (strides_[k] != expected)
            return false;
        expected *= shape_[k];
    }
    return true;
}

std::pair<std::int64_t, std::int64_t> layout::byte_extent() const noexcept {
    if (size() == 0)
        return {offset_, offset_};
    return *reach(shape_, strides_, itemsize_, offset_);  // the constructor checked it fits
}

layout layout::reshape(std::vector<std::int64_t> new_shape, order o) const {
    new_shape = resolved_shape(std::move(new_shape), size(), itemsize_);
    std::optional<std::vector<std::int64_t>> strides;
    if (size() == 0)
        strides = contiguous_strides(new_shape, itemsize_, o);
    else if (o == order::c)
        strides = view_strides_c(shape_, strides_, new_shape, itemsize_);
    else if (auto r = view_strides_c(reversed(shape_), reversed(strides_), reversed(new_shape), itemsize_))
        strides = reversed(*r);
    if (!strides)
        throw logic_error("reshape: an array of " + describe() + " cannot be viewed as shape " + join(new_shape) +
                          " in " + (o == order::c ? "C" : "F") + " order without a copy; copy it first");
    return layout(std::move(new_shape), std::move(*strides), itemsize_, offset_);
}

layout layout::ravel(order o) const {
    if (!(o == order::c ? is_c_contiguous() : is_f_contiguous()))
        throw logic_error(std::string("ravel: the array is not ") + (o == order::c ? "C" : "F") + "-contiguous (" +
                          describe() + "); copy it first");
    return reshape({size()}, o);
}

int layout::normalised_axis(int axis, const char* operation) const {
    const int n = ndim();
    if (axis < -n || axis >= n)
        throw std::out_of_range(std::string(operation) + ": axis " + std::to_string(axis) +
                                " is out of bounds for an array of dimension " + std::to_string(n));
    return axis < 0 ? axis + n : axis;
}

layout layout::transpose() const {
    std::vector<int> reversed(static_cast<std::size_t>(ndim()));
    std::iota(reversed.rbegin(), reversed.rend(), 0);
    return transpose(reversed);
}

layout layout::transpose(const std::vector<int>& axes) const {
    if (axes.size() != shape_.size())
        throw std::invalid_argument("transpose: got " + std::to_string(axes.size()) +
                                    " axes for an array of dimension " + std::to_string(ndim()));
    std::vector<bool> seen(shape_.size());
    std::vector<std::int64_t> shape, strides;
    for (int a : axes) {
        const auto axis = static_cast<std::size_t>(normalised_axis(a, "transpose"));
        if (seen[axis])
            throw std::invalid_argument("transpose: axis " + std::to_string(axis) + " is repeated");
        seen[axis] = true;
        shape.push_back(shape_[axis]);
        strides.push_back(strides_[axis]);
    }
    return layout(std::move(shape), std::move(strides), itemsize_, offset_);
}

layout layout::squeeze() const {
    std::vector<int> unit_axes;
    for (std::size_t k = 0; k < shape_.size(); ++k)
        if (shape_[k] == 1)
            unit_axes.push_back(static_cast<int>(k));
    return squeeze(unit_axes);
}

layout layout::squeeze(const std::vector<int>& axes) const {
    std::vector<bool> drop(shape_.size(), false);
    for (int a : axes) {
        const auto axis = static_cast<std::size_t>(normalised_axis(a, "squeeze"));
        if (drop[axis])
            throw std::invalid_argument("squeeze: axis " + std::to_string(axis) + " is repeated");
        drop[axis] = true;
    }
    for (std::size_t axis = 0; axis < shape_.size(); ++axis)
        if (drop[axis] && shape_[axis] != 1)
            throw std::invalid_argument("squeeze: axis " + std::to_string(axis) + " has length " +
                                        std::to_string(shape_[axis]) + ", only length-1 axes can be removed");
    std::vector<std::int64_t> shape, strides;
    for (std::size_t k = 0; k < shape_.size(); ++k)
        if (!drop[k]) {
            shape.push_back(shape_[k]);
            strides.push_back(strides_[k]);
        }
    return layout(std::move(shape), std::move(strides), itemsize_, offset_);
}

layout layout::index(const std::vector<index_item>& items) const {
    int consumed = 0, ellipses = 0;
    for (const index_item& item : items) {
        if (std::holds_alternative<std::int64_t>(item) || std::holds_alternative<slice>(item))
            ++consumed;
        else if (std::holds_alternative<ellipsis>(item))
            ++ellipses;
    }
    if (ellipses > 1)
        throw std::out_of_range("an index can only have a single ellipsis ('...')");
    if (consumed > ndim())
        throw std::out_of_range("too many indices: " + std::to_string(consumed) + " for an array of dimension " +
                                std::to_string(ndim()));

    std::vector<std::int64_t> shape, strides;
    std::int64_t offset = offset_;
    std::size_t axis = 0;
    auto keep_rest = [&](std::size_t count) {
        for (std::size_t k = 0; k < count; ++k, ++axis) {
            shape.push_back(shape_[axis]);
            strides.push_back(strides_[axis]);
        }
    };
    for (const index_item& item : items) {
        if (const auto* i = std::get_if<std::int64_t>(&item)) {
            const std::int64_t extent = shape_[axis];
            const std::int64_t position = *i < 0 ? *i + extent : *i;
            if (position < 0 || position >= extent)
                throw std::out_of_range("index " + std::to_string(*i) + " is out of bounds for axis " +
                                        std::to_string(axis) + " with size " + std::to_string(extent));
            offset = view_sum(offset, view_product(position, strides_[axis]));
            ++axis;
        } else if (const auto* s = std::get_if<slice>(&item)) {
            const std::int64_t extent = shape_[axis];
            const std::int64_t step = s->step.value_or(1);
            if (step == 0)
                throw std::invalid_argument("slice step cannot be zero");
            // Python's slice.indices(): clamp start and stop to the axis, by the step's sign.
            auto clamp = [&](std::optional<std::int64_t> v, std::int64_t when_missing) {
                if (!v)
                    return when_missing;
                std::int64_t x = *v < 0 ? *v + extent : *v;
                return step > 0 ? std::clamp<std::int64_t>(x, 0, extent) : std::clamp<std::int64_t>(x, -1, extent - 1);
            };
            const std::int64_t start = clamp(s->start, step > 0 ? 0 : extent - 1);
            const std::int64_t stop = clamp(s->stop, step > 0 ? extent : -1);
            const std::int64_t length = slice_length(start, stop, step);
            if (length > 0)
                offset = view_sum(offset, view_product(start, strides_[axis]));
            shape.push_back(length);
            // A stride is only used between two elements; a step as large as 2**63 leaves
            // at most one, and then the axis keeps its own stride instead of an overflow.
            strides.push_back(length > 1 ? view_product(strides_[axis], step) : strides_[axis]);
            ++axis;
        } else if (std::holds_alternative<new_axis>(item)) {
            shape.push_back(1);
            strides.push_back(0);  // numpy's stride for an inserted axis
        } else {
            keep_rest(static_cast<std::size_t>(ndim() - consumed));
        }
    }
    keep_rest(shape_.size() - axis);
    return layout(std::move(shape), std::move(strides), itemsize_, offset);
}

std::vector<layout> layout::split_at(const std::vector<std::int64_t>& indices, int a) const {
    const auto axis = static_cast<std::size_t>(normalised_axis(a, "split"));
    std::vector<layout> parts;
    parts.reserve(indices.size() + 1);
    // numpy.split: part k is [indices[k-1]:indices[k]] along the axis, from 0 and to the end,
    // each index taken as it is (not clamped or sorted first), as slicing takes it.
    std::optional<std::int64_t> begin = 0;
    for (std::size_t k = 0; k <= indices.size(); ++k) {
        const std::optional<std::int64_t> end = k < indices.size() ? std::optional(indices[k]) : std::nullopt;
        std::vector<index_item> items(axis, slice{});
        items.push_back(slice{begin, end, std::nullopt});
        parts.push_back(index(items));
        begin = end;
    }
    return parts;
}

std::vector<layout> layout::split(std::int64_t sections, int a) const {
    const auto axis = static_cast<std::size_t>(normalised_axis(a, "split"));
    const std::int64_t extent = shape_[axis];
    if (sections <= 0)
        throw std::invalid_argument("split: the number of sections must be positive, got " + std::to_string(sections));
    if (extent % sections != 0)
        throw std::invalid_argument("split: axis " + std::to_string(axis) + " of length " + std::to_string(extent) +
                                    " does not divide into " + std::to_string(sections) + " equal sections");
    // Only an empty axis divides into more sections than it has elements; a count no list
    // can hold is refused here rather than built one part at a time.
    if (static_cast<std::uint64_t>(sections) > std::vector<layout>().max_size())
        throw std::length_error("split: " + std::to_string(sections) + " sections are more than a list can hold");
    std::vector<std::int64_t> indices;
    indices.reserve(static_cast<std::size_t>(sections - 1));
    const std::int64_t part = extent / sections;
    for (std::int64_t k = 1; k < sections; ++k)
        indices.push_back(k * part);
    return split_at(indices, a);
}

layout layout::broadcast_to(const std::vector<std::int64_t>& shape) const {
    check_extents(shape);
    const auto refuse = [&] {
        return std::invalid_argument("cannot broadcast an array of shape " + join(shape_, ",") +
                                     " to the requested shape " + join(shape, ","));
    };
    if (shape.size() < shape_.size())
        throw refuse();
    // Axis k of the view is axis k - added of this layout, where one exists. As numpy, every
    // length-1 axis gets stride 0, stretched or not (its stride is never used when it is not).
    const std::size_t added = shape.size() - shape_.size();
    std::vector<std::int64_t> strides(shape.size(), 0);
    for (std::size_t k = added; k < shape.size(); ++k) {
        const std::int64_t extent = shape_[k - added];
        if (extent == 1)
            continue;
        if (extent != shape[k])
            throw refuse();
        strides[k] = strides_[k - added];
    }
    return layout(shape, std::move(strides), itemsize_, offset_);
}

std::vector<std::int64_t> broadcast_shapes(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
    check_extents(a);
    check_extents(b);
    const bool a_longer = a.size() >= b.size();
    const std::vector<std::int64_t>& longer = a_longer ? a : b;
    const std::vector<std::int64_t>& shorter = a_longer ? b : a;
    std::vector<std::int64_t> result = longer;
    const std::size_t added = longer.size() - shorter.size();
    for (std::size_t k = 0; k < shorter.size(); ++k) {
        std::int64_t& extent = result[added + k];
        if (shorter[k] == extent || shorter[k] == 1)
            continue;
        if (extent != 1)
            throw std::invalid_argument("operands could not be broadcast together with shapes " + join(a, ",") + " " +
                                        join(b, ","));
        extent = shorter[k];
    }
    return result;
}

std::string layout::describe() const {
    return "shape " + join(shape_) + ", strides " + join(strides_) + ", itemsize " + std::to_string(itemsize_) +
           ", offset " + std::to_string(offset_);
}

}  // namespace gpukit
