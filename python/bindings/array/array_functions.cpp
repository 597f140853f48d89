// gpuarray's module functions, one crossing each: numpy's elementwise functions (minimum,
// where, logical_and, ...; array_operators.cpp builds their kernels), gathers and scatters
// (take, multi_take, multi_put, multi_take_put; array/indexing.hpp), joining (concatenate,
// stack), PyCUDA's splay, and the strided host copies of get() and set().
#include "array/array_object.hpp"
#include "common/object_text.hpp"
#include "array/array_operators.hpp"
#include "common/host_holds.hpp"
#include "common/int_args.hpp"
#include "common/layout_args.hpp"
#include "common/memory_args.hpp"
#include "common/stub_types.hpp"

#include "gpukit/array/element_copy.hpp"
#include "gpukit/array/indexing.hpp"
#include "gpukit/array/pitched_copy.hpp"
#include "gpukit/array/splay.hpp"
#include "gpukit/array/views.hpp"
#include "gpukit/core/error.hpp"
#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/device.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <string>
#include <vector>

namespace gpukit::python {

using namespace nb::literals;
using array::dtype;

namespace {

// The _Array `h`, computed if pending; TypeError naming `what` for anything else.
array_object& array_arg(nb::handle h, const std::string& what) {
    if (!is_array(h))
        throw nb::type_error((what + " must be a GPUArray, got " + short_type_name_of(h)).c_str());
    return settled(h);
}

cuda::stream_view stream_or(nb::handle stream, const array_object& a) {
    return stream.is_none() ? stream_of(a) : stream_arg(stream);
}

// An index array: of an integer type or bool (numpy's error otherwise), contiguous (a C copy
// when it is not).
nb::object index_array(nb::handle h, const std::string& what, cuda::stream_view stream) {
    array_object& a = array_arg(h, what);
    const std::optional<dtype> t = a.type;
    if (!t || array::kind(*t) == array::dtype_kind::floating || array::kind(*t) == array::dtype_kind::complex)
        throw nb::type_error(("Cannot cast array data from dtype('" + nb::cast<std::string>(nb::str(a.dtype)) +
                              "') to dtype('int64') according to the rule 'same_kind' (" + what +
                              " must be of an integer type)")
                                 .c_str());
    return a.layout.is_c_contiguous() ? nb::borrow(h) : converted(a, *t, stream);
}

// ---- take, multi_take, multi_put, multi_take_put

nb::object take(nb::handle a_object, nb::handle indices_object, nb::handle out_object, nb::handle stream_object) {
    array_object& a = array_arg(a_object, "take(a)");
    const cuda::stream_view stream = stream_or(stream_object, a);
    const nb::object indices_copy = index_array(indices_object, "take(indices)", stream);
    array_object& indices = settled(indices_copy);
    const gpukit::layout result = gpukit::layout::contiguous(indices.layout.shape(), a.layout.itemsize());
    nb::object out, target;  // the array returned, and the C-contiguous one the kernel writes
    if (out_object.is_none()) {
        out = target = new_array(result, a.dtype, a.allocator, a.stream);
    } else {
        array_object& o = array_arg(out_object, "take(out)");
        if (o.layout.shape() != indices.layout.shape())
            throw nb::value_error(("take(out): out's shape " + shape_text(o.layout.shape()) +
                                   " differs from the "
                                   "indices' " +
                                   shape_text(indices.layout.shape()))
                                      .c_str());
        if (!o.dtype.equal(a.dtype))
            throw nb::type_error(("take(out): out's dtype " + nb::cast<std::string>(nb::str(o.dtype)) +
                                  " differs from a's " + nb::cast<std::string>(nb::str(a.dtype)))
                                     .c_str());
        out = nb::borrow(out_object);
        target = o.layout.is_c_contiguous() ? out : new_array(result, a.dtype, a.allocator, a.stream);
    }
    const array::element_array source = as_elements(a), written = as_elements(settled(target));
    const array::ndarray index = as_ndarray(indices);
    {
        release_gil unlocked;
        array::take(source, index, written, stream);
    }
    if (!target.is(out)) {
        const array::element_array final_out = as_elements(settled(out));
        release_gil unlocked;
        array::copy_elements(final_out, written, stream);
    }
    return out;
}

// multi_take (dest_indices None), multi_put (source_indices None) and multi_take_put.
nb::list multi_indexed(const char* what, nb::sequence arrays, nb::handle source_indices_object,
                       nb::handle dest_indices_object, nb::handle offsets_object, nb::handle dest_shape,
                       nb::handle out_object, nb::handle stream_object) {
    const std::string name = what;
    nb::list outs;
    const auto count = static_cast<std::size_t>(nb::len(arrays));
    if (count == 0)
        return outs;
    std::vector<array::element_array> sources;
    array_object& first = array_arg(arrays[0], name + "(arrays[0])");
    const cuda::stream_view stream = stream_or(stream_object, first);
    for (std::size_t k = 0; k < count; ++k) {
        array_object& a = array_arg(arrays[k], name + "(arrays[" + std::to_string(k) + "])");
        if (!a.dtype.equal(first.dtype))
            throw nb::type_error((name + ": the arrays must share one dtype, got " +
                                  nb::cast<std::string>(nb::str(first.dtype)) + " and " +
                                  nb::cast<std::string>(nb::str(a.dtype)))
                                     .c_str());
        if (!a.layout.is_contiguous())
            throw nb::value_error((name +
                                   ": every array must be contiguous (C or F; it is indexed in memory order), "
                                   "got " +
                                   a.layout.describe())
                                      .c_str());
        sources.push_back(as_elements(a));
    }
    // multi_take reads through its indices, multi_put writes through dest_indices, multi_take_put
    // does both: those are required (None is refused as any other non-array).
    nb::object source_indices, dest_indices;
    if (name != "multi_put")
        source_indices =
            index_array(source_indices_object, name + (name == "multi_take" ? "(indices)" : "(src_indices)"), stream);
    if (name != "multi_take")
        dest_indices = index_array(dest_indices_object, name + "(dest_indices)", stream);
    if (source_indices && dest_indices &&
        settled(source_indices).layout.shape() != settled(dest_indices).layout.shape())
        throw nb::value_error((name + ": src_indices and dest_indices must have the same shape").c_str());
    const array_object& positions = settled(source_indices ? source_indices : dest_indices);

    std::vector<std::int64_t> offsets;
    if (!offsets_object.is_none()) {
        for (nb::handle o : nb::iter(offsets_object))
            offsets.push_back(int_arg<std::int64_t>(o).get((name + "(src_offsets)").c_str()));
        if (offsets.size() != count)
            throw nb::value_error((name + ": src_offsets needs one offset per array, got " +
                                   std::to_string(offsets.size()) + " for " + std::to_string(count))
                                      .c_str());
    }

    std::vector<array::element_array> targets;
    if (out_object.is_none()) {
        // multi_take's results have the indices' shape; multi_put's and multi_take_put's dest_shape.
        std::vector<std::int64_t> shape = positions.layout.shape();
        if (dest_indices) {
            if (dest_shape.is_none())
                throw nb::value_error((name + ": give dest_shape or out").c_str());
            shape = shape_of(shape_arg{dest_shape}, (name + "(dest_shape)").c_str());
        }
        const gpukit::layout l = gpukit::layout::contiguous(shape, first.layout.itemsize());
        for (std::size_t k = 0; k < count; ++k)
            outs.append(new_array(l, first.dtype, first.allocator, first.stream));
    } else {
        if (nb::len(out_object) != count)
            throw nb::value_error((name + ": out and arrays must have the same length").c_str());
        for (nb::handle o : nb::iter(out_object)) {
            const array_object& a = array_arg(o, name + "(out)");
            if (!a.dtype.equal(first.dtype))
                throw nb::type_error((name + ": arrays and out must have the same dtype").c_str());
            outs.append(o);
        }
    }
    for (nb::handle o : outs) {
        targets.push_back(as_elements(settled(o)));
        if (!targets.back().layout.is_contiguous())
            throw nb::value_error((name +
                                   ": every out array must be contiguous (C or F; it is indexed in memory "
                                   "order), got " +
                                   targets.back().layout.describe())
                                      .c_str());
    }
    const std::optional<array::ndarray> si =
        source_indices ? std::optional(as_ndarray(settled(source_indices))) : std::nullopt;
    const std::optional<array::ndarray> di =
        dest_indices ? std::optional(as_ndarray(settled(dest_indices))) : std::nullopt;
    const long long n = positions.layout.size();
    for (std::size_t k = 0; k < count; ++k)
        if ((!si && sources[k].layout.size() < n) || (!di && targets[k].layout.size() < n))
            throw nb::value_error((name + ": array " + std::to_string(k) + " has fewer elements than the " +
                                   std::to_string(n) + " indices")
                                      .c_str());
    release_gil unlocked;
    array::indexed_copy(sources, targets, si ? &*si : nullptr, di ? &*di : nullptr, offsets, stream);
    return outs;
}

// ---- concatenate and stack

// numpy's AxisError ("axis 2 is out of bounds for array of dimension 2"), a ValueError and an IndexError.
[[noreturn]] void axis_error(long long axis, int ndim) {
    nb::object error = nb::module_::import_("numpy.exceptions").attr("AxisError")(axis, ndim);
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
    throw nb::python_error();
}

int normalised_axis(nb::handle axis_object, int ndim, const char* what) {
    const long long axis = int_arg<long long>(axis_object).get(what);
    if (axis < -ndim || axis >= ndim)
        axis_error(axis, ndim);
    return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

// The dtype of the joined array: numpy.result_type of the pieces'; types without kernels
// only join themselves.
nb::object joined_dtype(const std::vector<array_object*>& pieces, const char* what) {
    nb::object result = pieces[0]->dtype;
    std::optional<dtype> type = pieces[0]->type;
    for (const array_object* p : pieces) {
        if (p->dtype.equal(result))
            continue;
        if (!type || !p->type)
            throw nb::type_error((std::string(what) + ": cannot join arrays of dtypes " +
                                  nb::cast<std::string>(nb::str(result)) + " and " +
                                  nb::cast<std::string>(nb::str(p->dtype)))
                                     .c_str());
        type = array::promote(*type, *p->type);
        result = nb::borrow(numpy_dtype(*type));
    }
    return result;
}

// concatenate (a new axis when `stack`): each piece is copied into its part of the result
// with one device-to-device copy (linear or 2-D) where the layouts allow, else one kernel
// (which also converts a piece of another dtype).
nb::object join(nb::handle arrays_object, nb::handle axis_object, nb::handle allocator, bool stack) {
    const char* what = stack ? "stack" : "concatenate";
    std::vector<nb::object> objects;
    for (nb::handle h : nb::iter(arrays_object))
        objects.push_back(nb::borrow(h));
    if (objects.empty())
        throw nb::value_error(stack ? "need at least one array to stack" : "need at least one array to concatenate");
    std::vector<array_object*> pieces;
    for (std::size_t k = 0; k < objects.size(); ++k)
        pieces.push_back(&array_arg(objects[k], std::string(what) + "(arrays[" + std::to_string(k) + "])"));
    const array_object& first = *pieces[0];
    const int ndim = first.layout.ndim();
    int axis = 0;
    std::vector<gpukit::layout> layouts;
    if (stack) {
        for (std::size_t k = 0; k < pieces.size(); ++k)
            if (pieces[k]->layout.shape() != first.layout.shape())
                throw nb::value_error("all input arrays must have the same shape");
        axis = normalised_axis(axis_object, ndim + 1, "stack(axis)");
        // Each piece with a new axis of length 1, joined along it.
        std::vector<index_item> items(static_cast<std::size_t>(axis), index_item{gpukit::slice{}});
        items.push_back(new_axis{});
        for (const array_object* p : pieces)
            layouts.push_back(p->layout.index(items));
    } else {
        if (ndim == 0)
            throw nb::value_error("zero-dimensional arrays cannot be concatenated");
        axis = normalised_axis(axis_object, ndim, "concatenate(axis)");
        for (std::size_t k = 0; k < pieces.size(); ++k) {
            const gpukit::layout& l = pieces[k]->layout;
            if (l.ndim() != ndim)
                throw nb::value_error(("all the input arrays must have same number of dimensions, but the array at "
                                       "index 0 has " +
                                       std::to_string(ndim) + " dimension(s) and the array at index " +
                                       std::to_string(k) + " has " + std::to_string(l.ndim()) + " dimension(s)")
                                          .c_str());
            for (int d = 0; d < ndim; ++d)
                if (d != axis && l.shape()[d] != first.layout.shape()[d])
                    throw nb::value_error(("all the input array dimensions except for the concatenation axis must "
                                           "match exactly, but along dimension " +
                                           std::to_string(d) + ", the array at index 0 has size " +
                                           std::to_string(first.layout.shape()[d]) + " and the array at index " +
                                           std::to_string(k) + " has size " + std::to_string(l.shape()[d]))
                                              .c_str());
            layouts.push_back(l);
        }
    }
    std::vector<std::int64_t> shape = layouts[0].shape();
    shape[static_cast<std::size_t>(axis)] = 0;
    for (const gpukit::layout& l : layouts)
        shape[static_cast<std::size_t>(axis)] += l.shape()[static_cast<std::size_t>(axis)];
    const nb::object result_dtype = joined_dtype(pieces, what);
    const auto itemsize = nb::cast<std::int64_t>(result_dtype.attr("itemsize"));
    nb::object out = new_array(gpukit::layout::contiguous(shape, itemsize), result_dtype,
                               allocator.is_none() ? nb::handle(first.allocator) : allocator, first.stream);
    array_object& result = settled(out);
    const cuda::stream_view stream = stream_of(first);
    std::int64_t start = 0;
    for (std::size_t k = 0; k < pieces.size(); ++k) {
        const std::int64_t length = layouts[k].shape()[static_cast<std::size_t>(axis)];
        std::vector<index_item> items(static_cast<std::size_t>(axis), index_item{gpukit::slice{}});
        items.push_back(gpukit::slice{start, start + length, 1});
        const gpukit::layout part = result.layout.index(items);
        start += length;
        if (part.size() == 0)
            continue;
        if (pieces[k]->dtype.equal(result_dtype)) {
            const array::element_array to{result.data() + static_cast<CUdeviceptr>(part.offset()), part},
                from{pieces[k]->data(), layouts[k]};
            release_gil unlocked;
            array::copy_elements(to, from, stream);
        } else {  // converted by a kernel
            const nb::object to = view_of(out, result, part, nb::none(), nb::none());
            const nb::object from = view_of(objects[k], *pieces[k], layouts[k], nb::none(), nb::none());
            assign(to, from, stream);
        }
    }
    return out;
}

// ---- get() and set() with strided host arrays

// Copies between the host array `owner` (element 0 at `host_address`, layout `host`) and the
// device array `device` (same shape and dtype) as one driver copy (pitched_copy.hpp) when
// their layouts allow it with rows of at least `min_row_bytes` (a linear copy always
// qualifies); false when not. Queued on `stream` (None: the array's own) when asynchronous
// or when a stream is used, and then waited for unless async_; an asynchronous copy keeps
// `owner` until it is done (host_holds.hpp).
bool host_copy(nb::handle owner, std::uint64_t host_address, const gpukit::layout& host, nb::handle device_object,
               bool to_host, bool async, nb::handle stream_object, std::size_t min_row_bytes) {
    array_object& device = array_arg(device_object, "host copy");
    if (host.shape() != device.layout.shape() || host.itemsize() != device.layout.itemsize())
        throw nb::value_error(
            ("host copy: the host layout " + host.describe() + " differs from the array's " + device.layout.describe())
                .c_str());
    if (device.layout.size() == 0)
        return true;
    const std::optional<array::pitched_copy> plan =
        to_host ? array::plan_pitched_copy(host, device.layout) : array::plan_pitched_copy(device.layout, host);
    if (!plan || (plan->dimensions() > 1 && plan->width_in_bytes < min_row_bytes))
        return false;
    const array::copy_side host_side{true, 0, reinterpret_cast<const void*>(host_address)},
        device_side{false, device.data(), nullptr};
    const bool on_stream = async || !stream_object.is_none() || !device.stream.is_none();
    const cuda::stream_view stream = stream_or(stream_object, device);
    {
        release_gil unlocked;
        if (to_host)
            array::run_pitched_copy(*plan, host_side, device_side, on_stream, stream);
        else
            array::run_pitched_copy(*plan, device_side, host_side, on_stream, stream);
        if (on_stream && !async)
            stream.synchronize();
    }
    if (async)
        hold_until_done(std::make_shared<nb::object>(nb::borrow(owner)), host_side.host, stream);
    return true;
}

result_target target_of(nb::handle out, nb::handle allocator, nb::handle stream) { return {out, allocator, stream}; }

array::unary_op unary_function_named(const std::string& name) {
    if (name == "conj")
        return array::unary_op::conjugate;
    if (name == "real")
        return array::unary_op::real;
    if (name == "imag")
        return array::unary_op::imag;
    if (name == "logical_not")
        return array::unary_op::logical_not;
    throw nb::value_error(("_unary_function: unknown function '" + name + "'").c_str());
}

// The arrays of _multi_take and its kin (each an _Array), and their results (new GPUArrays, or
// those of out=).
using array_sequence = nb::typed<nb::sequence, array_object>;
using array_list = nb::typed<nb::list, python_type<"gpukit.gpuarray.GPUArray">>;

}  // namespace

void bind_array_functions(nb::module_& m) {
    m.def(
        "_binary_function",
        [](const std::string& name, nb::handle x, nb::handle y, nb::handle out, nb::handle allocator,
           nb::handle stream) {
            const std::optional<array::binary_op> op = array::binary_op_from_symbol(name);
            if (!op)
                throw nb::value_error(("_binary_function: unknown function '" + name + "'").c_str());
            return binary_function(*op, x, y, target_of(out, allocator, stream));
        },
        "name"_a, "x"_a.none(), "y"_a.none(), "out"_a.none(), "allocator"_a.none(), "stream"_a.none(),
        "numpy's function `name` (minimum, maximum, logical_and, logical_or) of arrays and scalars.");
    m.def(
        "_unary_function",
        [](const std::string& name, nb::handle x, nb::handle out, nb::handle allocator, nb::handle stream) {
            return unary_function(unary_function_named(name), x, target_of(out, allocator, stream));
        },
        "name"_a, "x"_a.none(), "out"_a.none(), "allocator"_a.none(), "stream"_a.none(),
        "numpy's function `name` (conj, real, imag, logical_not) of an array.");
    m.def(
        "_select",
        [](bool positive, nb::handle criterion, nb::handle then, nb::handle otherwise, nb::handle out,
           nb::handle stream) {
            return select_function(positive, criterion, then, otherwise, target_of(out, nb::none(), stream));
        },
        "positive"_a, "criterion"_a.none(), "then"_a.none(), "otherwise"_a.none(), "out"_a.none(), "stream"_a.none(),
        "numpy.where (positive: PyCUDA's if_positive) in one kernel.");
    m.def(
        "_mul_add",
        [](nb::handle self, nb::handle selffac, nb::handle other, nb::handle otherfac, nb::handle out,
           nb::handle stream) { return mul_add(self, selffac, other, otherfac, target_of(out, nb::none(), stream)); },
        "self"_a, "selffac"_a.none(), "other"_a.none(), "otherfac"_a.none(), "out"_a.none(), "stream"_a.none(),
        "selffac * self + otherfac * other in one kernel.");
    m.def("_take", &take, "a"_a.none(), "indices"_a.none(), "out"_a.none(), "stream"_a.none(),
          "numpy's take: a's elements (in C order) at the indices.");
    m.def(
        "_multi_take",
        [](const array_sequence& arrays, nb::handle indices, nb::handle out, nb::handle stream) -> array_list {
            return multi_indexed("multi_take", arrays, indices, nb::none(), nb::none(), nb::none(), out, stream);
        },
        "arrays"_a, "indices"_a.none(), "out"_a.none(), "stream"_a.none());
    m.def(
        "_multi_put",
        [](const array_sequence& arrays, nb::handle dest_indices, nb::handle dest_shape, nb::handle out,
           nb::handle stream) -> array_list {
            return multi_indexed("multi_put", arrays, nb::none(), dest_indices, nb::none(), dest_shape, out, stream);
        },
        "arrays"_a, "dest_indices"_a.none(), "dest_shape"_a.none(), "out"_a.none(), "stream"_a.none());
    m.def(
        "_multi_take_put",
        [](const array_sequence& arrays, nb::handle dest_indices, nb::handle src_indices, nb::handle dest_shape,
           nb::handle out, nb::handle stream, nb::handle src_offsets) -> array_list {
            return multi_indexed("multi_take_put", arrays, src_indices, dest_indices, src_offsets, dest_shape, out,
                                 stream);
        },
        "arrays"_a, "dest_indices"_a.none(), "src_indices"_a.none(), "dest_shape"_a.none(), "out"_a.none(),
        "stream"_a.none(), "src_offsets"_a.none());
    m.def(
        "_concatenate",
        [](nb::handle arrays, nb::handle axis, nb::handle allocator) { return join(arrays, axis, allocator, false); },
        "arrays"_a, "axis"_a.none(), "allocator"_a.none());
    m.def(
        "_stack",
        [](nb::handle arrays, nb::handle axis, nb::handle allocator) { return join(arrays, axis, allocator, true); },
        "arrays"_a, "axis"_a.none(), "allocator"_a.none());
    m.def(
        "_splay",
        [](int_arg<long long> n, std::optional<cuda::device> dev)
            -> nb::typed<nb::tuple, nb::typed<nb::tuple, int, int>, nb::typed<nb::tuple, int, int, int>> {
            const array::splay_shape s =
                array::splay(n.get("splay(n)"), dev ? *dev : cuda::context::current_or_throw("splay").get_device());
            return nb::make_tuple(nb::make_tuple(s.grid[0], s.grid[1]),
                                  nb::make_tuple(s.block[0], s.block[1], s.block[2]));
        },
        "n"_a.none(), "dev"_a.none(),
        "PyCUDA's splay(n, dev): ((blocks, 1), (threads, 1, 1)) for n elements on dev (default: the current "
        "context's device).");
    m.attr("_min_pitched_row_bytes") = array::min_pitched_row_bytes;
    m.def("_is_dense", &array::is_dense, "layout"_a,
          "Whether the layout's elements fill its bytes without gaps, with positive strides.");
    m.def("_host_copy", &host_copy, "host"_a, "host_address"_a, "host_layout"_a, "device"_a, "to_host"_a, "async_"_a,
          "stream"_a.none(), "min_row_bytes"_a,
          "Copies between a host array and a GPUArray as one linear, 2-D or 3-D driver copy; False when their "
          "layouts do not allow one.");
}

}  // namespace gpukit::python
