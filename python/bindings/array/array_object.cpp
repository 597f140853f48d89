#include "array/array_object.hpp"

#include "array/array_operators.hpp"
#include "common/memory_args.hpp"

#include "gpukit/cuda/default_pool.hpp"

#include <nanobind/stl/string.h>

#include <array>
#include <string>
#include <unordered_map>
#include <utility>

namespace gpukit::python {

using namespace nb::literals;

namespace {

// Module state, made when the module is loaded (with the GIL held) and never freed: the
// interpreter may still run finalizers that use it while the module is torn down.
struct dtype_tables {
    nb::object numpy_dtype_class;                                             // numpy.dtype
    std::array<nb::object, 13> numpy_dtypes;                                  // by array::dtype
    std::unordered_map<PyObject*, std::optional<array::dtype>> kernel_types;  // holds a reference to each key
};

dtype_tables& tables() {
    static dtype_tables* t = [] {
        auto* made = new dtype_tables;
        nb::module_ numpy = nb::module_::import_("numpy");
        made->numpy_dtype_class = numpy.attr("dtype");
        for (int k = 0; k < 13; ++k)
            made->numpy_dtypes[k] = made->numpy_dtype_class(nb::str(array::name(static_cast<array::dtype>(k)).data()));
        return made;
    }();
    return *t;
}

// The kernel type a numpy dtype stores, read from its array-interface string: only native
// little-endian plain types qualify (a byte-swapped '>f4' has float32's name but not its bytes).
std::optional<array::dtype> kernel_type_of_string(const std::string& s) {
    static const std::pair<const char*, array::dtype> names[] = {
        {"|b1", array::dtype::bool_},       {"|i1", array::dtype::int8},    {"<i2", array::dtype::int16},
        {"<i4", array::dtype::int32},       {"<i8", array::dtype::int64},   {"|u1", array::dtype::uint8},
        {"<u2", array::dtype::uint16},      {"<u4", array::dtype::uint32},  {"<u8", array::dtype::uint64},
        {"<f4", array::dtype::float32},     {"<f8", array::dtype::float64}, {"<c8", array::dtype::complex64},
        {"<c16", array::dtype::complex128},
    };
    for (const auto& [text, type] : names)
        if (s == text)
            return type;
    return std::nullopt;
}

nb::handle registered_result_class;
// The subclasses of _Array gpukit makes results and views of (class objects, kept for the
// life of the process; a handful, set from Python at import).
std::vector<nb::handle> own_classes;

void require_array_subclass(nb::handle cls, const char* what) {
    if (!PyType_Check(cls.ptr()) || !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls.ptr()),
                                                      reinterpret_cast<PyTypeObject*>(array_class().ptr())))
        throw nb::type_error((std::string(what) + ": expected a subclass of _Array").c_str());
}

}  // namespace

nb::handle array_class() { return nb::type<array_object>(); }

nb::handle result_class() { return registered_result_class ? registered_result_class : array_class(); }

void set_result_class(nb::handle cls) {
    require_array_subclass(cls, "_set_result_class");
    registered_result_class = cls.inc_ref();  // a class object, kept for the life of the process
    register_own_class(cls);
}

void register_own_class(nb::handle cls) {
    require_array_subclass(cls, "_register_own_class");
    if (!makes_own_results(cls))
        own_classes.push_back(cls.inc_ref());
}

bool makes_own_results(nb::handle cls) {
    if (cls.is(result_class()) || cls.is(array_class()))
        return true;
    for (nb::handle own : own_classes)
        if (cls.is(own))
            return true;
    return false;
}

nb::object new_result(nb::handle like_object, const std::vector<std::int64_t>& shape, array::dtype type, order o,
                      bool pass_order) {
    if (makes_own_results(like_object.type()))
        return new_array(shape, type, *nb::inst_ptr<array_object>(like_object), o);
    // PyCUDA's operators ask the operand for its result, so a subclass gets results of its
    // own class (and can make them its own way).
    nb::object make = like_object.attr("_new_like_me");
    nb::object out =
        pass_order ? make(numpy_dtype(type), "order"_a = o == order::f ? "F" : "C") : make(numpy_dtype(type));
    const auto wrong = [&](const std::string& found) {
        return std::string(nb::type_name(like_object.type()).c_str()) + "._new_like_me(" +
               std::string(array::name(type)) + ") returned " + found + "; the result needs a GPUArray of shape " +
               shape_text(shape) + " and dtype " + std::string(array::name(type));
    };
    if (!nb::isinstance<array_object>(out))
        throw nb::type_error(wrong("a " + std::string(nb::type_name(out.type()).c_str())).c_str());
    const array_object& made = settled(out);
    if (made.layout.shape() != shape || made.type != type)
        throw nb::value_error(
            wrong("shape " + shape_text(made.layout.shape()) + " dtype " + nb::cast<std::string>(nb::str(made.dtype)))
                .c_str());
    return out;
}

array_object& array_of(nb::handle h) {
    if (!nb::inst_ready(h)) [[unlikely]]
        throw nb::cast_error();
    return *nb::inst_ptr<array_object>(h);
}

array_object& settled(nb::handle h) {
    array_object& a = array_of(h);
    if (a.pending)
        settle(a);
    return a;
}

nb::handle numpy_dtype(array::dtype t) { return tables().numpy_dtypes[static_cast<int>(t)]; }

std::optional<array::dtype> kernel_type(nb::handle dtype) {
    auto& known = tables().kernel_types;
    if (auto found = known.find(dtype.ptr()); found != known.end())
        return found->second;
    if (nb::cast<bool>(dtype.attr("hasobject")))
        throw nb::type_error(("dtype " + nb::cast<std::string>(nb::str(dtype)) +
                              " holds Python objects, whose bytes are addresses in this process, not data: device "
                              "arrays take numeric or other plain-data dtypes")
                                 .c_str());
    const bool plain = dtype.attr("fields").is_none() && dtype.attr("subdtype").is_none();
    const std::optional<array::dtype> type =
        plain ? kernel_type_of_string(nb::cast<std::string>(dtype.attr("str"))) : std::nullopt;
    if (known.size() >= 4096) {  // dtypes made on the fly (records): keep the table bounded
        for (auto& [key, value] : known)
            Py_DECREF(key);
        known.clear();
    }
    known.emplace(dtype.inc_ref().ptr(), type);
    return type;
}

nb::object as_numpy_dtype(nb::handle dtype) {
    const nb::object& cls = tables().numpy_dtype_class;
    if (PyObject_TypeCheck(dtype.ptr(), reinterpret_cast<PyTypeObject*>(cls.ptr())))
        return nb::borrow(dtype);
    return cls(dtype);
}

nb::object wrap_array(nb::handle cls, array_object&& a) {
    nb::object instance = nb::inst_alloc(cls);
    new (nb::inst_ptr<array_object>(instance)) array_object(std::move(a));
    nb::inst_mark_ready(instance);
    return instance;
}

nb::object view_of(nb::handle self, const array_object& a, gpukit::layout l, nb::handle dtype, nb::handle cls) {
    array_object v;
    v.layout = std::move(l);
    if (dtype.is_none()) {
        v.dtype = a.dtype;
        v.type = a.type;
    } else {
        v.dtype = nb::borrow(dtype);
        v.type = kernel_type(dtype);
    }
    v.address = a.address;
    v.gpudata = a.gpudata;
    v.base = a.base.is_none() ? nb::borrow(self) : a.base;
    v.allocator = a.allocator;
    v.stream = a.stream;
    if (cls.is_none())
        cls = makes_own_results(self.type()) ? self.type() : result_class();
    return wrap_array(cls, std::move(v));
}

void allocate(array_object& a) {
    a.gpudata = nb::none();
    a.address = 0;
    if (a.layout.size() == 0)
        return;
    // Strides may leave gaps: the memory runs to the end of the last element.
    const auto [low, high] = a.layout.byte_extent();
    if (low < 0)
        throw nb::value_error(("negative strides " + a.layout.describe() +
                               " need memory given as gpudata; a new array starts at element 0")
                                  .c_str());
    allocate(a, static_cast<std::size_t>(high));
}

void allocate(array_object& a, std::size_t bytes) {
    if (a.allocator.is_none()) {
        cuda::pooled_device_memory memory = cuda::allocate_from_default_pool(bytes);
        a.address = memory.block.pointer();
        a.gpudata = nb::cast(std::move(memory));
    } else {
        a.gpudata = a.allocator(bytes);
        a.address = nb::cast<std::uint64_t>(nb::int_(a.gpudata));
    }
}

nb::object new_array(const gpukit::layout& l, nb::handle dtype, nb::handle allocator, nb::handle stream) {
    array_object a;
    a.layout = l;
    a.dtype = nb::borrow(dtype);
    a.type = kernel_type(dtype);
    a.base = nb::none();
    a.allocator = nb::borrow(allocator);
    a.stream = nb::borrow(stream);
    allocate(a);
    return wrap_array(result_class(), std::move(a));
}

nb::object new_array(const std::vector<std::int64_t>& shape, array::dtype type, const array_object& like, order o) {
    array_object a;
    a.layout = gpukit::layout::contiguous(shape, static_cast<std::int64_t>(array::size_of(type)), o);
    a.dtype = nb::borrow(numpy_dtype(type));
    a.type = type;
    a.base = nb::none();
    a.allocator = like.allocator;
    a.stream = like.stream;
    allocate(a);
    return wrap_array(result_class(), std::move(a));
}

void require_aligned(const array_object& a, array::dtype type) {
    const auto size = static_cast<std::int64_t>(array::size_of(type));
    bool aligned = a.layout.size() == 0 || a.data() % static_cast<CUdeviceptr>(size) == 0;
    for (int k = 0; aligned && k < a.layout.ndim(); ++k)
        aligned = a.layout.shape()[k] <= 1 || a.layout.strides()[k] % size == 0;
    if (!aligned)
        throw nb::value_error(("the elements of this " + std::string(array::name(type)) + " array (" +
                               a.layout.describe() + ", element 0 at address " + std::to_string(a.data()) +
                               ") are not at multiples of " + std::to_string(size) +
                               " bytes, which GPU kernels need; copy its bytes to an aligned array first")
                                  .c_str());
}

array::ndarray as_ndarray(const array_object& a) {
    const array::dtype type = *a.type;
    require_aligned(a, type);
    const auto [low, high] = a.layout.byte_extent();
    if (low >= 0)
        return array::ndarray(array::borrow(a.address, static_cast<std::size_t>(high)), type, a.layout);
    // Element 0 is not the lowest address (negative strides on memory lent by another
    // library): the buffer starts at the lowest byte the view touches.
    const gpukit::layout& l = a.layout;
    return array::ndarray(array::borrow(a.address + static_cast<CUdeviceptr>(low),
                                        static_cast<std::size_t>(high - low)),
                          type, gpukit::layout(l.shape(), l.strides(), l.itemsize(), l.offset() - low));
}

array::ndarray as_ndarray(const array_object& a, const std::vector<std::int64_t>& shape) {
    array::ndarray whole = as_ndarray(a);
    if (whole.shape() == shape)
        return whole;
    return whole.view(whole.layout().broadcast_to(shape));
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
    std::string s = "(";
    for (std::size_t k = 0; k < shape.size(); ++k)
        s += (k ? "," : "") + std::to_string(shape[k]);
    return s + (shape.size() == 1 ? ",)" : ")");
}

array::element_array as_elements(const array_object& a) { return {a.data(), a.layout}; }

cuda::stream_view stream_of(const array_object& a) { return stream_arg(a.stream); }

array::dtype require_kernel_type(const array_object& a, const char* what) {
    if (!a.type)
        throw nb::type_error((std::string(what) + ": dtype " + nb::cast<std::string>(nb::str(a.dtype)) +
                              " has no GPU kernels; supported are bool, int8..int64, uint8..uint64, float32, "
                              "float64, complex64 and complex128")
                                 .c_str());
    return *a.type;
}

}  // namespace gpukit::python
