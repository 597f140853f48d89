// gpukit._gpukit.cl: the OpenCL backend (re-exported by gpukit.cl). Translation only: Python
// objects become C++ calls of gpukit::cl, and its exceptions become gpukit.cl.Error subclasses.
#include "bindings.hpp"
#include "cl_args.hpp"
#include "exception_types.hpp"
#include "cl_host_memory.hpp"

#include "gpukit/cl/api.hpp"
#include "gpukit/cl/buffer.hpp"
#include "gpukit/cl/kernel.hpp"
#include "gpukit/cl/platform.hpp"
#include "gpukit/cl/select.hpp"
#include "gpukit/cl/svm.hpp"

#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>

namespace gpukit::python {

using namespace nb::literals;

namespace {

exception_tree cl_types;

void bind_exceptions(nb::module_& m, nb::module_& parent) {
    // Under gpukit.driver.Error, the base of every gpukit error.
    cl_types = new_exception_tree(
        m, "gpukit.cl", parent.attr("Error").ptr(),
        {.error = "An OpenCL call failed; `code` is the CL status, `routine` the call.",
         .memory = "The device or host ran out of memory or resources.",
         .logic = "The program used OpenCL wrongly (CL_INVALID_*, bad arguments).",
         .runtime = "The environment failed: no library, no device, a program that did not build "
                    "(then `build_log` holds the compiler output)."});
    // Registered after bind_errors, so this translator is tried first.
    nb::register_exception_translator([](const std::exception_ptr& p, void*) {
        try {
            std::rethrow_exception(p);
        } catch (const cl::build_error& e) {
            raise_api_error(cl_types.runtime, e, {{"build_log", nb::str(e.log().c_str())}});
        } catch (const cl::memory_error& e) {
            raise_api_error(cl_types.memory, e);
        } catch (const cl::logic_error& e) {
            raise_api_error(cl_types.logic, e);
        } catch (const cl::runtime_error& e) {
            raise_api_error(cl_types.runtime, e);
        } catch (const cl_error& e) {
            raise_api_error(cl_types.error, e);
        }
    });
}

void bind_flags(nb::module_& m, const char* name, std::initializer_list<std::pair<const char*, cl_bitfield>> members) {
    nb::list items;
    for (const auto& [member, value] : members)
        items.append(nb::make_tuple(member, value));
    nb::object cls = nb::module_::import_("enum").attr("IntFlag")(name, items, "module"_a = "gpukit.cl");
    m.attr(name) = cls;
}

// The flag class is looked up in the module, which owns it (as constant_class does).
nb::object as_flags(const char* name, cl_bitfield value) {
    return nb::module_::import_("gpukit._gpukit.cl").attr(name)(value);
}

// The clGetMemObjectInfo parameters Buffer.get_info decodes, with the C type of each value
// (PyOpenCL's mem_info names). CONTEXT, ASSOCIATED_MEMOBJECT and PROPERTIES are not among them:
// they would need objects gpukit cannot rebuild from a handle.
enum class info_type { size, flags, uint, boolean, address };
struct mem_info_param {
    const char* name;
    cl_mem_info param;
    info_type type;
};
constexpr mem_info_param mem_info_params[] = {
    {"TYPE", CL_MEM_TYPE, info_type::uint},           {"FLAGS", CL_MEM_FLAGS, info_type::flags},
    {"SIZE", CL_MEM_SIZE, info_type::size},           {"HOST_PTR", CL_MEM_HOST_PTR, info_type::address},
    {"MAP_COUNT", CL_MEM_MAP_COUNT, info_type::uint}, {"REFERENCE_COUNT", CL_MEM_REFERENCE_COUNT, info_type::uint},
    {"OFFSET", CL_MEM_OFFSET, info_type::size},       {"USES_SVM_POINTER", CL_MEM_USES_SVM_POINTER, info_type::boolean},
};

template <class T>
T info_as(const std::vector<std::byte>& bytes) {
    T value{};
    std::memcpy(&value, bytes.data(), std::min(bytes.size(), sizeof value));
    return value;
}

// Kernel.get_work_group_info: PyOpenCL's kernel_work_group_info names, each a size_t or a
// cl_ulong (COMPILE_WORK_GROUP_SIZE: three size_t, a list).
struct work_group_info_param {
    const char* name;
    cl_kernel_work_group_info param;
};
constexpr work_group_info_param work_group_info_params[] = {
    {"WORK_GROUP_SIZE", CL_KERNEL_WORK_GROUP_SIZE},
    {"COMPILE_WORK_GROUP_SIZE", CL_KERNEL_COMPILE_WORK_GROUP_SIZE},
    {"LOCAL_MEM_SIZE", CL_KERNEL_LOCAL_MEM_SIZE},
    {"PREFERRED_WORK_GROUP_SIZE_MULTIPLE", CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE},
    {"PRIVATE_MEM_SIZE", CL_KERNEL_PRIVATE_MEM_SIZE},
};

nb::object kernel_work_group_info(const cl::kernel& k, nb::handle param_arg, const cl::device& dev) {
    const auto param = static_cast<cl_kernel_work_group_info>(cl_unsigned(
        param_arg, "Kernel.get_work_group_info(param)", std::numeric_limits<cl_kernel_work_group_info>::max()));
    const auto* known = std::find_if(std::begin(work_group_info_params), std::end(work_group_info_params),
                                     [&](const work_group_info_param& p) { return p.param == param; });
    if (known == std::end(work_group_info_params))
        throw cl::logic_error("Kernel.get_work_group_info: parameter " + std::to_string(param) +
                                  " is not supported; expected one of kernel_work_group_info",
                              CL_INVALID_VALUE, "clGetKernelWorkGroupInfo");
    const std::vector<std::byte> bytes = k.work_group_info_bytes(param, dev);
    if (param == CL_KERNEL_COMPILE_WORK_GROUP_SIZE) {
        nb::list sizes;
        for (size_t i = 0; i + sizeof(size_t) <= bytes.size(); i += sizeof(size_t)) {
            size_t value = 0;
            std::memcpy(&value, bytes.data() + i, sizeof value);
            sizes.append(value);
        }
        return std::move(sizes);
    }
    if (param == CL_KERNEL_LOCAL_MEM_SIZE || param == CL_KERNEL_PRIVATE_MEM_SIZE)
        return nb::int_(info_as<cl_ulong>(bytes));
    return nb::int_(info_as<size_t>(bytes));
}

nb::object buffer_info(const cl::buffer& b, nb::handle param_arg) {
    const auto param = static_cast<cl_mem_info>(
        cl_unsigned(param_arg, "Buffer.get_info(param)", std::numeric_limits<cl_mem_info>::max()));
    const auto* known = std::find_if(std::begin(mem_info_params), std::end(mem_info_params),
                                     [&](const mem_info_param& p) { return p.param == param; });
    if (known == std::end(mem_info_params)) {
        std::string names;
        for (const mem_info_param& p : mem_info_params)
            names += (names.empty() ? "mem_info." : ", mem_info.") + std::string(p.name);
        throw cl::logic_error("Buffer.get_info: parameter " + std::to_string(param) + " is not supported; expected " +
                                  names,
                              CL_INVALID_VALUE, "clGetMemObjectInfo");
    }
    const std::vector<std::byte> bytes = b.info_bytes(param);
    switch (known->type) {
    case info_type::size:
        return nb::int_(info_as<size_t>(bytes));
    case info_type::flags:
        return as_flags("mem_flags", info_as<cl_mem_flags>(bytes));
    case info_type::uint:
        return nb::int_(info_as<cl_uint>(bytes));
    case info_type::boolean:
        return nb::bool_(info_as<::cl_bool>(bytes) != CL_FALSE);
    case info_type::address:
        return nb::int_(reinterpret_cast<std::uintptr_t>(info_as<void*>(bytes)));
    }
    return nb::none();
}

std::vector<cl_event> wait_list(nb::handle wait_for) {
    std::vector<cl_event> events;
    if (wait_for.is_none())
        return events;
    for (nb::handle e : wait_for) {
        if (!nb::isinstance<cl::event>(e))
            throw nb::type_error("wait_for must be a sequence of gpukit.cl.Event");
        events.push_back(nb::cast<const cl::event&>(e).handle());
    }
    return events;
}

// A work size: an int or a sequence of ints; None (local size only) lets OpenCL choose.
std::vector<size_t> work_size(nb::handle value, const char* what) {
    std::vector<size_t> sizes;
    if (value.is_none())
        return sizes;
    if (PyIndex_Check(value.ptr())) {
        sizes.push_back(cl_unsigned(value, what));
        return sizes;
    }
    if (!PySequence_Check(value.ptr()) || PyUnicode_Check(value.ptr()) || PyBytes_Check(value.ptr()))
        throw nb::type_error((std::string(what) + " must be an int or a sequence of 1 to 3 ints, got " +
                              nb::cast<std::string>(nb::type_name(value.type())))
                                 .c_str());
    for (nb::handle item : value)
        sizes.push_back(cl_unsigned(item, what));
    return sizes;
}

// What a numpy scalar holds, by its dtype's kind: numbers are checked against the parameter's
// type; structured scalars and raw bytes (numpy.void) only by size.
cl::value_type numpy_value_type(nb::handle scalar) {
    const std::string kind = nb::cast<std::string>(scalar.attr("dtype").attr("kind"));
    if (kind == "i" || kind == "u")
        return cl::value_type::integer;
    if (kind == "f")
        return cl::value_type::floating;
    if (kind == "V" || kind == "S")
        return cl::value_type::bytes;
    return cl::value_type::other;  // bool, complex, datetime, str
}

// A Python kernel argument as gpukit::cl takes it. The bytes of a numpy scalar go to
// `values`, which must outlive the argument; SVM goes to `svm_used` too, which the launch
// holds until it completes (the program may drop a PooledSVM right after the call).
cl::kernel_arg kernel_arg_from(const cl::kernel& k, cl_uint index, nb::handle value, std::vector<nb::bytes>& values,
                               python_hold& svm_used) {
    if (value.is_none())  // a NULL pointer, as PyOpenCL passes None (an allocator's zero-byte buffer)
        return nullptr;
    if (nb::isinstance<cl::buffer>(value))
        return std::cref(nb::cast<const cl::buffer&>(value));
    if (nb::isinstance<cl::svm_pointer>(value)) {
        svm_used.keep(value);
        return std::cref(nb::cast<const cl::svm_pointer&>(value));
    }
    if (nb::isinstance<cl::local_memory>(value))
        return nb::cast<cl::local_memory>(value);
    nb::object numpy_scalar = nb::module_::import_("numpy").attr("generic");
    if (PyObject_IsInstance(value.ptr(), numpy_scalar.ptr()) == 1) {
        const nb::bytes& bytes = values.emplace_back(nb::borrow<nb::bytes>(value.attr("tobytes")()));
        return cl::value_arg{std::span(static_cast<const std::byte*>(bytes.data()), bytes.size()),
                             numpy_value_type(value)};
    }
    throw nb::type_error((k.describe_arg(index) + " is a " + nb::cast<std::string>(nb::type_name(value.type())) +
                          "; expected a Buffer, SVM, None, a numpy scalar of the parameter's type (numpy.float32(1.5), "
                          "numpy.int32(4)) or LocalMemory(nbytes)")
                             .c_str());
}

// Sets every argument of `k` from `args`; the SVM among them goes to `svm_used`.
void set_kernel_args(cl::kernel& k, nb::args args, python_hold& svm_used) {
    if (args.size() != k.num_args())
        throw cl::logic_error("kernel '" + k.name() + "' takes " + std::to_string(k.num_args()) + " argument(s), " +
                                  std::to_string(args.size()) + " given",
                              CL_INVALID_KERNEL_ARGS, "Kernel.set_args");
    std::vector<nb::bytes> values;
    for (size_t i = 0; i < args.size(); ++i) {
        const auto index = static_cast<cl_uint>(i);
        k.set_arg(index, kernel_arg_from(k, index, args[i], values, svm_used));
    }
}

// Enqueues a copy without waiting for it; `hold` receives the host memory and SVM it uses.
// With SVM on one side, the other side is SVM or host memory; offsets are refused there: SVM is
// addressed by pointer, and the copy starts at the start of both sides.
cl::event enqueue_copy_command(const cl::queue& q, nb::handle dest, nb::handle src, size_t dst_offset,
                               size_t src_offset, std::optional<size_t> byte_count, python_hold& hold,
                               const std::vector<cl_event>& events) {
    if (nb::isinstance<cl::svm_pointer>(dest) || nb::isinstance<cl::svm_pointer>(src)) {
        if (dst_offset || src_offset)
            throw cl::logic_error("enqueue_copy: dst_offset and src_offset are not supported with SVM; expected 0",
                                  CL_INVALID_VALUE, "clEnqueueSVMMemcpy");
        auto side = [&](nb::handle obj, bool writable, const char* role) -> std::span<std::byte> {
            if (!nb::isinstance<cl::svm_pointer>(obj))
                return hold.export_memory(obj, writable, role);
            const auto& p = nb::cast<const cl::svm_pointer&>(obj);
            cl::check_svm_usable(p, q.context_handle(), std::string("enqueue_copy: ") + role);
            hold.keep(obj);  // a PooledSVM or SVMAllocation dropped now must not be reused or freed yet
            return {static_cast<std::byte*>(p.pointer()), p.size()};
        };
        const std::span<std::byte> d = side(dest, true, "the destination"), s = side(src, false, "the source");
        // As with buffers, a host side is copied whole; between SVM, the smaller size.
        const size_t bytes = byte_count.value_or(!nb::isinstance<cl::svm_pointer>(src)    ? s.size()
                                                 : !nb::isinstance<cl::svm_pointer>(dest) ? d.size()
                                                                                           : std::min(d.size(), s.size()));
        if (bytes > d.size() || bytes > s.size())
            throw cl::logic_error("enqueue_copy: byte_count " + std::to_string(bytes) + " is larger than the source (" +
                                      std::to_string(s.size()) + " bytes) or the destination (" +
                                      std::to_string(d.size()) + " bytes)",
                                  CL_INVALID_VALUE, "clEnqueueSVMMemcpy");
        return cl::enqueue_svm_copy(q, d.data(), s.data(), bytes, false, events);
    }
    const bool dest_is_buffer = nb::isinstance<cl::buffer>(dest), src_is_buffer = nb::isinstance<cl::buffer>(src);
    if (dest_is_buffer && src_is_buffer) {
        const auto& d = nb::cast<const cl::buffer&>(dest);
        const auto& s = nb::cast<const cl::buffer&>(src);
        const size_t available = std::min(s.size() - std::min(src_offset, s.size()),
                                          d.size() - std::min(dst_offset, d.size()));
        return cl::enqueue_copy(q, s, d, src_offset, dst_offset, byte_count.value_or(available), events);
    }
    auto bytes_for = [&](std::span<std::byte> host, const char* role) {
        if (byte_count && *byte_count > host.size())
            throw cl::logic_error("byte_count " + std::to_string(*byte_count) + " is larger than the " + role +
                                      " array of " + std::to_string(host.size()) + " bytes",
                                  CL_INVALID_VALUE, "enqueue_copy");
        return byte_count.value_or(host.size());
    };
    if (dest_is_buffer) {
        const std::span<std::byte> host = hold.export_memory(src, false, "the source");
        return cl::enqueue_write(q, nb::cast<const cl::buffer&>(dest), dst_offset, host.data(),
                                 bytes_for(host, "source"), false, events);
    }
    if (src_is_buffer) {
        const std::span<std::byte> host = hold.export_memory(dest, true, "the destination");
        return cl::enqueue_read(q, nb::cast<const cl::buffer&>(src), src_offset, host.data(),
                                bytes_for(host, "destination"), false, events);
    }
    throw nb::type_error(
        "enqueue_copy: one of dest and src must be a Buffer or SVM (host-to-host copies are numpy's job)");
}

// The command is enqueued with the GIL held, so no other thread can release a Buffer or SVM
// of it meanwhile (the command then holds what it needs); only the wait lets the GIL go.
cl::event enqueue_copy(const cl::queue& q, nb::handle dest, nb::handle src, nb::handle dst_offset_arg,
                       nb::handle src_offset_arg, nb::handle byte_count_arg, nb::handle is_blocking_arg,
                       nb::handle wait_for) {
    const size_t dst_offset = cl_unsigned(dst_offset_arg, "enqueue_copy(dst_offset)");
    const size_t src_offset = cl_unsigned(src_offset_arg, "enqueue_copy(src_offset)");
    std::optional<size_t> byte_count;
    if (!byte_count_arg.is_none())
        byte_count = cl_unsigned(byte_count_arg, "enqueue_copy(byte_count)");
    const bool is_blocking = cl_bool(is_blocking_arg, "enqueue_copy(is_blocking)");
    const std::vector<cl_event> events = wait_list(wait_for);
    python_hold hold;
    cl::event done = enqueue_copy_command(q, dest, src, dst_offset, src_offset, byte_count, hold, events);
    if (!hold.empty())
        done.keep_until_complete(share_hold(std::move(hold)));
    if (is_blocking) {
        release_gil release;
        done.wait();
    }
    release_dropped_holds();
    return done;
}

// Context(devices): a sequence of Devices, checked item by item.
std::vector<cl::device> device_list(nb::handle devices) {
    if (!PySequence_Check(devices.ptr()) || PyUnicode_Check(devices.ptr()))
        throw nb::type_error(("Context(devices) must be a sequence of gpukit.cl.Device, got " +
                              nb::cast<std::string>(nb::type_name(devices.type())))
                                 .c_str());
    std::vector<cl::device> result;
    for (nb::handle item : devices) {
        if (!nb::isinstance<cl::device>(item))
            throw nb::type_error(("Context(devices): item " + std::to_string(result.size()) + " is a " +
                                  nb::cast<std::string>(nb::type_name(item.type())) + "; expected gpukit.cl.Device")
                                     .c_str());
        result.push_back(nb::cast<cl::device>(item));
    }
    return result;
}

std::string join_options(nb::handle options) {
    if (options.is_none())  // PyOpenCL's default
        return {};
    if (nb::isinstance<nb::str>(options))
        return nb::cast<std::string>(options);
    std::string joined;
    for (nb::handle option : options) {
        if (!nb::isinstance<nb::str>(option))
            throw nb::type_error("build options must be a str or a sequence of str");
        joined += (joined.empty() ? "" : " ") + nb::cast<std::string>(option);
    }
    return joined;
}

}  // namespace

void bind_cl(nb::module_& parent) {
    nb::module_ m = parent.def_submodule("cl", "The OpenCL backend; use it through gpukit.cl.");
    bind_exceptions(m, parent);

    bind_flags(m, "mem_flags", {{"READ_WRITE", CL_MEM_READ_WRITE}, {"WRITE_ONLY", CL_MEM_WRITE_ONLY},
                                {"READ_ONLY", CL_MEM_READ_ONLY}, {"USE_HOST_PTR", CL_MEM_USE_HOST_PTR},
                                {"ALLOC_HOST_PTR", CL_MEM_ALLOC_HOST_PTR}, {"COPY_HOST_PTR", CL_MEM_COPY_HOST_PTR},
                                {"HOST_WRITE_ONLY", CL_MEM_HOST_WRITE_ONLY}, {"HOST_READ_ONLY", CL_MEM_HOST_READ_ONLY},
                                {"HOST_NO_ACCESS", CL_MEM_HOST_NO_ACCESS}});
    bind_flags(m, "device_type", {{"DEFAULT", CL_DEVICE_TYPE_DEFAULT}, {"CPU", CL_DEVICE_TYPE_CPU},
                                  {"GPU", CL_DEVICE_TYPE_GPU}, {"ACCELERATOR", CL_DEVICE_TYPE_ACCELERATOR},
                                  {"CUSTOM", CL_DEVICE_TYPE_CUSTOM}, {"ALL", CL_DEVICE_TYPE_ALL}});
    {
        nb::list items;
        for (const mem_info_param& p : mem_info_params)
            items.append(nb::make_tuple(p.name, p.param));
        m.attr("mem_info") = nb::module_::import_("enum").attr("IntEnum")("mem_info", items, "module"_a = "gpukit.cl");
        nb::list work_group_items;
        for (const work_group_info_param& p : work_group_info_params)
            work_group_items.append(nb::make_tuple(p.name, p.param));
        m.attr("kernel_work_group_info") = nb::module_::import_("enum").attr("IntEnum")(
            "kernel_work_group_info", work_group_items, "module"_a = "gpukit.cl");
    }
    bind_flags(m, "svm_mem_flags", {{"READ_WRITE", CL_MEM_READ_WRITE}, {"WRITE_ONLY", CL_MEM_WRITE_ONLY},
                                    {"READ_ONLY", CL_MEM_READ_ONLY}, {"SVM_FINE_GRAIN_BUFFER", CL_MEM_SVM_FINE_GRAIN_BUFFER},
                                    {"SVM_ATOMICS", CL_MEM_SVM_ATOMICS}});
    bind_flags(m, "command_queue_properties", {{"OUT_OF_ORDER_EXEC_MODE_ENABLE", CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE},
                                               {"PROFILING_ENABLE", CL_QUEUE_PROFILING_ENABLE}});

    m.def("available", &cl::available, "True when libOpenCL.so.1 can be loaded.");
    m.def("error_name", [](nb::handle code) {
        return cl::error_name(static_cast<cl_int>(cl_signed(code, "error_name(code)", INT32_MIN, INT32_MAX)));
    }, "code"_a.none());
    m.def("get_platforms", &cl::platform::all);
    m.def("parse_device_spec", [](const std::string& spec) {
        std::vector<std::pair<std::string, std::vector<std::string>>> entries;
        for (cl::device_spec& e : cl::parse_device_spec(spec))
            entries.emplace_back(std::move(e.platform), std::move(e.devices));
        return entries;
    }, "spec"_a, "The (platform, [devices]) entries of a GPUKIT_CL_TEST-style selection string.");
    m.def("select_devices", nb::overload_cast<std::string_view>(&cl::select_devices), "spec"_a);
    m.def("create_some_context", &cl::create_some_context);

    // The classes PyOpenCL binds with dynamic attributes take them here too (instances get a
    // __dict__), and every class can be subclassed in Python, as PyOpenCL's: libraries keep
    // their own state on these objects and derive their own kinds of them.
    nb::class_<cl::platform>(m, "Platform", nb::dynamic_attr(), "An installed OpenCL implementation.")
        .def_prop_ro("name", &cl::platform::name)
        .def_prop_ro("vendor", &cl::platform::vendor)
        .def_prop_ro("version", &cl::platform::version)
        .def_prop_ro("profile", &cl::platform::profile)
        .def_prop_ro("extensions", &cl::platform::extensions)
        .def("get_devices", [](const cl::platform& p, nb::handle type) {
            return p.devices(cl_unsigned(type, "Platform.get_devices(device_type)"));
        }, "device_type"_a.none() = CL_DEVICE_TYPE_ALL)
        .def_prop_ro("int_ptr", [](const cl::platform& p) { return reinterpret_cast<std::uintptr_t>(p.handle()); })
        .def("__eq__", [](const cl::platform& a, const cl::platform& b) { return a == b; })
        .def("__hash__", [](const cl::platform& p) { return reinterpret_cast<std::uintptr_t>(p.handle()); })
        .def("__repr__", [](const cl::platform& p) { return "<gpukit.cl.Platform '" + p.name() + "'>"; });

    nb::class_<cl::device>(m, "Device", nb::dynamic_attr(), "An OpenCL device.")
        .def_prop_ro("name", &cl::device::name)
        .def_prop_ro("type", [](const cl::device& d) { return as_flags("device_type", d.type()); })
        .def_prop_ro("vendor", &cl::device::vendor)
        .def_prop_ro("version", &cl::device::version)
        .def_prop_ro("driver_version", &cl::device::driver_version)
        .def_prop_ro("extensions", &cl::device::extensions)
        .def_prop_ro("max_compute_units", &cl::device::max_compute_units)
        .def_prop_ro("global_mem_size", &cl::device::global_mem_size)
        .def_prop_ro("local_mem_size", &cl::device::local_mem_size)
        .def_prop_ro("max_work_group_size", &cl::device::max_work_group_size)
        .def_prop_ro("max_mem_alloc_size", &cl::device::max_mem_alloc_size)
        .def_prop_ro("svm_capabilities", &cl::device::svm_capabilities)
        .def_prop_ro("platform", &cl::device::get_platform)
        .def("get_info", [](const cl::device& d, nb::handle param) {
            const auto bytes = d.info_bytes(static_cast<cl_device_info>(
                cl_unsigned(param, "Device.get_info(param)", std::numeric_limits<cl_device_info>::max())));
            return nb::bytes(bytes.data(), bytes.size());
        }, "param"_a.none(), "The raw bytes clGetDeviceInfo answers for a CL_DEVICE_* parameter.")
        .def_prop_ro("int_ptr", [](const cl::device& d) { return reinterpret_cast<std::uintptr_t>(d.handle()); })
        .def("__eq__", [](const cl::device& a, const cl::device& b) { return a == b; })
        .def("__hash__", [](const cl::device& d) { return reinterpret_cast<std::uintptr_t>(d.handle()); })
        .def("__repr__", [](const cl::device& d) {
            return "<gpukit.cl.Device '" + d.name() + "' on '" + d.get_platform().name() + "'>";
        });

    nb::class_<cl::context>(m, "Context", nb::dynamic_attr(), nb::is_weak_referenceable(),
                             "Devices of one platform sharing buffers and programs.")
        .def("__init__", [](cl::context* self, nb::handle devices) {
            new (self) cl::context(cl::context::create(device_list(devices)));
        }, "devices"_a.none())
        .def_prop_ro("devices", &cl::context::devices)
        .def_prop_ro("int_ptr", [](const cl::context& c) { return reinterpret_cast<std::uintptr_t>(c.handle()); });

    nb::class_<cl::queue>(m, "CommandQueue", nb::dynamic_attr(), "An in-order queue of commands for one device.")
        .def("__init__", [](cl::queue* self, const cl::context& ctx, std::optional<cl::device> dev,
                            nb::handle properties_arg) {
            const cl_command_queue_properties properties = cl_unsigned(properties_arg, "CommandQueue(properties)");
            if (properties & ~cl_command_queue_properties{CL_QUEUE_PROFILING_ENABLE})
                throw cl::logic_error("CommandQueue: properties " + std::to_string(properties) +
                                          " are not supported; expected 0 or command_queue_properties.PROFILING_ENABLE "
                                          "(queues are in-order)",
                                      CL_INVALID_QUEUE_PROPERTIES, "clCreateCommandQueueWithProperties");
            new (self) cl::queue(cl::queue::create(ctx, dev.value_or(ctx.devices().front()),
                                                   (properties & CL_QUEUE_PROFILING_ENABLE) != 0));
        }, "context"_a, "device"_a.none() = nb::none(), "properties"_a.none() = 0)
        .def("finish", [](const cl::queue& q) {
            {
                release_gil release;
                q.finish();
            }
            release_dropped_holds();
        })
        .def("flush", &cl::queue::flush)
        // `with queue:` finishes the queue on leaving, as PyOpenCL's; through Python, so a
        // subclass's finish() is the one called.
        .def("__enter__", [](nb::handle self) { return nb::borrow(self); })
        .def("__exit__", [](nb::handle self, nb::handle, nb::handle, nb::handle) { self.attr("finish")(); },
             "exc_type"_a.none(), "exc_value"_a.none(), "traceback"_a.none())
        .def_prop_ro("device", &cl::queue::get_device)
        .def_prop_ro("properties", [](const cl::queue& q) {
            return as_flags("command_queue_properties", q.profiling() ? CL_QUEUE_PROFILING_ENABLE : 0);
        })
        .def_prop_ro("int_ptr", [](const cl::queue& q) { return reinterpret_cast<std::uintptr_t>(q.handle()); });

    nb::class_<cl::buffer>(m, "Buffer", nb::dynamic_attr(), "Device memory of a context.")
        .def("__init__", [](cl::buffer* self, const cl::context& ctx, nb::handle flags_arg, nb::handle size_arg,
                            nb::handle hostbuf) {
            const cl_mem_flags flags = cl_unsigned(flags_arg, "Buffer(flags)");
            size_t size = cl_unsigned(size_arg, "Buffer(size)");
            void* host = nullptr;
            std::shared_ptr<void> host_owner;  // held by OpenCL while it uses USE_HOST_PTR memory
            if (!hostbuf.is_none()) {
                python_hold hold;
                const std::span<std::byte> memory =
                    hold.export_memory(hostbuf, (flags & CL_MEM_USE_HOST_PTR) != 0, "hostbuf");
                if (size == 0)
                    size = memory.size();
                if (size > memory.size())
                    throw cl::logic_error("Buffer: size " + std::to_string(size) + " is larger than hostbuf's " +
                                              std::to_string(memory.size()) + " bytes",
                                          CL_INVALID_BUFFER_SIZE, "clCreateBuffer");
                host = memory.data();
                host_owner = share_hold(std::move(hold));
            }
            new (self) cl::buffer(cl::buffer::create(ctx, flags, size, host, std::move(host_owner)));
            release_dropped_holds();  // COPY_HOST_PTR memory was needed only by create
        }, "context"_a, "flags"_a.none(), "size"_a.none() = 0, "hostbuf"_a.none() = nb::none(),
             "A buffer of `size` bytes (default: hostbuf's size).")
        .def_prop_ro("size", &cl::buffer::size)
        .def_prop_ro("flags", [](const cl::buffer& b) { return as_flags("mem_flags", b.flags()); })
        .def_prop_ro("int_ptr", [](const cl::buffer& b) { return reinterpret_cast<std::uintptr_t>(b.handle()); })
        .def("get_info", &buffer_info, "param"_a.none(), "clGetMemObjectInfo(param), decoded (see mem_info).");

    nb::class_<cl::svm_pointer>(m, "SVMPointer", nb::dynamic_attr(),
                                 "Shared virtual memory: a kernel argument and a copy endpoint.")
        .def_prop_ro("size", &cl::svm_pointer::size)
        .def_prop_ro("svm_ptr", [](const cl::svm_pointer& p) { return reinterpret_cast<std::uintptr_t>(p.pointer()); })
        .def("__eq__", [](const cl::svm_pointer& a, nb::handle b) {
            return nb::isinstance<cl::svm_pointer>(b) && a.pointer() == nb::cast<const cl::svm_pointer&>(b).pointer();
        })
        .def("__hash__", [](const cl::svm_pointer& p) { return reinterpret_cast<std::uintptr_t>(p.pointer()); });

    nb::class_<cl::profile_times>(m, "EventProfile", "Device timestamps of a command, in nanoseconds.")
        .def_ro("queued", &cl::profile_times::queued)
        .def_ro("submit", &cl::profile_times::submit)
        .def_ro("start", &cl::profile_times::start)
        .def_ro("end", &cl::profile_times::end);

    // PyOpenCL's base Event takes no attributes but the NannyEvent its host copies return does;
    // gpukit has one Event for both.
    nb::class_<cl::event>(m, "Event", nb::dynamic_attr(), "The completion of one enqueued command.")
        .def("wait", [](const cl::event& e) {
            {
                release_gil release;
                e.wait();
            }
            release_dropped_holds();  // what the command held, a bytearray's export for one
        })
        .def_prop_ro("command_execution_status", &cl::event::status)
        .def_prop_ro("profile", &cl::event::profile)
        .def_prop_ro("int_ptr", [](const cl::event& e) { return reinterpret_cast<std::uintptr_t>(e.handle()); });

    m.def("enqueue_copy", &enqueue_copy, "queue"_a, "dest"_a, "src"_a, nb::kw_only(), "dst_offset"_a.none() = 0,
          "src_offset"_a.none() = 0, "byte_count"_a.none() = nb::none(), "is_blocking"_a.none() = true,
          "wait_for"_a.none() = nb::none(),
          "Copy between a numpy array and a Buffer or SVM, or between Buffers, or between SVM. Returns an Event.");

    nb::class_<cl::program>(m, "Program", nb::dynamic_attr(), "OpenCL C source built for a context's devices.")
        .def("__init__", [](cl::program* self, const cl::context& ctx, const std::string& source) {
            new (self) cl::program(cl::program::create_with_source(ctx, source));
        }, "context"_a, "source"_a)
        .def("build", [](nb::handle self, nb::handle options) {
            const std::string joined = join_options(options);
            cl::program& p = nb::cast<cl::program&>(self);
            {
                release_gil release;
                p.build(joined);
            }
            return self;
        }, "options"_a.none() = nb::none(), "Build for every device of the context. Returns self.")
        .def("get_build_log", &cl::program::build_log, "device"_a)
        .def_prop_ro("kernel_names", &cl::program::kernel_names)
        .def("__getattr__", [](const cl::program& p, const std::string& name) {
            if (!p.built())
                throw nb::attribute_error(("Program has no attribute '" + name +
                                           "'; kernels are attributes only after build()").c_str());
            const std::vector<std::string> names = p.kernel_names();
            if (std::find(names.begin(), names.end(), name) == names.end()) {
                std::string known;
                for (const std::string& n : names)
                    known += (known.empty() ? "" : ", ") + n;
                throw nb::attribute_error(("Program has no kernel '" + name + "'; its kernels are: " + known).c_str());
            }
            return cl::kernel::create(p, name);
        }, "name"_a);

    nb::class_<cl::local_memory>(m, "LocalMemory", nb::dynamic_attr(), "A __local kernel argument of `size` bytes.")
        .def("__init__", [](cl::local_memory* self, nb::handle size) {
            new (self) cl::local_memory{cl_unsigned(size, "LocalMemory(size)")};
        }, "size"_a.none())
        .def_ro("size", &cl::local_memory::bytes);

    nb::class_<cl::kernel_parameter>(m, "KernelParameter", "One parameter of a kernel, as OpenCL describes it.")
        .def_ro("name", &cl::kernel_parameter::name)
        .def_ro("type_name", &cl::kernel_parameter::type_name)
        .def_prop_ro("kind", [](const cl::kernel_parameter& p) { return cl::kind_name(p.kind); },
                     "'global', 'constant', 'local', 'value', 'unsupported' (images, samplers, pipes) or 'unknown'")
        .def("__repr__", [](const cl::kernel_parameter& p) {
            return "<gpukit.cl.KernelParameter '" + p.name + "' " + p.type_name + " (" + cl::kind_name(p.kind) + ")>";
        });

    nb::class_<cl::kernel>(m, "Kernel", nb::dynamic_attr(), "One kernel of a built program.")
        .def("__init__", [](cl::kernel* self, const cl::program& p, const std::string& name) {
            new (self) cl::kernel(cl::kernel::create(p, name));
        }, "program"_a, "name"_a)
        .def_prop_ro("function_name", &cl::kernel::name)
        .def_prop_ro("num_args", &cl::kernel::num_args)
        .def_prop_ro("parameters", &cl::kernel::parameters)
        .def("get_work_group_info", &kernel_work_group_info, "param"_a.none(), "device"_a,
             "clGetKernelWorkGroupInfo(param) for `device`, decoded (see kernel_work_group_info).")
        .def("set_arg", [](cl::kernel& k, nb::handle index, nb::handle value) {
            const auto i = static_cast<cl_uint>(cl_unsigned(index, "Kernel.set_arg(index)", UINT32_MAX));
            std::vector<nb::bytes> values;
            python_hold svm_used;
            k.set_arg(i, kernel_arg_from(k, i, value, values, svm_used));
        }, "index"_a.none(), "value"_a.none())
        .def("set_args", [](cl::kernel& k, nb::args args) {
            python_hold svm_used;
            set_kernel_args(k, args, svm_used);
        })
        .def("__call__", [](cl::kernel& k, const cl::queue& q, nb::handle global_size, nb::handle local_size,
                            nb::args args, nb::kwargs kwargs) {
            nb::handle wait_for = nb::none();
            for (auto [key, value] : kwargs) {
                if (nb::cast<std::string>(key) != "wait_for")
                    throw nb::type_error(("Kernel.__call__ got an unexpected keyword '" + nb::cast<std::string>(key) +
                                          "'; only wait_for is accepted")
                                             .c_str());
                wait_for = value;
            }
            if (global_size.is_none())
                throw nb::type_error("global_size must be an int or a sequence of 1 to 3 ints, got None");
            const std::vector<size_t> global = work_size(global_size, "global_size");
            const std::vector<size_t> local = work_size(local_size, "local_size");
            const std::vector<cl_event> events = wait_list(wait_for);
            python_hold svm_used;
            set_kernel_args(k, args, svm_used);
            cl::event done = cl::enqueue_nd_range(q, k, global, local, events);
            if (!svm_used.empty())
                done.keep_until_complete(share_hold(std::move(svm_used)));
            release_dropped_holds();
            return done;
        }, "queue"_a, "global_size"_a.none(), "local_size"_a.none(), "args"_a, "kwargs"_a,
           "Set the arguments and run: kernel(queue, global_size, local_size, *args, wait_for=None) -> Event.");
}

}  // namespace gpukit::python
