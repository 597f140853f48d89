#include "cuda/kernel_arguments.hpp"
#include "common/object_text.hpp"

#include "common/int_args.hpp"
#include "common/memory_args.hpp"
#include "cuda/texture_args.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/default_pool.hpp"
#include "gpukit/cuda/managed_memory.hpp"
#include "gpukit/cuda/memory.hpp"

#include <nanobind/stl/string.h>

#include <complex>
#include <cstdint>
#include <limits>
#include <string>

namespace gpukit::python {

using namespace nb::literals;

// A held Py_buffer, released when the launch is over.
class held_buffer {
public:
    held_buffer(nb::handle obj, int flags, std::size_t index) {
        if (!PyObject_CheckBuffer(obj.ptr()))
            throw nb::type_error(("argument " + std::to_string(index) +
                                  ": In, Out and InOut take a host array (an "
                                  "object with the buffer protocol, such as a numpy array), got " +
                                  nb::cast<std::string>(nb::type_name(obj.type())))
                                     .c_str());
        if (!get_plain_buffer(obj, view_, flags, ("argument " + std::to_string(index)).c_str())) {
            PyErr_Clear();
            throw nb::type_error(("argument " + std::to_string(index) + ": the array must be contiguous" +
                                  ((flags & PyBUF_WRITABLE) ? " and writable (it receives the results)" : ""))
                                     .c_str());
        }
    }
    ~held_buffer() { PyBuffer_Release(&view_); }
    held_buffer(const held_buffer&) = delete;
    held_buffer& operator=(const held_buffer&) = delete;
    void* data() const { return view_.buf; }
    std::size_t size() const { return static_cast<std::size_t>(view_.len); }

private:
    Py_buffer view_{};
};

namespace {

[[noreturn]] void bad_argument(std::size_t index, const std::string& what) {
    throw nb::type_error(("argument " + std::to_string(index) + ": " + what).c_str());
}

std::string type_of(nb::handle obj) { return nb::cast<std::string>(nb::type_name(obj.type())); }

// str(obj). (A handle, so that nb::str converts: given an object, nb::str only checks.)

struct numpy_types {
    nb::object generic, ndarray, void_, dtype;
};

const numpy_types& numpy() {
    // Imported on first use; numpy stays loaded for the life of the interpreter.
    static const numpy_types* types = [] {
        nb::module_ np = nb::module_::import_("numpy");
        return new numpy_types{np.attr("generic"), np.attr("ndarray"), np.attr("void"), np.attr("dtype")};
    }();
    return *types;
}

bool is_instance(nb::handle obj, const nb::object& cls) {
    const int result = PyObject_IsInstance(obj.ptr(), cls.ptr());
    if (result < 0)
        throw nb::python_error();  // an __instancecheck__ that raised
    return result == 1;
}

// gpukit.driver's ArgumentHandler classes (Python classes, as in PyCUDA, so that subclasses
// behave as they do there).
struct handler_classes {
    nb::object base, in, out, inout;
};

const handler_classes& handlers() {
    static const handler_classes* classes = [] {
        nb::module_ driver = nb::module_::import_("gpukit.driver");
        return new handler_classes{driver.attr("ArgumentHandler"), driver.attr("In"), driver.attr("Out"),
                                   driver.attr("InOut")};
    }();
    return *classes;
}

// Raises the pending Python error again, of its own type, with "argument <index>: " in front.
[[noreturn]] void reraise_for_argument(std::size_t index) {
    nb::python_error error;
    const nb::object type = nb::borrow(error.type());
    const std::string message = text_of(error.value());
    nb::raise_from(error, type, "argument %zu: %s", index, message.c_str());
}

// What a by-value argument is, which decides what is checked before its bytes are taken.
enum class value_kind { numpy_scalar, numpy_array, buffer };

value_kind kind_of(nb::handle value) {
    if (is_instance(value, numpy().ndarray))
        return value_kind::numpy_array;
    return is_instance(value, numpy().generic) ? value_kind::numpy_scalar : value_kind::buffer;
}

// Copies the bytes of a by-value argument into `args`: a numpy scalar, record or array (its
// contents in C order, as PyCUDA packs it with struct's "<n>s"), or any other buffer.
// Returns the number of bytes.
std::size_t push_bytes(cuda::kernel_args& args, nb::handle value, std::size_t index, value_kind kind) {
    // Only records among numpy's scalars can hold objects.
    if (kind == value_kind::numpy_array)
        require_plain_dtype(value, "argument " + std::to_string(index) + ": a numpy array");
    else if (kind == value_kind::numpy_scalar && is_instance(value, numpy().void_))
        require_plain_dtype(value, "argument " + std::to_string(index) + ": a numpy record");
    if (kind == value_kind::numpy_array && !nb::cast<bool>(value.attr("flags").attr("c_contiguous")))
        throw nb::value_error(("argument " + std::to_string(index) + ": the numpy array (shape " +
                               text_of(nb::object(value.attr("shape"))) + ", strides " +
                               text_of(nb::object(value.attr("strides"))) +
                               ") is not C-contiguous; an array is passed by value as its bytes in C order (as in "
                               "PyCUDA): pass numpy.ascontiguousarray() of it, or wrap it in In(), Out() or InOut() "
                               "to pass a pointer to a device copy")
                                  .c_str());
    Py_buffer view{};
    // PyBUF_SIMPLE, as PyCUDA's packer asks: the exporter's bytes in C order, or its error.
    if (!get_plain_buffer(value, view, PyBUF_SIMPLE, ("argument " + std::to_string(index)).c_str()))
        reraise_for_argument(index);
    const std::size_t size = static_cast<std::size_t>(view.len);
    args.push(view.buf, size);  // copied now: nothing refers to the host memory after this
    PyBuffer_Release(&view);
    return size;
}

// Signed `value` into `size` bytes, refusing what does not fit.
void push_integer(cuda::kernel_args& args, long long value, std::size_t size, std::size_t index) {
    const long long bits = static_cast<long long>(size) * 8;
    if (size < 8 && (value < -(1LL << (bits - 1)) || value >= (1LL << bits)))
        throw nb::value_error(("argument " + std::to_string(index) + ": " + std::to_string(value) +
                               " does not fit "
                               "the kernel's " +
                               std::to_string(size) + "-byte parameter")
                                  .c_str());
    switch (size) {
    case 1:
        args.push_value(static_cast<std::int8_t>(value));
        break;
    case 2:
        args.push_value(static_cast<std::int16_t>(value));
        break;
    case 4:
        args.push_value(static_cast<std::int32_t>(value));
        break;
    case 8:
        args.push_value(static_cast<std::int64_t>(value));
        break;
    default:
        bad_argument(index, "a Python int cannot fill a " + std::to_string(size) +
                                "-byte parameter; pass a numpy "
                                "scalar or bytes of that size");
    }
}

void push_float(cuda::kernel_args& args, double value, std::size_t size, std::size_t index) {
    switch (size) {
    case 2:
        args.push_value(static_cast<_Float16>(value));
        break;
    case 4:
        args.push_value(static_cast<float>(value));
        break;
    case 8:
        args.push_value(value);
        break;
    default:
        bad_argument(index, "a Python float cannot fill a " + std::to_string(size) +
                                "-byte parameter; pass a numpy "
                                "scalar or bytes of that size");
    }
}

void push_complex(cuda::kernel_args& args, std::complex<double> value, std::size_t size, std::size_t index) {
    if (size == 8)
        args.push_value(std::complex<float>(value));
    else if (size == 16)
        args.push_value(value);
    else
        bad_argument(index, "a Python complex cannot fill a " + std::to_string(size) + "-byte parameter");
}

// A device address from a pointer-like object: __cuda_array_interface__, gpudata (one level:
// what it holds is converted by the other rules), get_pointer(), or int()/__index__
// (numpy.intp, plain ints, PointerHolderBase). Nullopt when it is none of those.
std::optional<std::uint64_t> device_address(nb::handle obj, std::size_t index, bool follow_gpudata = true) {
    if (PyFloat_Check(obj.ptr()))
        return std::nullopt;  // has __int__, but is never an address
    const std::string what = "argument " + std::to_string(index);
    CUdeviceptr address = 0;
    if (PyLong_Check(obj.ptr()) && index_address(obj, what.c_str(), address))
        return address;
    if (const auto iface = cuda_array_interface_of(obj, what))
        return iface->address;
    if (follow_gpudata && nb::hasattr(obj, "gpudata"))
        return device_address(obj.attr("gpudata"), index, false);
    if (nb::hasattr(obj, "get_pointer")) {
        if (!index_address(obj.attr("get_pointer")(), what.c_str(), address))
            bad_argument(index, type_of(obj) + ".get_pointer() must return an integer address");
        return address;
    }
    if (nb::hasattr(obj, "__index__") || nb::hasattr(obj, "__int__")) {
        if (!index_address(nb::int_(obj), what.c_str(), address))
            bad_argument(index, "int() of a " + type_of(obj) + " is not an integer address");
        return address;
    }
    return std::nullopt;
}

// The data address of a numpy array over managed memory (managed_empty() and views of it),
// found through its chain of .base objects; nullopt for any other array. Managed memory has
// one address on host and device, so the kernel gets the array's own first element.
std::optional<std::uint64_t> managed_array_address(nb::handle array) {
    nb::object base = nb::borrow(array);
    while (is_instance(base, numpy().ndarray))
        base = base.attr("base");
    if (!nb::isinstance<cuda::managed_allocation>(base))
        return std::nullopt;
    nb::dict interface = nb::borrow<nb::dict>(array.attr("__array_interface__"));
    return nb::cast<std::uint64_t>(nb::borrow<nb::tuple>(interface["data"])[0]);
}

// DeviceAllocation and PooledDeviceAllocation pass int(arg), as in PyCUDA: a subclass's own
// __int__ is honoured; the classes themselves are read in C++ (a freed one is a LogicError).
std::optional<std::uint64_t> allocation_address(nb::handle arg, std::size_t index) {
    const bool plain = nb::isinstance<cuda::device_allocation>(arg);
    if (!plain && !nb::isinstance<cuda::pooled_device_memory>(arg))
        return std::nullopt;
    const bool exact =
        arg.type().is(plain ? nb::type<cuda::device_allocation>() : nb::type<cuda::pooled_device_memory>());
    const std::string what = "argument " + std::to_string(index);
    if (exact)
        return device_pointer_arg(arg, what.c_str()).address;
    return integer_arg<std::uint64_t>(nb::int_(arg), what.c_str());
}

}  // namespace

call_arguments::call_arguments(cuda::kernel_args& args, purpose use, cuda::stream_view stream, nb::handle stream_object)
    : args_(args), use_(use), stream_(stream), stream_object_(stream_object) {}

call_arguments::~call_arguments() = default;

void call_arguments::pack(const nb::args& values, const std::optional<std::vector<cuda::param_info>>& params) {
    for (std::size_t i = 0; i < values.size(); ++i) {
        std::optional<std::size_t> size;
        if (params && i < params->size())
            size = (*params)[i].size;
        push(values[i], i, size);
    }
}

void call_arguments::push(nb::handle arg, std::size_t index, std::optional<std::size_t> param_size) {
    PyObject* o = arg.ptr();
    // numpy.float64 and numpy.complex128 subclass Python's float and complex, so numpy
    // scalars must be recognised first: they go by their own dtype, their bytes verbatim.
    if (!PyLong_CheckExact(o) && !PyFloat_CheckExact(o) && is_instance(arg, numpy().generic)) {
        push_bytes(args_, arg, index, value_kind::numpy_scalar);
    } else if (PyLong_Check(o)) {
        long long value = PyLong_AsLongLong(o);
        if (value == -1 && PyErr_Occurred()) {
            // Past int64: an address or unsigned value up to 2**64 - 1.
            PyErr_Clear();
            const std::optional<std::uint64_t> unsigned_value = int_value<std::uint64_t>(arg);
            if (!unsigned_value)
                throw_out_of_range(arg, ("argument " + std::to_string(index)).c_str(),
                                   std::to_string(std::numeric_limits<std::int64_t>::min()),
                                   std::to_string(std::numeric_limits<std::uint64_t>::max()));
            args_.push_value(*unsigned_value);
            return;
        }
        push_integer(args_, value, param_size.value_or(8), index);
    } else if (PyFloat_Check(o)) {
        push_float(args_, PyFloat_AsDouble(o), param_size.value_or(8), index);
    } else if (PyComplex_Check(o)) {
        push_complex(args_, {PyComplex_RealAsDouble(o), PyComplex_ImagAsDouble(o)}, param_size.value_or(16), index);
    } else if (auto address = allocation_address(arg, index)) {
        args_.push_value(*address);
    } else if (is_instance(arg, handlers().base)) {
        push_handler(arg, index);
    } else if (auto handle = texture_handle_arg(arg)) {
        // Checked here: as an object with __int__ it would otherwise pass as a pointer.
        if (param_size && *param_size != 8)
            bad_argument(index, "a " + type_of(arg) + " is a 64-bit handle, but the kernel's parameter has " +
                                    std::to_string(*param_size) +
                                    " bytes; declare it cudaTextureObject_t or "
                                    "cudaSurfaceObject_t");
        args_.push_value(*handle);
    } else if (is_instance(arg, numpy().ndarray)) {
        if (auto managed = managed_array_address(arg)) {
            args_.push_value(*managed);
            return;
        }
        const std::size_t size = push_bytes(args_, arg, index, value_kind::numpy_array);
        if (param_size && size != *param_size)
            throw logic_error(cuda::argument_size_mismatch(index, size, *param_size) +
                              "; a numpy array is passed by value, as its bytes (as in PyCUDA): to pass a pointer, "
                              "wrap it in In(), Out() or InOut(), or pass device memory (a GPUArray, a "
                              "DeviceAllocation)");
    } else if (auto address = device_address(arg, index)) {
        args_.push_value(*address);
    } else if (PyObject_CheckBuffer(o)) {
        push_bytes(args_, arg, index, value_kind::buffer);
    } else {
        bad_argument(index, "cannot pass a " + type_of(arg) +
                                " to a kernel; expected a numpy scalar, record or array "
                                "(passed by value), a Python int/float/complex, an ArgumentHandler (In, Out, InOut), a "
                                "device pointer (a DeviceAllocation, an object with gpudata, __cuda_array_interface__ "
                                "or get_pointer(), an int) or a buffer of the parameter's bytes");
    }
}

void call_arguments::push_handler(nb::handle handler, std::size_t index) {
    if (use_ == purpose::graph_node)
        bad_argument(index,
                     "In/Out/InOut and other ArgumentHandler objects cannot be graph node arguments (a node "
                     "cannot copy host arrays around its launch); copy to device memory and pass that");
    // Exact In / Out / InOut whose device memory was never asked for are staged in C++: the
    // same copies as their pre_call/post_call, without the Python calls.
    const nb::handle type = handler.type();
    const bool copy_in = type.is(handlers().in) || type.is(handlers().inout);
    const bool copy_out = type.is(handlers().out) || type.is(handlers().inout);
    if (use_ == purpose::call && (copy_in || copy_out) && handler.attr("dev_alloc").is_none()) {
        const int flags = PyBUF_ANY_CONTIGUOUS | (copy_out ? PyBUF_WRITABLE : 0);
        auto& buffer = held_.emplace_back(std::make_unique<held_buffer>(handler.attr("array"), flags, index));
        staged_.emplace_back(buffer->data(), buffer->size(), copy_in, copy_out, stream_);
        args_.push_value(static_cast<std::uint64_t>(staged_.back().device_pointer()));
        return;
    }
    // PyCUDA's protocol: int(get_device_alloc()) now, pre_call/post_call around the launch.
    nb::object allocation = handler.attr("get_device_alloc")();
    const std::string what = "argument " + std::to_string(index) + ": get_device_alloc()";
    args_.push_value(integer_arg<std::uint64_t>(nb::int_(allocation), what.c_str()));
    handlers_.push_back(nb::borrow(handler));
}

void call_arguments::before_launch() {
    for (const nb::object& handler : handlers_)
        handler.attr("pre_call")(stream_object_);
}

void call_arguments::after_launch() {
    {
        release_gil release;
        for (cuda::staging_buffer& s : staged_)
            s.finish();
        staged_.clear();  // waits for the stream and frees the device copies
    }
    std::vector<nb::object> post;
    for (const nb::object& handler : handlers_)
        if (nb::hasattr(handler, "post_call"))
            post.push_back(handler);
    if (post.empty())
        return;
    // PyCUDA waits for the whole context when the call named no stream; on a stream it
    // leaves the ordering to post_call.
    if (stream_object_.is_none()) {
        const cuda::context current = cuda::context::current_or_throw("Function.__call__");
        release_gil release;
        current.synchronize();
    }
    for (const nb::object& handler : post)
        handler.attr("post_call")(stream_object_);
}

namespace {

// Converts one argument of a prepared call by its spec.
void push_prepared(cuda::kernel_args& args, const arg_spec& spec, nb::handle arg, std::size_t index) {
    PyObject* o = arg.ptr();
    // A texture or surface object fills any 64-bit integer or pointer slot ('P', 'Q', 'q').
    if (auto handle = texture_handle_arg(arg)) {
        const bool integral =
            spec.kind == arg_kind::pointer || spec.kind == arg_kind::signed_int || spec.kind == arg_kind::unsigned_int;
        if (!integral || spec.size != 8)
            bad_argument(index, "a " + type_of(arg) + " is a 64-bit handle; prepare its slot as 'P' or 'Q', not '" +
                                    std::string(1, spec.code) + "'");
        args.push_value(*handle);
        return;
    }
    switch (spec.kind) {
    case arg_kind::signed_int:
    case arg_kind::unsigned_int: {
        nb::object number = nb::steal(PyNumber_Index(o));
        if (!number.is_valid()) {
            PyErr_Clear();
            bad_argument(index, "format '" + std::string(1, spec.code) + "' expects an integer, got " + type_of(arg));
        }
        if (spec.kind == arg_kind::unsigned_int && spec.size == 8) {
            const unsigned long long value = PyLong_AsUnsignedLongLong(number.ptr());
            if (value == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
                PyErr_Clear();
                throw nb::value_error(("argument " + std::to_string(index) +
                                       ": expected an integer from 0 to "
                                       "2**64-1 for format '" +
                                       std::string(1, spec.code) + "'")
                                          .c_str());
            }
            args.push_value(static_cast<std::uint64_t>(value));
            return;
        }
        const long long value = PyLong_AsLongLong(number.ptr());
        if (value == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            throw nb::value_error(("argument " + std::to_string(index) + ": the integer does not fit format '" +
                                   std::string(1, spec.code) + "'")
                                      .c_str());
        }
        if (spec.kind == arg_kind::unsigned_int && value < 0)
            throw nb::value_error(("argument " + std::to_string(index) + ": format '" + std::string(1, spec.code) +
                                   "' is unsigned, got " + std::to_string(value))
                                      .c_str());
        push_integer(args, value, spec.size, index);
        return;
    }
    case arg_kind::boolean:
        args.push_value(static_cast<std::uint8_t>(PyObject_IsTrue(o) == 1));
        return;
    case arg_kind::floating: {
        const double value = PyFloat_AsDouble(o);
        if (value == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            bad_argument(index, "format '" + std::string(1, spec.code) + "' expects a number, got " + type_of(arg));
        }
        push_float(args, value, spec.size, index);
        return;
    }
    case arg_kind::complex: {
        const Py_complex value = PyComplex_AsCComplex(o);
        if (value.real == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            bad_argument(index,
                         "format '" + std::string(1, spec.code) + "' expects a complex number, got " + type_of(arg));
        }
        push_complex(args, {value.real, value.imag}, spec.size, index);
        return;
    }
    case arg_kind::pointer: {
        std::optional<std::uint64_t> address;
        if (is_instance(arg, numpy().ndarray)) {
            // A managed array is its address; a 0-d integer array its value (struct's 'P' takes
            // anything with __index__, as PyCUDA's packer does).
            address = managed_array_address(arg);
            CUdeviceptr number = 0;
            if (!address && nb::cast<int>(arg.attr("ndim")) == 0 &&
                index_address(arg, ("argument " + std::to_string(index)).c_str(), number))
                address = number;
        } else {
            address = allocation_address(arg, index);
            if (!address)
                address = device_address(arg, index);
        }
        if (!address)
            bad_argument(index,
                         "format 'P' expects a device pointer (an int, a DeviceAllocation, an object with "
                         "gpudata, __cuda_array_interface__ or get_pointer(), or a managed numpy array), got " +
                             type_of(arg));
        args.push_value(*address);
        return;
    }
    case arg_kind::bytes: {
        const std::size_t size = push_bytes(args, arg, index, kind_of(arg));
        if (size != spec.size)
            bad_argument(index, "expected " + std::to_string(spec.size) +
                                    " bytes (a value of the record or vector "
                                    "dtype prepared for this slot), got " +
                                    std::to_string(size));
        return;
    }
    }
}

// One prepare() item that is not a string: PyCUDA's rule. A numpy scalar type or a dtype
// gives its letter (a record dtype its bytes); anything else (None, GPUArray, DeviceAllocation,
// a Python type) is a pointer-sized slot.
void append_plan_item(std::vector<arg_spec>& plan, nb::handle item) {
    const bool numpy_type = PyType_Check(item.ptr()) && PyObject_IsSubclass(item.ptr(), numpy().generic.ptr()) == 1;
    if (!numpy_type && !is_instance(item, numpy().dtype)) {
        plan.push_back({arg_kind::pointer, 8, 'P'});
        return;
    }
    nb::object dtype = numpy().dtype(item);
    const std::string code = nb::cast<std::string>(dtype.attr("char"));
    if (code == "V") {
        const std::size_t size = nb::cast<std::size_t>(dtype.attr("itemsize"));
        if (size == 0 || nb::cast<bool>(dtype.attr("hasobject")))
            throw nb::type_error(("prepare(): the dtype " + text_of(dtype) +
                                  " cannot be a by-value argument; expected a record or vector dtype of plain data")
                                     .c_str());
        plan.push_back({arg_kind::bytes, size, 'V'});
        return;
    }
    const auto specs = parse_arg_format(code);
    plan.insert(plan.end(), specs.begin(), specs.end());
}

// The bytes of each argument of `args`.
nb::list argument_bytes(cuda::kernel_args& args) {
    nb::list result;
    void** pointers = args.pointers();
    for (std::size_t i = 0; i < args.count(); ++i)
        result.append(nb::bytes(static_cast<const char*>(pointers[i]), args.sizes()[i]));
    return result;
}

}  // namespace

std::vector<arg_spec> parse_plan(nb::handle arg_types) {
    if (nb::isinstance<nb::str>(arg_types))
        return parse_arg_format(nb::cast<std::string>(arg_types));
    std::vector<arg_spec> plan;
    for (nb::handle item : arg_types) {
        if (nb::isinstance<nb::str>(item)) {
            const auto specs = parse_arg_format(nb::cast<std::string>(item));
            plan.insert(plan.end(), specs.begin(), specs.end());
        } else {
            append_plan_item(plan, item);
        }
    }
    return plan;
}

void pack_prepared(cuda::kernel_args& args, const std::vector<arg_spec>& plan, const nb::args& values,
                   const std::string& kernel) {
    const std::size_t n = values.size();
    if (n != plan.size())
        throw nb::type_error(("Function '" + kernel + "' was prepared for " + std::to_string(plan.size()) +
                              " argument(s), got " + std::to_string(n))
                                 .c_str());
    for (std::size_t i = 0; i < n; ++i)
        push_prepared(args, plan[i], values[i], i);
}

void bind_kernel_arguments(nb::module_& m) {
    m.def(
        "_kernel_argument_bytes",
        [](nb::args values, nb::handle param_sizes) {
            std::optional<std::vector<cuda::param_info>> params;
            if (!param_sizes.is_none()) {
                params.emplace();
                for (nb::handle size : param_sizes)
                    params->push_back({0, integer_arg<std::size_t>(size, "param_sizes")});
            }
            cuda::kernel_args args;
            call_arguments(args, call_arguments::purpose::inspection, {}, nb::none()).pack(values, params);
            return argument_bytes(args);
        },
        "args"_a, "param_sizes"_a = nb::none(),
        // nanobind's own signature, with the type of *args, which it does not render.
        nb::sig("def _kernel_argument_bytes(*args: object, param_sizes: object | None = None) -> list[bytes]"),
        "The bytes Function.__call__ passes for each argument (ArgumentHandler objects through "
        "get_device_alloc(), nothing staged or called around a launch), checked against `param_sizes` where "
        "given.");
    m.def(
        "_prepared_argument_bytes",
        [](nb::handle arg_types, nb::args values) {
            cuda::kernel_args args;
            pack_prepared(args, parse_plan(arg_types), values, "<inspection>");
            return argument_bytes(args);
        },
        "arg_types"_a, "args"_a,
        nb::sig("def _prepared_argument_bytes(arg_types: object, *args: object) -> list[bytes]"),
        "The bytes a prepared call passes for each argument, by prepare(arg_types)'s plan.");
}

}  // namespace gpukit::python
