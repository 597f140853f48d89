// gpukit._gpukit.Layout: the n-d view arithmetic shared by gpukit's array types.
//
// Python's integers are unbounded and gpukit::layout's are 64-bit: the conversions here say
// which argument is wrong as numpy would (TypeError for a non-integer, ValueError for an
// extent beyond 64 bits, IndexError for an index), and clamp slice bounds and split indices,
// whose meaning does not change beyond the axis.
#include "common/layout_args.hpp"
#include "common/object_text.hpp"
#include "common/stub_types.hpp"

#include "gpukit/core/layout.hpp"

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <limits>
#include <type_traits>

namespace gpukit::python {

using namespace nb::literals;

order parse_order(const std::string& o) {
    if (o == "C" || o == "c")
        return order::c;
    if (o == "F" || o == "f")
        return order::f;
    throw nb::value_error(("order must be 'C' or 'F', got '" + o + "'").c_str());
}

namespace {

// The items of `value`: one integer, or a sequence (numpy takes both for shapes and axes).
std::vector<nb::handle> items_of(nb::handle value, const char* what, nb::list& keep) {
    if (PyIndex_Check(value.ptr()) && !PyBool_Check(value.ptr())) {
        nb::object index = nb::steal(PyNumber_Index(value.ptr()));
        if (index.is_valid()) {
            keep.append(index);
            return {index};
        }
        PyErr_Clear();  // a numpy array of several elements: a sequence, read below
    }
    if (!PySequence_Check(value.ptr()) || PyUnicode_Check(value.ptr()) || PyBytes_Check(value.ptr()))
        throw nb::type_error((std::string(what) + ": expected an integer or a sequence of integers, got " +
                              nb::cast<std::string>(nb::type_name(value.type())) + " " + repr_of(value))
                                 .c_str());
    keep = nb::steal<nb::list>(PySequence_List(value.ptr()));
    if (!keep.is_valid())
        nb::raise_python_error();
    return std::vector<nb::handle>(keep.begin(), keep.end());
}

// The items of `value` (see items_of), each converted by `convert(item, what)`.
template <class Convert>
auto converted_items(nb::handle value, const char* what, Convert convert) {
    nb::list keep;
    std::vector<std::invoke_result_t<Convert, nb::handle, const char*>> result;
    for (nb::handle item : items_of(value, what, keep))
        result.push_back(convert(item, what));
    return result;
}

// An extent of a shape: ValueError beyond 64 bits, in numpy's words.
std::int64_t extent_of(nb::handle value, const char* what) {
    const nb::int_ index = index_arg(value, what);
    if (const auto extent = int_value<std::int64_t>(index))
        return *extent;
    if (PyObject_RichCompareBool(index.ptr(), nb::int_(0).ptr(), Py_LT) == 1)
        throw std::invalid_argument(std::string(what) + ": negative dimensions are not allowed, got " + repr_of(index));
    throw std::invalid_argument(std::string(what) + ": maximum allowed dimension exceeded, got " + repr_of(index));
}

}  // namespace

std::vector<std::int64_t> shape_of(const shape_arg& shape, const char* what) {
    return converted_items(shape.object, what, extent_of);
}

namespace {

// A stride, offset or item size: any value that fits in 64 bits.
std::int64_t int64_of(nb::handle value, const char* what) {
    const nb::int_ index = index_arg(value, what);
    if (const auto result = int_value<std::int64_t>(index))
        return *result;
    throw std::invalid_argument(std::string(what) + ": " + repr_of(index) + " does not fit in 64 bits");
}

}  // namespace

std::vector<std::int64_t> strides_of(const int_sequence_arg& strides, const char* what) {
    return converted_items(strides.object, what, int64_of);
}

namespace {

// An axis number; beyond an int it is out of bounds for any array (IndexError, as numpy).
int axis_of(nb::handle value, const layout& l, const char* what) {
    const nb::int_ index = index_arg(value, what);
    if (const auto axis = int_value<int>(index))
        return *axis;
    throw std::out_of_range(std::string(what) + ": axis " + repr_of(index) +
                            " is out of bounds for an array of dimension " + std::to_string(l.ndim()));
}

}  // namespace

std::vector<int> axes_of(const shape_arg& axes, const layout& l, const char* what) {
    return converted_items(axes.object, what, [&l](nb::handle item, const char* w) { return axis_of(item, l, w); });
}

namespace {

bool is_boolean(nb::handle k) {
    if (PyBool_Check(k.ptr()))
        return true;
    // numpy's bool_ scalars and boolean arrays: masks, not positions
    if (!nb::hasattr(k, "dtype"))
        return false;
    nb::object kind = nb::getattr(k.attr("dtype"), "kind", nb::none());
    return nb::isinstance<nb::str>(kind) && nb::cast<std::string>(kind) == "b";
}

std::optional<std::int64_t> slice_bound(nb::handle bound) {
    if (bound.is_none())
        return std::nullopt;
    if (PyBool_Check(bound.ptr()))  // a Python bool is an int to slicing (numpy's bool_ is not)
        return bound.ptr() == Py_True ? 1 : 0;
    if (!PyIndex_Check(bound.ptr()))
        throw nb::type_error(
            ("slice indices must be integers or None or have an __index__ method, got " + repr_of(bound)).c_str());
    return clamped_int64(bound, "slice");
}

// One item of a basic index: an integer, slice, None or Ellipsis.
index_item index_item_of(nb::handle k) {
    if (k.is_none())
        return new_axis{};
    if (k.ptr() == Py_Ellipsis)
        return ellipsis{};
    if (PySlice_Check(k.ptr()))
        return slice{slice_bound(k.attr("start")), slice_bound(k.attr("stop")), slice_bound(k.attr("step"))};
    if (is_boolean(k))
        throw std::out_of_range(
            "boolean indices (masks) are advanced indexing, which gpukit arrays do not "
            "support; index with integers, slices, None and ...");
    if (PyIndex_Check(k.ptr())) {
        nb::object index = nb::steal(PyNumber_Index(k.ptr()));
        if (index.is_valid()) {
            if (const auto position = int_value<std::int64_t>(index))
                return *position;
            throw std::out_of_range("index " + repr_of(index) + " is out of bounds (beyond 64 bits)");
        }
        PyErr_Clear();  // an integer array: advanced indexing, refused below
    }
    throw std::out_of_range("only integers, slices, None and ... are valid indices, got " +
                            nb::cast<std::string>(nb::type_name(k.type())) +
                            " (lists and arrays as indices are advanced indexing, which gpukit arrays do not support)");
}

}  // namespace

std::vector<index_item> index_items(nb::handle key) {
    std::vector<index_item> items;
    if (nb::isinstance<nb::tuple>(key))
        for (nb::handle k : nb::cast<nb::tuple>(key))
            items.push_back(index_item_of(k));
    else
        items.push_back(index_item_of(key));
    return items;
}

void bind_layout(nb::module_& m) {
    nb::class_<layout>(m, "Layout", "Shape, byte strides, element size and offset of an n-d array view.")
        .def(
            "__init__",
            [](layout* self, shape_arg shape, int_sequence_arg strides, int_arg<std::int64_t> itemsize,
               int_arg<std::int64_t> offset) {
                new (self)
                    layout(shape_of(shape, "Layout(shape)"), strides_of(strides, "Layout(strides)"),
                           int64_of(itemsize.object, "Layout(itemsize)"), int64_of(offset.object, "Layout(offset)"));
            },
            "shape"_a.none(), "strides"_a.none(), "itemsize"_a.none(), "offset"_a.none() = 0)
        .def_static(
            "contiguous",
            [](shape_arg shape, int_arg<std::int64_t> itemsize, const std::string& o) {
                return layout::contiguous(shape_of(shape, "shape"), int64_of(itemsize.object, "itemsize"),
                                          parse_order(o));
            },
            "shape"_a.none(), "itemsize"_a.none(), "order"_a = "C")
        .def(
            "contiguous_like",
            [](const layout& l, int_arg<std::int64_t> itemsize) {
                return layout::contiguous_like(l, int64_of(itemsize.object, "itemsize"));
            },
            "itemsize"_a.none(), "A contiguous layout of this shape with elements in this layout's memory order.")
        .def_prop_ro("shape", [](const layout& l) { return l.shape(); })
        .def_prop_ro("strides", [](const layout& l) { return l.strides(); })
        .def_prop_ro("itemsize", &layout::itemsize)
        .def_prop_ro("offset", &layout::offset)
        .def_prop_ro("ndim", &layout::ndim)
        .def_prop_ro("size", &layout::size)
        .def_prop_ro("nbytes", &layout::nbytes)
        .def_prop_ro("is_c_contiguous", &layout::is_c_contiguous)
        .def_prop_ro("is_f_contiguous", &layout::is_f_contiguous)
        .def("byte_extent", &layout::byte_extent)
        .def(
            "reshape",
            [](const layout& l, shape_arg shape, const std::string& o) {
                return l.reshape(shape_of(shape, "reshape(shape)"), parse_order(o));
            },
            "shape"_a.none(), "order"_a = "C")
        .def(
            "ravel", [](const layout& l, const std::string& o) { return l.ravel(parse_order(o)); }, "order"_a = "C")
        .def(
            "transpose",
            [](const layout& l, or_none<shape_arg> axes) {
                return axes.object.is_none() ? l.transpose() : l.transpose(axes_of(axes, l, "transpose(axes)"));
            },
            "axes"_a.none() = nb::none(), "Axes reversed (None) or permuted, as numpy.transpose.")
        .def(
            "squeeze",
            [](const layout& l, or_none<shape_arg> axes) {
                return axes.object.is_none() ? l.squeeze() : l.squeeze(axes_of(axes, l, "squeeze(axes)"));
            },
            "axes"_a.none() = nb::none(), "Every length-1 axis removed (None), or the listed ones, as numpy.squeeze.")
        .def(
            "__getitem__", [](const layout& l, nb::handle key) { return l.index(index_items(key)); }, "key"_a.none())
        .def(
            "split",
            [](const layout& l, int_arg<std::int64_t> sections, int_arg<int> axis) {
                return l.split(clamped_int64(sections.object, "split(sections)"),
                               axis_of(axis.object, l, "split(axis)"));
            },
            "sections"_a.none(), "axis"_a.none() = 0)
        .def(
            "split_at",
            [](const layout& l, int_sequence_arg indices, int_arg<int> axis) {
                return l.split_at(converted_items(indices.object, "split_at(indices)", clamped_int64),
                                  axis_of(axis.object, l, "split_at(axis)"));
            },
            "indices"_a.none(), "axis"_a.none() = 0)
        .def(
            "broadcast_to",
            [](const layout& l, shape_arg shape) { return l.broadcast_to(shape_of(shape, "broadcast_to(shape)")); },
            "shape"_a.none(), "A view of the given shape, as numpy.broadcast_to (stride 0 where it stretches).")
        .def("__eq__", [](const layout& a, const layout& b) { return a == b; })
        .def("__repr__", [](const layout& l) { return "Layout(" + l.describe() + ")"; });

    m.def(
        "broadcast_shapes",
        [](shape_arg a, shape_arg b) -> int_tuple_type {
            const auto shape = broadcast_shapes(shape_of(a, "broadcast_shapes(a)"), shape_of(b, "broadcast_shapes(b)"));
            return nb::tuple(nb::cast(shape));
        },
        "a"_a.none(), "b"_a.none(), "The shape two arrays broadcast to, as numpy.broadcast_shapes(a, b).");
}

}  // namespace gpukit::python
