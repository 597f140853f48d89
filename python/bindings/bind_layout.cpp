// gpukit._gpukit.Layout: the n-d view arithmetic shared by gpukit's array types.
#include "bindings.hpp"

#include "gpukit/core/layout.hpp"

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace gpukit::python {

using namespace nb::literals;

namespace {

order parse_order(const std::string& o) {
    if (o == "C" || o == "c")
        return order::c;
    if (o == "F" || o == "f")
        return order::f;
    throw nb::value_error(("order must be 'C' or 'F', got '" + o + "'").c_str());
}

std::optional<std::int64_t> optional_int(nb::handle h) {
    if (h.is_none())
        return std::nullopt;
    return nb::cast<std::int64_t>(h);
}

// A Python index (an int, slice, None, Ellipsis or a tuple of them) as layout index items.
std::vector<index_item> index_items(nb::handle key) {
    std::vector<index_item> items;
    auto add = [&](nb::handle k) {
        if (k.is_none()) {
            items.emplace_back(new_axis{});
        } else if (k.ptr() == Py_Ellipsis) {
            items.emplace_back(ellipsis{});
        } else if (PySlice_Check(k.ptr())) {
            items.emplace_back(slice{optional_int(k.attr("start")), optional_int(k.attr("stop")),
                                     optional_int(k.attr("step"))});
        } else if (PyIndex_Check(k.ptr()) && !PyBool_Check(k.ptr())) {
            items.emplace_back(nb::cast<std::int64_t>(nb::int_(k)));
        } else {
            throw nb::index_error(("only integers, slices, None and ... are valid indices, got " +
                                   std::string(nb::str(nb::handle(k.type())).c_str()))
                                      .c_str());
        }
    };
    if (nb::isinstance<nb::tuple>(key))
        for (nb::handle k : nb::cast<nb::tuple>(key))
            add(k);
    else
        add(key);
    return items;
}

}  // namespace

void bind_layout(nb::module_& m) {
    nb::class_<layout>(m, "Layout", "Shape, byte strides, element size and offset of an n-d array view.")
        .def(nb::init<std::vector<std::int64_t>, std::vector<std::int64_t>, std::int64_t, std::int64_t>(), "shape"_a,
             "strides"_a, "itemsize"_a, "offset"_a = 0)
        .def_static("contiguous", [](std::vector<std::int64_t> shape, std::int64_t itemsize, const std::string& o) {
            return layout::contiguous(std::move(shape), itemsize, parse_order(o));
        }, "shape"_a, "itemsize"_a, "order"_a = "C")
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
        .def("reshape", [](const layout& l, std::vector<std::int64_t> shape, const std::string& o) {
            return l.reshape(std::move(shape), parse_order(o));
        }, "shape"_a, "order"_a = "C")
        .def("ravel", [](const layout& l, const std::string& o) { return l.ravel(parse_order(o)); }, "order"_a = "C")
        .def("transpose", &layout::transpose, "axes"_a = std::vector<int>{})
        .def("squeeze", &layout::squeeze, "axes"_a = std::vector<int>{})
        .def("__getitem__", [](const layout& l, nb::handle key) { return l.index(index_items(key)); }, "key"_a.none())
        .def("split", &layout::split, "sections"_a, "axis"_a = 0)
        .def("split_at", &layout::split_at, "indices"_a, "axis"_a = 0)
        .def("__eq__", [](const layout& a, const layout& b) { return a == b; })
        .def("__repr__", [](const layout& l) { return "Layout(" + l.describe() + ")"; });
}

}  // namespace gpukit::python
