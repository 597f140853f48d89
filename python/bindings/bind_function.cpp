// gpukit.driver.Function and the In / Out / InOut argument wrappers.
//
// Two call paths: __call__ looks at each Python argument to decide how to pass it (and
// stages numpy arrays wrapped in In/Out/InOut through device memory); prepared_* calls
// convert by the plan prepare() parsed, straight into an inline kernel_args buffer.
#include "bindings.hpp"
#include "bound_function.hpp"
#include "int_args.hpp"
#include "memory_args.hpp"
#include "texture_args.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/event.hpp"
#include "gpukit/cuda/kernel_args.hpp"
#include "gpukit/cuda/launch.hpp"
#include "gpukit/cuda/managed_memory.hpp"
#include "gpukit/cuda/launch_staging.hpp"
#include "gpukit/cuda/stream.hpp"

#include <nanobind/stl/string.h>

#include <complex>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace gpukit::python {

using namespace nb::literals;

namespace {

// In / Out / InOut: which way a host array travels around a launch.
struct argument_handler {
    nb::object array;
    bool copy_in;
    bool copy_out;
};
struct in_argument : argument_handler {
    explicit in_argument(nb::object a) : argument_handler{std::move(a), true, false} {}
};
struct out_argument : argument_handler {
    explicit out_argument(nb::object a) : argument_handler{std::move(a), false, true} {}
};
struct inout_argument : argument_handler {
    explicit inout_argument(nb::object a) : argument_handler{std::move(a), true, true} {}
};

// A held Py_buffer, released when the launch is over.
class held_buffer {
public:
    held_buffer(nb::handle obj, int flags, std::size_t index) {
        if (PyObject_GetBuffer(obj.ptr(), &view_, flags) != 0) {
            PyErr_Clear();
            throw nb::type_error(("argument " + std::to_string(index) +
                                  ": the array must be contiguous" +
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

[[noreturn]] void bad_argument(std::size_t index, const std::string& what) {
    throw nb::type_error(("argument " + std::to_string(index) + ": " + what).c_str());
}

std::string type_of(nb::handle obj) { return nb::cast<std::string>(nb::type_name(obj.type())); }


void refuse_texrefs(nb::handle texrefs) {
    if (!texrefs.is_none() && nb::len(texrefs) != 0)
        throw logic_error("texrefs: CUDA 12 removed texture references; pass a TextureObject as a kernel argument "
                          "instead");
}

// Signed `value` into `size` bytes, refusing what does not fit.
void push_integer(cuda::kernel_args& args, long long value, std::size_t size, std::size_t index) {
    const long long bits = static_cast<long long>(size) * 8;
    if (size < 8 && (value < -(1LL << (bits - 1)) || value >= (1LL << bits)))
        throw nb::value_error(("argument " + std::to_string(index) + ": " + std::to_string(value) + " does not fit "
                               "the kernel's " + std::to_string(size) + "-byte parameter").c_str());
    switch (size) {
    case 1: args.push_value(static_cast<std::int8_t>(value)); break;
    case 2: args.push_value(static_cast<std::int16_t>(value)); break;
    case 4: args.push_value(static_cast<std::int32_t>(value)); break;
    case 8: args.push_value(static_cast<std::int64_t>(value)); break;
    default:
        bad_argument(index, "a Python int cannot fill a " + std::to_string(size) + "-byte parameter; pass a numpy "
                            "scalar or bytes of that size");
    }
}

void push_float(cuda::kernel_args& args, double value, std::size_t size, std::size_t index) {
    switch (size) {
    case 2: args.push_value(static_cast<_Float16>(value)); break;
    case 4: args.push_value(static_cast<float>(value)); break;
    case 8: args.push_value(value); break;
    default:
        bad_argument(index, "a Python float cannot fill a " + std::to_string(size) + "-byte parameter; pass a numpy "
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

// A device address from a pointer-like object: __cuda_array_interface__, get_pointer(), or
// int()/__index__ (DeviceAllocation, numpy.intp, plain ints). Nullopt when it is none of those.
std::optional<std::uint64_t> device_address(nb::handle obj) {
    if (PyFloat_Check(obj.ptr()))
        return std::nullopt;  // has __int__, but is never an address
    if (PyLong_Check(obj.ptr()))
        return nb::cast<std::uint64_t>(obj);
    if (nb::hasattr(obj, "__cuda_array_interface__")) {
        nb::dict interface = nb::borrow<nb::dict>(obj.attr("__cuda_array_interface__"));
        return nb::cast<std::uint64_t>(nb::borrow<nb::tuple>(interface["data"])[0]);
    }
    if (nb::hasattr(obj, "get_pointer"))
        return nb::cast<std::uint64_t>(nb::int_(obj.attr("get_pointer")()));
    if (nb::hasattr(obj, "__index__") || nb::hasattr(obj, "__int__"))
        return nb::cast<std::uint64_t>(nb::int_(obj));
    return std::nullopt;
}

struct numpy_types {
    nb::object generic, ndarray, dtype;
};

const numpy_types& numpy() {
    // Imported on first use; numpy stays loaded for the life of the interpreter.
    static const numpy_types* types = [] {
        nb::module_ np = nb::module_::import_("numpy");
        return new numpy_types{np.attr("generic"), np.attr("ndarray"), np.attr("dtype")};
    }();
    return *types;
}

// The data address of a numpy array over managed memory (managed_empty() and views of it),
// found through its chain of .base objects; nullopt for any other array. Managed memory has
// one address on host and device, so the kernel gets the array's own first element.
std::optional<std::uint64_t> managed_array_address(nb::handle array) {
    nb::object base = nb::borrow(array);
    while (PyObject_IsInstance(base.ptr(), numpy().ndarray.ptr()) == 1)
        base = base.attr("base");
    if (!nb::isinstance<cuda::managed_allocation>(base))
        return std::nullopt;
    nb::dict interface = nb::borrow<nb::dict>(array.attr("__array_interface__"));
    return nb::cast<std::uint64_t>(nb::borrow<nb::tuple>(interface["data"])[0]);
}

// Converts one argument of an unprepared call. `param_size` is the kernel's parameter size
// when the driver describes it; without it ints are 8 bytes and floats doubles.
void push_guessed(cuda::kernel_args& args, std::vector<std::unique_ptr<held_buffer>>& held,
                  std::vector<cuda::staging_buffer>& staged, nb::handle arg, std::size_t index,
                  std::optional<std::size_t> param_size, cuda::stream_view stream) {
    PyObject* o = arg.ptr();
    // numpy.float64 and numpy.complex128 subclass Python's float and complex, so numpy
    // scalars must be recognised first: they go by their own dtype, their bytes verbatim.
    if (!PyLong_CheckExact(o) && !PyFloat_CheckExact(o) && PyObject_IsInstance(o, numpy().generic.ptr()) == 1) {
        held_buffer bytes(arg, PyBUF_SIMPLE, index);
        args.push(bytes.data(), bytes.size());
    } else if (PyLong_Check(o)) {
        long long value = PyLong_AsLongLong(o);
        if (value == -1 && PyErr_Occurred()) {
            // Past int64: an address or unsigned value up to 2**64 - 1.
            PyErr_Clear();
            args.push_value(nb::cast<std::uint64_t>(arg));
            return;
        }
        push_integer(args, value, param_size.value_or(8), index);
    } else if (PyFloat_Check(o)) {
        push_float(args, PyFloat_AsDouble(o), param_size.value_or(8), index);
    } else if (PyComplex_Check(o)) {
        push_complex(args, {PyComplex_RealAsDouble(o), PyComplex_ImagAsDouble(o)}, param_size.value_or(16), index);
    } else if (nb::isinstance<argument_handler>(arg)) {
        const argument_handler& h = nb::cast<const argument_handler&>(arg);
        const int flags = PyBUF_ANY_CONTIGUOUS | (h.copy_out ? PyBUF_WRITABLE : 0);
        auto& buffer = held.emplace_back(std::make_unique<held_buffer>(h.array, flags, index));
        staged.emplace_back(buffer->data(), buffer->size(), h.copy_in, h.copy_out, stream);
        args.push_value(static_cast<std::uint64_t>(staged.back().device_pointer()));
    } else if (auto handle = texture_handle_arg(arg)) {
        // Checked here: as an object with __int__ it would otherwise pass as a pointer.
        if (param_size && *param_size != 8)
            bad_argument(index, "a " + type_of(arg) + " is a 64-bit handle, but the kernel's parameter has " +
                                    std::to_string(*param_size) + " bytes; declare it cudaTextureObject_t or "
                                    "cudaSurfaceObject_t");
        args.push_value(*handle);
    } else if (PyObject_IsInstance(o, numpy().ndarray.ptr()) == 1) {
        const auto address = managed_array_address(arg);
        if (!address)
            bad_argument(index, "a numpy array cannot be passed directly (unless it is managed memory from "
                                "managed_empty()); wrap it in In(), Out() or InOut() to copy it through device "
                                "memory, or pass a device allocation");
        args.push_value(*address);
    } else if (auto address = device_address(arg)) {
        args.push_value(*address);
    } else if (PyObject_CheckBuffer(o)) {
        held_buffer bytes(arg, PyBUF_ANY_CONTIGUOUS, index);
        args.push(bytes.data(), bytes.size());
    } else {
        bad_argument(index, "cannot pass a " + type_of(arg) + " to a kernel; expected a numpy scalar, a Python "
                            "int/float/complex, In/Out/InOut(array), a device pointer (int(), get_pointer() or "
                            "__cuda_array_interface__) or a buffer of the parameter's bytes");
    }
}

// Converts one argument of a prepared call by its spec.
void push_prepared(cuda::kernel_args& args, const arg_spec& spec, nb::handle arg, std::size_t index) {
    PyObject* o = arg.ptr();
    // A texture or surface object fills any 64-bit integer or pointer slot ('P', 'Q', 'q').
    if (auto handle = texture_handle_arg(arg)) {
        const bool integral = spec.kind == arg_kind::pointer || spec.kind == arg_kind::signed_int ||
                              spec.kind == arg_kind::unsigned_int;
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
            bad_argument(index, "format '" + std::string(1, spec.code) + "' expects an integer, got " +
                                    type_of(arg));
        }
        if (spec.kind == arg_kind::unsigned_int && spec.size == 8) {
            const unsigned long long value = PyLong_AsUnsignedLongLong(number.ptr());
            if (value == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
                PyErr_Clear();
                throw nb::value_error(("argument " + std::to_string(index) + ": expected an integer from 0 to "
                                       "2**64-1 for format '" + std::string(1, spec.code) + "'").c_str());
            }
            args.push_value(static_cast<std::uint64_t>(value));
            return;
        }
        const long long value = PyLong_AsLongLong(number.ptr());
        if (value == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            throw nb::value_error(("argument " + std::to_string(index) + ": the integer does not fit format '" +
                                   std::string(1, spec.code) + "'").c_str());
        }
        if (spec.kind == arg_kind::unsigned_int && value < 0)
            throw nb::value_error(("argument " + std::to_string(index) + ": format '" + std::string(1, spec.code) +
                                   "' is unsigned, got " + std::to_string(value)).c_str());
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
            bad_argument(index, "format '" + std::string(1, spec.code) + "' expects a complex number, got " +
                                    type_of(arg));
        }
        push_complex(args, {value.real, value.imag}, spec.size, index);
        return;
    }
    case arg_kind::pointer: {
        const auto address = PyObject_IsInstance(o, numpy().ndarray.ptr()) == 1 ? managed_array_address(arg)
                                                                                 : device_address(arg);
        if (!address)
            bad_argument(index, "format 'P' expects a device pointer (an int, int()-convertible allocation, "
                                "get_pointer(), __cuda_array_interface__ or a managed numpy array), got " +
                                    type_of(arg));
        args.push_value(*address);
        return;
    }
    case arg_kind::bytes: {
        held_buffer bytes(arg, PyBUF_ANY_CONTIGUOUS, index);
        if (bytes.size() != spec.size)
            bad_argument(index, "expected " + std::to_string(spec.size) + " bytes (a value of the record or vector "
                                "dtype prepared for this slot), got " + std::to_string(bytes.size()));
        args.push(bytes.data(), bytes.size());
        return;
    }
    }
}

// The plan for prepare(): a format string, or an iterable of format letters and dtypes.
std::vector<arg_spec> parse_plan(nb::handle arg_types) {
    if (nb::isinstance<nb::str>(arg_types))
        return parse_arg_format(nb::cast<std::string>(arg_types));
    std::vector<arg_spec> plan;
    for (nb::handle item : arg_types) {
        if (nb::isinstance<nb::str>(item)) {
            const auto specs = parse_arg_format(nb::cast<std::string>(item));
            plan.insert(plan.end(), specs.begin(), specs.end());
            continue;
        }
        nb::object dtype = numpy().dtype(item);
        const std::string code = nb::cast<std::string>(dtype.attr("char"));
        if (code == "V") {
            plan.push_back({arg_kind::bytes, nb::cast<std::size_t>(dtype.attr("itemsize")), 'V'});
            continue;
        }
        const auto specs = parse_arg_format(code);
        plan.insert(plan.end(), specs.begin(), specs.end());
    }
    return plan;
}

const std::vector<arg_spec>& plan_of(const bound_function& f) {
    if (!f.plan)
        throw logic_error("Function '" + f.fn.name() + "': call prepare(arg_types) before the prepared_* calls");
    return *f.plan;
}

void pack_prepared(cuda::kernel_args& args, const bound_function& f, const nb::args& values) {
    const std::vector<arg_spec>& plan = plan_of(f);
    const std::size_t n = values.size();
    if (n != plan.size())
        throw nb::type_error(("Function '" + f.fn.name() + "' was prepared for " + std::to_string(plan.size()) +
                              " argument(s), got " + std::to_string(n)).c_str());
    for (std::size_t i = 0; i < n; ++i)
        push_prepared(args, plan[i], values[i], i);
}

void launch(const bound_function& f, cuda::kernel_args& args, nb::handle grid, nb::handle block,
            cuda::stream_view stream, std::size_t shared) {
    const cuda::launch_config config =
        cuda::launch_config().grid(to_dim3(grid, "grid")).block(to_dim3(block, "block")).shared_bytes(shared).stream(
            stream);
    // The GIL stays held: a launch only enqueues work, and releasing it would cost more than the launch.
    cuda::launch_packed(f.fn, config, args.pointers(), args.sizes(), args.count());
}

// Seconds between two recorded events, waiting for the later one.
double seconds_between(const cuda::event& start, const cuda::event& stop) {
    {
        release_gil release;
        stop.synchronize();
    }
    return stop.time_since(start) / 1000.0;
}

nb::object call(const bound_function& f, const nb::args& values, nb::handle block, nb::handle grid,
                nb::handle stream_object, int_arg<std::size_t> shared_arg, nb::handle texrefs, bool time_kernel) {
    refuse_texrefs(texrefs);
    const std::size_t shared = shared_arg.get("Function(shared)");
    if (block.is_none())
        throw nb::type_error(("Function '" + f.fn.name() + "': block=(x, y, z) is required").c_str());
    const cuda::stream_view stream = stream_arg(stream_object);
    const auto& params = f.fn.params();

    cuda::kernel_args args;
    std::vector<std::unique_ptr<held_buffer>> held;
    std::vector<cuda::staging_buffer> staged;
    for (std::size_t i = 0; i < values.size(); ++i) {
        std::optional<std::size_t> size;
        if (params && i < params->size())
            size = (*params)[i].size;
        push_guessed(args, held, staged, values[i], i, size, stream);
    }

    std::optional<cuda::event> start, stop;
    if (time_kernel) {
        start.emplace(cuda::event::create());
        stop.emplace(cuda::event::create());
        start->record(stream);
    }
    launch(f, args, grid, block, stream, shared);
    if (time_kernel)
        stop->record(stream);
    {
        release_gil release;
        for (cuda::staging_buffer& s : staged)
            s.finish();
        staged.clear();  // waits for the stream and frees the device copies
    }
    if (time_kernel)
        return nb::float_(seconds_between(*start, *stop));
    return nb::none();
}

}  // namespace

cuda::dim3 to_dim3(nb::handle value, const char* what) {
    auto refuse = [&] {
        throw nb::type_error((std::string(what) + " must be a tuple of 1 to 3 positive integers").c_str());
    };
    // Tuples, by far the usual case, are read in place; other sequences through a tuple copy.
    nb::object owned;
    PyObject* tuple = value.ptr();
    if (!PyTuple_Check(tuple)) {
        owned = nb::steal(PySequence_Tuple(tuple));
        if (!owned.is_valid()) {
            PyErr_Clear();
            refuse();
        }
        tuple = owned.ptr();
    }
    const Py_ssize_t n = PyTuple_GET_SIZE(tuple);
    if (n < 1 || n > 3)
        refuse();
    cuda::dim3 d;
    unsigned int* slots[] = {&d.x, &d.y, &d.z};
    for (Py_ssize_t i = 0; i < n; ++i) {
        const long long v = PyLong_AsLongLong(PyTuple_GET_ITEM(tuple, i));
        if (v == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            refuse();
        }
        if (v < 0 || v > 0xffffffffLL)
            throw logic_error(std::string(what) + " dimension " + std::to_string(i) + " is " + std::to_string(v) +
                              "; expected a value from 1 to the device's limit");
        *slots[i] = static_cast<unsigned int>(v);
    }
    return d;
}

void pack_node_arguments(cuda::kernel_args& args, const bound_function& f, const nb::args& values) {
    const auto& params = f.fn.params();
    std::vector<std::unique_ptr<held_buffer>> held;
    std::vector<cuda::staging_buffer> staged;
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (nb::isinstance<argument_handler>(values[i]))
            bad_argument(i, "In/Out/InOut cannot be graph node arguments (a node cannot copy host arrays around "
                            "its launch); copy to device memory and pass that");
        std::optional<std::size_t> size;
        if (params && i < params->size())
            size = (*params)[i].size;
        push_guessed(args, held, staged, values[i], i, size, {});
    }
}

void bind_function(nb::module_& m) {
    nb::class_<argument_handler>(m, "ArgumentHandler",
                                 "Base of In, Out and InOut: a host array copied through device memory for a call.")
        .def_ro("array", &argument_handler::array);
    nb::class_<in_argument, argument_handler>(m, "In", "Copy `array` to the device before the call.")
        .def(nb::init<nb::object>(), "array"_a);
    nb::class_<out_argument, argument_handler>(m, "Out", "Copy the device data back into `array` after the call.")
        .def(nb::init<nb::object>(), "array"_a);
    nb::class_<inout_argument, argument_handler>(m, "InOut",
                                                 "Copy `array` to the device before the call and back after it.")
        .def(nb::init<nb::object>(), "array"_a);

    nb::class_<bound_function> cls(m, "Function", nb::dynamic_attr(), "A kernel in a Module; get one with Module.get_function(name).");
    cls.def("__call__", &call, "args"_a, "block"_a = nb::none(), "grid"_a = nb::make_tuple(1, 1),
            "stream"_a = nb::none(), "shared"_a.none() = 0, "texrefs"_a = nb::list(), "time_kernel"_a = false,
            "Launch with a thread block of shape `block` on `grid`; returns the kernel's seconds when time_kernel.")
        .def("prepare", [](nb::handle self, nb::handle arg_types, nb::handle shared, nb::handle texrefs) {
            refuse_texrefs(texrefs);
            if (!shared.is_none())
                throw logic_error("prepare(shared=...) is no longer supported; pass shared_size= to the prepared_* "
                                  "calls instead");
            nb::cast<bound_function&>(self).plan = parse_plan(arg_types);
            return self;
        }, "arg_types"_a, "shared"_a = nb::none(), "texrefs"_a = nb::list(),
           "Fix the argument types (struct letters such as \"iPf\", numpy dtypes, 'F'/'D' complex). Returns self.")
        .def("prepared_call", [](const bound_function& f, nb::handle grid, nb::handle block, nb::args values,
                                 int_arg<std::size_t> shared_size) {
            cuda::kernel_args args;
            pack_prepared(args, f, values);
            launch(f, args, grid, block, {}, shared_size.get("prepared_call(shared_size)"));
        }, "grid"_a, "block"_a, "args"_a, "shared_size"_a.none() = 0)
        .def("prepared_async_call", [](const bound_function& f, nb::handle grid, nb::handle block, nb::handle stream,
                                       nb::args values, int_arg<std::size_t> shared_size) {
            cuda::kernel_args args;
            pack_prepared(args, f, values);
            launch(f, args, grid, block, stream_arg(stream), shared_size.get("prepared_async_call(shared_size)"));
        }, "grid"_a, "block"_a, "stream"_a.none(), "args"_a, "shared_size"_a.none() = 0)
        .def("prepared_timed_call", [](const bound_function& f, nb::handle grid, nb::handle block, nb::args values,
                                       int_arg<std::size_t> shared_arg) {
            const std::size_t shared_size = shared_arg.get("prepared_timed_call(shared_size)");
            cuda::kernel_args args;
            pack_prepared(args, f, values);
            auto events = std::make_shared<std::pair<cuda::event, cuda::event>>(cuda::event::create(),
                                                                                cuda::event::create());
            events->first.record();
            launch(f, args, grid, block, {}, shared_size);
            events->second.record();
            return nb::cpp_function([events] { return seconds_between(events->first, events->second); });
        }, "grid"_a, "block"_a, "args"_a, "shared_size"_a.none() = 0,
           "Launch, and return a callable that waits for the kernel and gives its run time in seconds.")
        .def("get_attribute", [](const bound_function& f, int_arg<int> attr) {
            return f.fn.attribute(static_cast<CUfunction_attribute>(attr.get("Function.get_attribute(attr)")));
        }, "attr"_a.none())
        .def("set_attribute", [](const bound_function& f, int_arg<int> attr, int_arg<int> value) {
            f.fn.set_attribute(static_cast<CUfunction_attribute>(attr.get("Function.set_attribute(attr)")),
                               value.get("Function.set_attribute(value)"));
        }, "attr"_a.none(), "value"_a.none())
        .def("set_cache_config", [](const bound_function& f, int_arg<int> fc) {
            f.fn.set_cache_config(static_cast<CUfunc_cache>(fc.get("Function.set_cache_config(fc)")));
        }, "fc"_a.none())
        .def("set_shared_config", [](const bound_function& f, int_arg<int> sc) {
            f.fn.set_shared_config(static_cast<CUsharedconfig>(sc.get("Function.set_shared_config(sc)")));
        }, "sc"_a.none())
        .def_prop_ro("name", [](const bound_function& f) { return f.fn.name(); })
        .def_prop_ro("handle", [](const bound_function& f) { return reinterpret_cast<std::uintptr_t>(f.fn.handle()); })
        .def_prop_ro("param_sizes", [](const bound_function& f) -> nb::object {
            if (!f.fn.params())
                return nb::none();
            nb::list sizes;
            for (const cuda::param_info& p : *f.fn.params())
                sizes.append(p.size);
            return sizes;
        }, "Each parameter's size in bytes, or None when the driver cannot say (before CUDA 12.4).");

    // Every function_attribute is also a read-only property: f.num_regs, f.max_threads_per_block, ...
    for (nb::handle member : m.attr("function_attribute")) {  // constant_class, while the module is made
        const std::string name = nb::cast<std::string>(member.attr("name"));
        if (name == "MAX")
            continue;
        const int value = nb::cast<int>(nb::int_(member));
        std::string lower;
        for (char c : name)
            lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        cls.def_prop_ro(lower.c_str(), [value](const bound_function& f) {
            return f.fn.attribute(static_cast<CUfunction_attribute>(value));
        });
    }
}

}  // namespace gpukit::python
