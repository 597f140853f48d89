// gpukit._gpukit._Array, the C++ base class of gpukit.gpuarray.GPUArray (array_object.hpp):
// attributes, views, copies and operators. Python subclasses add PyCUDA's and numba's
// names and defaults; everything on an operator's path is here.
#include "array/array_fusion.hpp"
#include "array/array_object.hpp"
#include "array/array_operators.hpp"
#include "common/int_args.hpp"
#include "common/layout_args.hpp"
#include "common/memory_args.hpp"
#include "common/stub_types.hpp"

#include "gpukit/array/element_copy.hpp"
#include "gpukit/array/views.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/copy.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <string>

namespace gpukit::python {

using namespace nb::literals;

namespace {

using self_arg = nb::pointer_and_handle<array_object>;

// The extents of a shape given as Python ints or a tuple of them (the common case, read
// without building a list); nullopt for anything else, which shape_of() then converts.
std::optional<std::vector<std::int64_t>> small_shape(nb::handle shape) {
    const auto extent = [](PyObject* item) -> std::optional<std::int64_t> {
        if (!PyLong_CheckExact(item))
            return std::nullopt;
        int overflow = 0;
        const long long v = PyLong_AsLongLongAndOverflow(item, &overflow);
        if (overflow || v < -1)  // -1: the extent reshape works out
            return std::nullopt;
        return v;
    };
    std::vector<std::int64_t> extents;
    if (PyTuple_CheckExact(shape.ptr())) {
        const Py_ssize_t n = PyTuple_GET_SIZE(shape.ptr());
        extents.reserve(static_cast<std::size_t>(n));
        for (Py_ssize_t k = 0; k < n; ++k) {
            const auto e = extent(PyTuple_GET_ITEM(shape.ptr(), k));
            if (!e)
                return std::nullopt;
            extents.push_back(*e);
        }
        return extents;
    }
    if (const auto e = extent(shape.ptr()))
        return std::vector<std::int64_t>{*e};
    return std::nullopt;
}

cuda::stream_view stream_or_own(nb::handle stream, const array_object& a) {
    return stream.is_none() ? stream_of(a) : stream_arg(stream);
}

// A new array of layout `l` holding a copy of the elements `from` (of a's dtype, any dtype),
// with a's allocator and stream: one device-to-device copy when the layouts allow it, else a
// kernel.
nb::object copied(const array_object& a, const array::element_array& from, const gpukit::layout& l,
                  cuda::stream_view stream) {
    nb::object out = new_array(l, a.dtype, a.allocator, a.stream);
    const array::element_array to = as_elements(*nb::inst_ptr<array_object>(out));
    release_gil unlocked;
    array::copy_elements(to, from, stream);
    return out;
}

// A copy keeping the order of a's axes (numpy's order 'K'): a C- or F-contiguous array's copy
// is too, a transposed one's is transposed.
nb::object copy_of(nb::handle self, nb::handle stream_object) {
    array_object& a = settled(self);
    return copied(a, as_elements(a), gpukit::layout::contiguous_like(a.layout, a.layout.itemsize()),
                  stream_or_own(stream_object, a));
}

// ---- attribute_setters: PyCUDA's plain attributes, assignable with numpy's meaning

// numpy's `a.shape = s`: the same elements seen with another shape, without copying
// (AttributeError, as numpy's, when no view of the layout has that shape).
void set_shape(self_arg self, nb::handle value) {
    array_object& a = settled(self.h);
    const std::vector<std::int64_t> extents = shape_of(shape_arg{value}, "shape");
    try {
        a.layout = a.layout.reshape(extents, order::c);
    } catch (const logic_error&) {
        throw nb::attribute_error(("Incompatible shape " + shape_text(extents) +
                                   " for in-place modification of an "
                                   "array of " +
                                   a.layout.describe() +
                                   ". Use `.reshape()` to make a copy with the "
                                   "desired shape.")
                                      .c_str());
    }
}

// numpy's `a.strides = t`: the same memory walked with other byte strides, one per axis.
void set_strides(self_arg self, nb::handle value) {
    array_object& a = settled(self.h);
    std::vector<std::int64_t> strides = strides_of(int_sequence_arg{value}, "strides");
    if (static_cast<int>(strides.size()) != a.layout.ndim())
        throw nb::value_error(("strides " + shape_text(strides) + " must have one stride per axis of shape " +
                               shape_text(a.layout.shape()))
                                  .c_str());
    a.layout = gpukit::layout(a.layout.shape(), std::move(strides), a.layout.itemsize(), a.layout.offset());
}

// numpy's `a.dtype = d`: the same bytes read as another type (of another size, the last axis,
// which must be contiguous, holds more or fewer elements).
void set_dtype(self_arg self, nb::handle value) {
    array_object& a = settled(self.h);
    nb::object to = as_numpy_dtype(value);
    const std::optional<array::dtype> type = kernel_type(to);  // may refuse `to`: before anything changes
    a.layout = array::with_itemsize(a.layout, nb::cast<std::int64_t>(to.attr("itemsize")));
    a.type = type;
    a.dtype = std::move(to);
}

nb::object gpudata_of(self_arg self) {
    const array_object& a = settled(self.h);
    // PyCUDA's views hold int(gpudata) + offset: the address of their element 0.
    if (a.layout.offset() != 0)
        return nb::int_(static_cast<std::uint64_t>(a.data()));
    return a.gpudata;
}

// PyCUDA's `a.gpudata = memory`: element 0 is now at int(memory) (None: no memory, for an
// empty array), which the array keeps alive.
void set_gpudata(self_arg self, nb::object memory) {
    array_object& a = settled(self.h);
    CUdeviceptr address = 0;
    if (!memory.is_none()) {
        if (PyFloat_Check(memory.ptr()) || (!nb::hasattr(memory, "__int__") && !nb::hasattr(memory, "__index__")))
            throw nb::type_error(("gpudata must be device memory (an allocation or an int address) or None, got " +
                                  std::string(nb::type_name(memory.type()).c_str()))
                                     .c_str());
        address = integer_arg<std::uint64_t>(nb::int_(memory), "gpudata");
    } else if (a.layout.size() != 0) {
        throw nb::value_error(("gpudata=None leaves an array of " + a.layout.describe() + " without memory").c_str());
    }
    a.layout = gpukit::layout(a.layout.shape(), a.layout.strides(), a.layout.itemsize(), 0);
    a.address = address;
    a.gpudata = std::move(memory);
}

// PyCUDA calls the allocator with a byte count for the arrays made like this one.
void set_allocator(array_object& a, nb::object allocator) {
    if (!allocator.is_none() && !PyCallable_Check(allocator.ptr()))
        throw nb::type_error(("allocator must be callable with a byte count (or None for the default pool), got " +
                              std::string(nb::type_name(allocator.type()).c_str()))
                                 .c_str());
    a.allocator = std::move(allocator);
}

// A count PyCUDA keeps as a plain attribute: the value assigned to `name`, else `computed`.
nb::object count_or_assigned(const array_object& a, const char* name, std::int64_t computed) {
    if (a.assigned.is_valid()) {
        if (PyObject* v = PyDict_GetItemString(a.assigned.ptr(), name))
            return nb::borrow(v);
    }
    return nb::int_(computed);
}

void assign_count(array_object& a, const char* name, nb::object value) {
    if (!a.assigned.is_valid())
        a.assigned = nb::dict();
    nb::borrow<nb::dict>(a.assigned)[name] = std::move(value);
}

template <array::binary_op op>
void def_binary(nb::class_<array_object>& cls, const char* name, const char* reflected_name,
                const char* in_place_name) {
    cls.def(
        name, [](self_arg self, nb::handle other) { return binary_operator(op, self.h, other, false); },
        "other"_a.none());
    if (reflected_name)
        cls.def(
            reflected_name, [](self_arg self, nb::handle other) { return binary_operator(op, self.h, other, true); },
            "other"_a.none());
    if (in_place_name)
        cls.def(
            in_place_name, [](self_arg self, nb::handle other) { return in_place_operator(op, self.h, other); },
            "other"_a.none());
}

}  // namespace

namespace {

// The garbage collector's view of an _Array: the Python objects its C++ members hold. Without
// it a cycle through an array (an allocator or base that refers back to it, an array kept in
// its own pending expression's operands) is invisible to the collector and lives to exit.
int array_traverse(PyObject* self, visitproc visit, void* arg) {
    Py_VISIT(Py_TYPE(self));    // a heap type's instances hold their type
    if (!nb::inst_ready(self))  // traversed before __init__ finished: nothing held yet
        return 0;
    const array_object& a = *nb::inst_ptr<array_object>(self);
    for (const nb::object* held : {&a.dtype, &a.gpudata, &a.base, &a.allocator, &a.stream, &a.assigned})
        Py_VISIT(held->ptr());
    if (a.pending)
        for (const expression_operand& operand : a.pending->operands)
            if (operand.array)
                Py_VISIT(operand.array->ptr());
    return 0;
}

// Breaks a cycle the collector found: the members become None (never null, so a method
// called on the array later raises instead of crashing); a pending array loses its operands
// and with them its value, so it is left unevaluated only when it is garbage anyway.
int array_clear(PyObject* self) {
    if (!nb::inst_ready(self))
        return 0;
    array_object& a = *nb::inst_ptr<array_object>(self);
    for (nb::object* held : {&a.dtype, &a.gpudata, &a.base, &a.allocator, &a.stream})
        *held = nb::none();
    a.assigned.reset();
    a.pending.reset();
    return 0;
}

PyType_Slot array_slots[] = {{Py_tp_traverse, reinterpret_cast<void*>(array_traverse)},
                             {Py_tp_clear, reinterpret_cast<void*>(array_clear)},
                             {0, nullptr}};

}  // namespace

void bind_gpuarray(nb::module_& m) {
    auto cls = nb::class_<array_object>(m, "_Array", nb::is_weak_referenceable(), nb::type_slots(array_slots),
                                        "The C++ array behind GPUArray: layout, dtype, memory, operators.");
    cls.def(
        "__init__",
        [](array_object* self, const gpukit::layout& l, nb::handle dtype, nb::object allocator, nb::object base,
           nb::object gpudata, nb::object stream) {
            array_object a;
            a.dtype = as_numpy_dtype(dtype);
            a.type = kernel_type(a.dtype);
            const auto itemsize = nb::cast<std::int64_t>(a.dtype.attr("itemsize"));
            if (itemsize != l.itemsize())
                throw nb::value_error(("_Array: the layout's itemsize " + std::to_string(l.itemsize()) +
                                       " differs from the dtype's " + std::to_string(itemsize))
                                          .c_str());
            (void)stream_arg(stream);  // a TypeError now rather than at the first kernel
            a.layout = l;
            a.allocator = std::move(allocator);
            a.base = std::move(base);
            a.stream = std::move(stream);
            if (gpudata.is_none())
                allocate(a);
            else {
                a.gpudata = gpudata;
                a.address = integer_arg<std::uint64_t>(nb::int_(gpudata), "GPUArray(gpudata)");
            }
            new (self) array_object(std::move(a));
        },
        "layout"_a, "dtype"_a, "allocator"_a.none() = nb::none(), "base"_a.none() = nb::none(),
        "gpudata"_a.none() = nb::none(), "stream"_a.none() = nb::none());

    // PyCUDA's GPUArray keeps these as plain attributes that libraries assign; here each
    // assignment keeps the array consistent (attribute_setters above).
    cls.def_prop_rw(
           "shape", [](const array_object& a) { return as_int_tuple(a.layout.shape()); }, &set_shape,
           nb::for_setter(nb::arg("shape").none()))
        .def_prop_rw(
            "strides", [](const array_object& a) { return as_int_tuple(a.layout.strides()); }, &set_strides,
            nb::for_setter(nb::arg("strides").none()))
        .def_prop_rw(
            "dtype", [](const array_object& a) { return a.dtype; }, &set_dtype, nb::for_setter(nb::arg("dtype").none()))
        .def_prop_rw(
            "size", [](const array_object& a) { return count_or_assigned(a, "size", a.layout.size()); },
            [](array_object& a, nb::object v) { assign_count(a, "size", std::move(v)); },
            nb::for_setter(nb::arg("size").none()))
        .def_prop_rw(
            "mem_size", [](const array_object& a) { return count_or_assigned(a, "mem_size", a.layout.size()); },
            [](array_object& a, nb::object v) { assign_count(a, "mem_size", std::move(v)); },
            nb::for_setter(nb::arg("mem_size").none()))
        .def_prop_rw(
            "nbytes", [](const array_object& a) { return count_or_assigned(a, "nbytes", a.layout.nbytes()); },
            [](array_object& a, nb::object v) { assign_count(a, "nbytes", std::move(v)); },
            nb::for_setter(nb::arg("nbytes").none()))
        .def_prop_rw(
            "itemsize", [](const array_object& a) { return count_or_assigned(a, "itemsize", a.layout.itemsize()); },
            [](array_object& a, nb::object v) { assign_count(a, "itemsize", std::move(v)); },
            nb::for_setter(nb::arg("itemsize").none()))
        .def_prop_ro("ndim", [](const array_object& a) { return a.layout.ndim(); })
        .def_prop_ro("_layout", [](const array_object& a) { return a.layout; })
        .def_prop_ro(
            "_pending", [](const array_object& a) { return a.pending != nullptr; },
            "Whether the array is a fused result not computed yet.")
        .def_prop_rw("gpudata", &gpudata_of, &set_gpudata, nb::for_setter(nb::arg("gpudata").none()),
                     "The device memory: an allocation, or (for a view that starts elsewhere) the address of "
                     "element 0 as an int, as PyCUDA gives it; int(gpudata) is element 0's address.")
        .def_prop_rw(
            "base", [](self_arg self) { return settled(self.h).base; },
            [](array_object& a, nb::object base) { a.base = std::move(base); }, nb::for_setter(nb::arg("base").none()))
        .def_prop_rw(
            "allocator", [](const array_object& a) { return a.allocator; }, &set_allocator,
            nb::for_setter(nb::arg("allocator").none()))
        .def_prop_rw(
            "stream", [](const array_object& a) { return a.stream; },
            [](array_object& a, nb::object stream) {
                (void)stream_arg(stream);
                a.stream = std::move(stream);
            },
            nb::for_setter(nb::arg("stream").none()))
        .def_prop_ro(
            "ptr", [](self_arg self) { return static_cast<std::uint64_t>(settled(self.h).data()); },
            "The device address of element [0, ..., 0].")
        .def("__len__", [](const array_object& a) {
            if (a.layout.ndim() == 0)
                throw nb::type_error("len() of a 0-d GPUArray");
            return a.layout.shape()[0];
        });

    cls.def(
        "_view",
        [](self_arg self, const gpukit::layout& l, nb::handle dtype, nb::handle view_class) {
            array_object& a = settled(self.h);
            return view_of(self.h, a, l, dtype.is_none() ? dtype : nb::handle(as_numpy_dtype(dtype)), view_class);
        },
        "layout"_a, "dtype"_a.none() = nb::none(), "cls"_a.none() = nb::none(),
        "The same memory through another layout (and dtype), as class cls (default: this array's).");
    cls.def(
        "__getitem__",
        [](self_arg self, nb::handle key) {
            array_object& a = settled(self.h);
            return view_of(self.h, a, a.layout.index(index_items(key)), nb::none(), nb::none());
        },
        "key"_a.none());
    cls.def(
        "reshape",
        [](self_arg self, nb::args shape, const std::string& order) {
            array_object& a = settled(self.h);
            // reshape(2, 3) or reshape((2, 3))
            const shape_arg requested{shape.size() == 1 ? shape[0] : nb::handle(shape)};
            const gpukit::order o = parse_order(order);
            std::optional<std::vector<std::int64_t>> fast = small_shape(requested.object);
            const std::vector<std::int64_t> extents = fast ? std::move(*fast) : shape_of(requested, "reshape(shape)");
            try {
                const gpukit::layout view = a.layout.reshape(extents, o);
                // A contiguous array comes out contiguous in the order asked for, as PyCUDA's
                // does (its test_reshape checks the flags): numpy's view would keep the other
                // order when the shape does not change, so that case copies (same elements).
                const bool in_order = o == gpukit::order::c ? view.is_c_contiguous() : view.is_f_contiguous();
                if (in_order || !a.layout.is_contiguous())
                    return view_of(self.h, a, view, nb::none(), nb::none());
            } catch (const logic_error&) {
                // Not expressible as a view of this layout: numpy copies, so do we (a bad shape
                // is a ValueError, raised above before any copy).
            }
            // The copy is contiguous in the order the elements are read, so the new shape is a
            // view of it.
            nb::object copy =
                copied(a, as_elements(a), gpukit::layout::contiguous(a.layout.shape(), a.layout.itemsize(), o),
                       stream_of(a));
            array_object& c = *nb::inst_ptr<array_object>(copy);
            return view_of(copy, c, c.layout.reshape(extents, o), nb::none(), nb::none());
        },
        "shape"_a, "order"_a = "C",
        // nanobind's own signature, with the type of *shape, which it does not render, and the
        // class of the result (this array's: a GPUArray).
        nb::sig("def reshape(self, *shape: typing.SupportsIndex | collections.abc.Sequence[typing.SupportsIndex], "
                "order: str = 'C') -> gpukit.gpuarray.GPUArray"));
    cls.def(
        "copy", [](self_arg self, nb::handle stream) { return copy_of(self.h, stream); },
        "stream"_a.none() = nb::none(),
        "A copy whose axes keep their order (numpy's order 'K'): one device-to-device copy for a C-, "
        "F-contiguous or transposed array, a kernel for strided views.");
    cls.def(
        "view",
        [](self_arg self, nb::handle dtype) {
            array_object& a = settled(self.h);
            if (dtype.is_none())
                return view_of(self.h, a, a.layout, nb::none(), nb::none());
            const nb::object to = as_numpy_dtype(dtype);
            return view_of(self.h, a, array::with_itemsize(a.layout, nb::cast<std::int64_t>(to.attr("itemsize"))), to,
                           nb::none());
        },
        "dtype"_a.none() = nb::none(),
        "The same memory seen as `dtype`: of another item size, the last axis (which must be contiguous) "
        "holds more or fewer elements, as numpy's view does.");
    cls.def(
        "_empty_like",
        [](self_arg self, nb::handle dtype, const std::string& order_name) {
            array_object& a = settled(self.h);
            const nb::object to = dtype.is_none() ? a.dtype : as_numpy_dtype(dtype);
            const auto itemsize = nb::cast<std::int64_t>(to.attr("itemsize"));
            gpukit::layout l;
            if (order_name == "K" || order_name == "k")
                l = gpukit::layout::contiguous_like(a.layout, itemsize);
            else if (order_name == "A" || order_name == "a")
                l = gpukit::layout::contiguous(a.layout.shape(), itemsize,
                                               a.layout.is_f_contiguous() && !a.layout.is_c_contiguous() ? order::f
                                                                                                         : order::c);
            else if (order_name == "C" || order_name == "c" || order_name == "F" || order_name == "f")
                l = gpukit::layout::contiguous(a.layout.shape(), itemsize, parse_order(order_name));
            else
                throw nb::value_error(
                    ("order must be one of 'C', 'F', 'A', or 'K' (got '" + order_name + "')").c_str());
            return new_array(l, to, a.allocator, a.stream);
        },
        "dtype"_a.none() = nb::none(), "order"_a = "K",
        "A new uninitialised array of this shape (numpy's empty_like): order 'C', 'F', 'A' or 'K'.");
    cls.def(
        "_assign_elements",
        [](self_arg self, nb::handle source, nb::handle stream) {
            array_object& a = settled(self.h);
            if (!nb::isinstance<array_object>(source))
                throw nb::type_error("_assign_elements: the source must be a GPUArray");
            array_object& b = settled(source);
            if (a.layout.shape() != b.layout.shape() || !a.dtype.equal(b.dtype))
                throw nb::value_error(("_assign_elements: the source (" + b.layout.describe() + ", " +
                                       nb::cast<std::string>(nb::str(b.dtype)) + ") differs from the target (" +
                                       a.layout.describe() + ", " + nb::cast<std::string>(nb::str(a.dtype)) + ")")
                                          .c_str());
            const array::element_array to = as_elements(a), from = as_elements(b);
            const cuda::stream_view s = stream_or_own(stream, a);
            release_gil unlocked;
            array::copy_elements(to, from, s);
        },
        "source"_a, "stream"_a.none() = nb::none(),
        "self[...] = source for one shape and dtype (any dtype): a device-to-device copy or a kernel.");
    cls.def(
        "reverse",
        [](self_arg self, nb::handle stream) {
            array_object& a = settled(self.h);
            // Reversing the elements in C (or F) order reverses every axis.
            const std::vector<index_item> every_axis_reversed(static_cast<std::size_t>(a.layout.ndim()),
                                                              index_item{
                                                                  gpukit::slice{std::nullopt, std::nullopt, -1}});
            const gpukit::layout reversed_layout = a.layout.index(every_axis_reversed);
            const array::element_array reversed{a.data() + static_cast<CUdeviceptr>(reversed_layout.offset() -
                                                                                    a.layout.offset()),
                                                reversed_layout};
            const cuda::stream_view s = stream_or_own(stream, a);
            if (makes_own_results(self.h.type()) || !a.type)
                return copied(a, reversed, gpukit::layout::contiguous_like(a.layout, a.layout.itemsize()), s);
            // PyCUDA asks a subclass for the reversed array.
            nb::object out = new_result(self.h, a.layout.shape(), *a.type);
            const array::element_array to = as_elements(*nb::inst_ptr<array_object>(out));
            release_gil unlocked;
            array::copy_elements(to, reversed, s);
            return out;
        },
        "stream"_a.none() = nb::none(),
        "A new array with the elements in reverse order (every axis reversed), in this array's order of axes.");
    cls.def(
        "_converted",
        [](self_arg self, nb::handle dtype, nb::handle stream) {
            array_object& a = settled(self.h);
            const nb::object to_dtype = as_numpy_dtype(dtype);
            const std::optional<array::dtype> to = kernel_type(to_dtype);
            require_kernel_type(a, "astype");
            if (!to)
                throw nb::type_error(("astype: dtype " + nb::cast<std::string>(nb::str(to_dtype)) +
                                      " has no GPU kernels; supported are bool, int8..int64, uint8..uint64, float32, "
                                      "float64, complex64 and complex128")
                                         .c_str());
            const cuda::stream_view s = stream_or_own(stream, a);
            if (makes_own_results(self.h.type()) || to == a.type)
                return converted(a, *to, s);
            // PyCUDA asks a subclass for the converted array (to the same dtype it copies).
            nb::object out = new_result(self.h, a.layout.shape(), *to);
            convert_into(a, *nb::inst_ptr<array_object>(out), s);
            return out;
        },
        "dtype"_a, "stream"_a.none() = nb::none(),
        "A C-contiguous copy converted to dtype (astype without the warning).");
    cls.def(
        "_fill_bytes",
        [](self_arg self, nb::bytes value, nb::handle stream) {
            array_object& a = settled(self.h);
            const cuda::stream_view s = stream_or_own(stream, a);
            if (static_cast<std::int64_t>(value.size()) != a.layout.itemsize())
                throw nb::value_error(("_fill_bytes: a value of " + std::to_string(value.size()) + " bytes for " +
                                       std::to_string(a.layout.itemsize()) + "-byte elements")
                                          .c_str());
            if (a.type) {
                array::scalar_value v;
                std::memcpy(v.bytes.data(), value.c_str(), value.size());
                v.size = value.size();
                fill(a, v, s);
                return;
            }
            // Records, vector types and other dtypes without kernels: the value's bytes as words.
            const array::element_array target = as_elements(a);
            const auto* bytes = static_cast<const std::byte*>(value.data());
            release_gil unlocked;
            array::fill_elements(target, std::span(bytes, value.size()), s);
        },
        "value"_a, "stream"_a.none() = nb::none(), "Every element set to value (its bytes in the array's type).");
    cls.def(
        "_arange",
        [](self_arg self, nb::bytes start, nb::bytes step) {
            array_object& a = settled(self.h);
            const array::dtype t = require_kernel_type(a, "arange");
            if (start.size() != array::size_of(t) || step.size() != array::size_of(t))
                throw nb::value_error("_arange: start and step must be values of the array's type");
            array::elementwise_arg args[] = {array::scalar_value{}, array::scalar_value{}, as_ndarray(a)};
            for (auto [k, value] : {std::pair{0, start}, std::pair{1, step}}) {
                auto& v = std::get<array::scalar_value>(args[k]);
                std::memcpy(v.bytes.data(), value.c_str(), value.size());
                v.size = value.size();
            }
            const cuda::stream_view stream = stream_of(a);
            release_gil unlocked;
            array::run(array::arange_spec(t), args, stream);
        },
        "start"_a, "step"_a, "Element i set to start + i * step (values' bytes in the array's type).");
    cls.def(
        "_assign_from",
        [](self_arg self, nb::handle source, nb::handle stream) {
            if (!nb::isinstance<array_object>(source))
                throw nb::type_error("_assign_from: the source must be a GPUArray");
            assign(self.h, source, stream_or_own(stream, settled(self.h)));
        },
        "source"_a, "stream"_a.none() = nb::none(), "self[...] = source, converting and broadcasting.");

    def_binary<array::binary_op::add>(cls, "__add__", "__radd__", "__iadd__");
    def_binary<array::binary_op::subtract>(cls, "__sub__", "__rsub__", "__isub__");
    def_binary<array::binary_op::multiply>(cls, "__mul__", "__rmul__", "__imul__");
    def_binary<array::binary_op::true_divide>(cls, "__truediv__", "__rtruediv__", "__itruediv__");
    def_binary<array::binary_op::power>(cls, "__pow__", "__rpow__", "__ipow__");
    def_binary<array::binary_op::bitwise_and>(cls, "__and__", "__rand__", "__iand__");
    def_binary<array::binary_op::bitwise_or>(cls, "__or__", "__ror__", "__ior__");
    def_binary<array::binary_op::bitwise_xor>(cls, "__xor__", "__rxor__", "__ixor__");
    def_binary<array::binary_op::equal>(cls, "__eq__", nullptr, nullptr);
    def_binary<array::binary_op::not_equal>(cls, "__ne__", nullptr, nullptr);
    def_binary<array::binary_op::less>(cls, "__lt__", nullptr, nullptr);
    def_binary<array::binary_op::less_equal>(cls, "__le__", nullptr, nullptr);
    def_binary<array::binary_op::greater>(cls, "__gt__", nullptr, nullptr);
    def_binary<array::binary_op::greater_equal>(cls, "__ge__", nullptr, nullptr);
    cls.def("__neg__", [](self_arg self) { return unary_operator(array::unary_op::negative, self.h); });
    cls.def("__abs__", [](self_arg self) { return unary_operator(array::unary_op::absolute, self.h); });
    cls.def("__invert__", [](self_arg self) { return unary_operator(array::unary_op::invert, self.h); });

    m.def("_operator_kernel_launches", &operator_kernel_launches,
          "How many kernels GPUArray operators, fills and conversions have run (for tests).");
    m.def(
        "_operator_spec",
        [](const std::string& symbol, nb::handle left, nb::handle right) {
            const std::optional<array::binary_op> op = array::binary_op_from_symbol(symbol);
            if (!op)
                throw nb::value_error(("_operator_spec: unknown operator '" + symbol + "'").c_str());
            return &operator_spec(*op, left, right);
        },
        "symbol"_a, "left"_a, "right"_a, nb::rv_policy::reference,
        "The _ElementwiseSpec of `left <symbol> right` (each a dtype name or a scalar), not run.");
    m.def("_set_array_result_class", &set_result_class, "cls"_a,
          "The class (a subclass of _Array) that operators return.");
    m.def(
        "_makes_own_array_results", [](nb::handle cls) { return makes_own_results(cls); }, "cls"_a,
        "Whether gpukit makes the results and views of arrays of class cls itself.");
    m.def("_register_own_array_class", &register_own_class, "cls"_a,
          "A subclass of _Array whose results and views gpukit makes itself (as for GPUArray), rather than "
          "asking its _new_like_me as PyCUDA does for subclasses.");
    m.def("_set_fusion", &set_fusion, "on"_a, "Fusion of chained operators on or off.");
    m.def("_fusion_enabled", &fusion_enabled);
    m.def("_fusion_sites_analysed", &fusion_sites_analysed,
          "How many places in the program the fusion rule has been worked out for.");
}

}  // namespace gpukit::python
