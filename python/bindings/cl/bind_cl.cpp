// gpukit._gpukit.cl: the OpenCL backend (re-exported by gpukit.cl). Translation only: Python
// objects become C++ calls of gpukit::cl, and its exceptions become gpukit.cl.Error subclasses.
#include "common/bindings.hpp"
#include "cl/cl_args.hpp"
#include "cl/cl_bindings.hpp"
#include "common/exception_types.hpp"
#include "common/path_args.hpp"
#include "cl/cl_host_memory.hpp"
#include "cl/cl_info.hpp"

#include "gpukit/cl/api.hpp"
#include "gpukit/cl/buffer.hpp"
#include "gpukit/cl/image.hpp"
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
#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>

namespace gpukit::python {

using namespace nb::literals;

namespace {

exception_tree cl_types;
// A kernel argument of a type OpenCL cannot take (a bare Python int or float): both the
// LogicError PyOpenCL raises there and a TypeError, as Python would have it.
PyObject* kernel_argument_error = nullptr;
// The warning of a CommandQueue used after its `with` block, as PyOpenCL's.
PyObject* used_after_exit_warning = nullptr;
// The instance attribute that marks such a queue (its __dict__ holds it).
constexpr const char* exited_attribute = "_gpukit_exited_with_block";

void bind_exceptions(nb::module_& m, nb::module_& parent) {
    // Under gpukit.driver.Error, the base of every gpukit error.
    cl_types =
        new_exception_tree(m, "gpukit.cl", parent.attr("Error").ptr(),
                           {.error = "An OpenCL call failed; `code` is the CL status, `routine` the call.",
                            .memory = "The device or host ran out of memory or resources.",
                            .logic = "The program used OpenCL wrongly (CL_INVALID_*, bad arguments).",
                            .runtime = "The environment failed: no library, no device, a program that did not build "
                                       "(then `build_log` holds the compiler output)."});
    PyObject* bases = PyTuple_Pack(2, cl_types.logic, PyExc_TypeError);
    if (bases == nullptr)
        throw nb::python_error();
    kernel_argument_error = new_exception_type(
        m, "gpukit.cl", "KernelArgumentError", bases,
        "A kernel argument of a type OpenCL cannot take: a LogicError, as PyOpenCL raises, and a TypeError.");
    Py_DECREF(bases);
    used_after_exit_warning = new_exception_type(
        m, "gpukit.cl", "CommandQueueUsedAfterExit", PyExc_UserWarning,
        "Warned when a CommandQueue is used after its `with` block: PyOpenCL deprecates it (it still runs).");
    // Registered after bind_errors, so this translator is tried first.
    nb::register_exception_translator([](const std::exception_ptr& p, void*) {
        try {
            std::rethrow_exception(p);
        } catch (const cl::build_error& e) {
            raise_api_error(cl_types.runtime, e, {{"build_log", message_text(e.log())}});
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

// A Python kernel argument as gpukit::cl takes it. The bytes of a numpy scalar go to `bytes`,
// which must outlive the argument; for SVM, `owner` is what the kernel keeps (and each launch,
// until it completes) so that the memory stays allocated whatever the program drops.
cl::kernel_arg kernel_arg_from(const cl::kernel& k, cl_uint index, nb::handle value, nb::bytes& bytes,
                               std::shared_ptr<void>& owner) {
    if (value.is_none())  // a NULL pointer, as PyOpenCL passes None (an allocator's zero-byte buffer)
        return nullptr;
    if (nb::isinstance<cl::buffer>(value))
        return std::cref(nb::cast<const cl::buffer&>(value));
    if (nb::isinstance<cl::svm_pointer>(value)) {
        python_hold hold;
        hold.keep(value);
        owner = share_hold(std::move(hold));
        return std::cref(nb::cast<const cl::svm_pointer&>(value));
    }
    if (nb::isinstance<cl::local_memory>(value))
        return nb::cast<cl::local_memory>(value);
    if (nb::isinstance<cl::image>(value))
        return std::cref(nb::cast<const cl::image&>(value));
    if (nb::isinstance<cl::sampler>(value))
        return std::cref(nb::cast<const cl::sampler&>(value));
    nb::module_ numpy = nb::module_::import_("numpy");
    // A 0-d array (what PyOpenCL's cltypes.make_float4 gives) passes its one element.
    nb::object element;
    if (PyObject_IsInstance(value.ptr(), numpy.attr("ndarray").ptr()) == 1 && nb::cast<int>(value.attr("ndim")) == 0) {
        element = value[nb::tuple()];
        value = element;
    }
    if (PyObject_IsInstance(value.ptr(), numpy.attr("generic").ptr()) == 1) {
        require_plain_dtype(value, k.describe_arg(index) + ": a numpy scalar");
        bytes = nb::borrow<nb::bytes>(value.attr("tobytes")());
        return cl::value_arg{std::span(static_cast<const std::byte*>(bytes.data()), bytes.size()),
                             numpy_value_type(value)};
    }
    const std::string message = k.describe_arg(index) + " is a " + nb::cast<std::string>(nb::type_name(value.type())) +
                                "; expected a Buffer, SVM, None, a numpy scalar (or 0-d array) of the parameter's type "
                                "(numpy.float32(1.5), numpy.int32(4), cltypes.make_float4(...)), LocalMemory(nbytes), "
                                "an Image or a Sampler";
    raise_with(kernel_argument_error, message.c_str(),
               {{"code", nb::int_(CL_INVALID_ARG_VALUE)}, {"routine", nb::str("clSetKernelArg")}});
    throw nb::python_error();
}

// Sets argument `index` of `k` to `value`.
void set_kernel_arg(cl::kernel& k, cl_uint index, nb::handle value) {
    nb::bytes bytes;
    std::shared_ptr<void> owner;
    const cl::kernel_arg arg = kernel_arg_from(k, index, value, bytes, owner);
    k.set_arg(index, arg, std::move(owner));
}

// Sets every argument of `k` from `args`.
void set_kernel_args(cl::kernel& k, nb::args args) {
    if (args.size() != k.num_args())
        throw cl::logic_error("kernel '" + k.name() + "' takes " + std::to_string(k.num_args()) + " argument(s), " +
                                  std::to_string(args.size()) + " given",
                              CL_INVALID_KERNEL_ARGS, "Kernel.set_args");
    for (size_t i = 0; i < args.size(); ++i)
        set_kernel_arg(k, static_cast<cl_uint>(i), args[i]);
}

// What Kernel.__call__ and enqueue_nd_range_kernel run, from PyOpenCL's arguments: sizes and
// the offset are an int or a sequence of ints (local size and offset may be None).
struct launch_request {
    std::vector<size_t> global, local, offset;
    std::vector<cl_event> wait_for;
    bool g_times_l = false, allow_empty_ndrange = false;

    launch_request(nb::handle global_size, nb::handle local_size, nb::handle global_offset, nb::handle events,
                   bool times_local, bool allow_empty)
        : global(global_size.is_none() ? throw nb::type_error("global_size must be an int or a sequence of 1 to 3 "
                                                              "ints, got None")
                                       : work_size(global_size, "global_size")),
          local(work_size(local_size, "local_size")), offset(work_size(global_offset, "global_offset")),
          wait_for(wait_list(events)), g_times_l(times_local), allow_empty_ndrange(allow_empty) {}

    cl::event run(const cl::queue& q, const cl::kernel& k) const {
        note_queue_use(q);
        cl::event done = cl::enqueue_nd_range(q, k, global, local, wait_for,
                                              {.global_offset = offset,
                                               .global_times_local = g_times_l,
                                               .allow_empty = allow_empty_ndrange});
        release_dropped_holds();
        return done;
    }
};

// Enqueues a copy without waiting for it; `hold` receives the host memory and SVM it uses.
// With SVM on one side, the other side is SVM or host memory; offsets are refused there: SVM is
// addressed by pointer, and the copy starts at the start of both sides.
cl::event enqueue_copy_command(const cl::queue& q, nb::handle dest, nb::handle src, nb::handle dst_offset_arg,
                               nb::handle src_offset_arg, nb::handle byte_count_arg, python_hold& hold,
                               const std::vector<cl_event>& events) {
    const size_t dst_offset = cl_unsigned(dst_offset_arg, "enqueue_copy(dst_offset)");
    const size_t src_offset = cl_unsigned(src_offset_arg, "enqueue_copy(src_offset)");
    std::optional<size_t> byte_count;
    if (!byte_count_arg.is_none())
        byte_count = cl_unsigned(byte_count_arg, "enqueue_copy(byte_count)");
    if (nb::isinstance<cl::svm_pointer>(dest) || nb::isinstance<cl::svm_pointer>(src)) {
        if (dst_offset || src_offset)
            throw cl::logic_error("enqueue_copy: dst_offset and src_offset are not supported with SVM; expected 0",
                                  CL_INVALID_VALUE, "clEnqueueSVMMemcpy");
        auto side = [&](nb::handle obj, bool writable, const char* role) -> std::span<std::byte> {
            if (!nb::isinstance<cl::svm_pointer>(obj))
                return hold.export_memory(obj, writable, role);
            const auto& p = nb::cast<const cl::svm_pointer&>(obj);
            cl::check_svm_usable(p, q.context_handle(), role);
            hold.keep(obj);  // a PooledSVM or SVMAllocation dropped now must not be reused or freed yet
            return {static_cast<std::byte*>(p.pointer()), p.size()};
        };
        const std::span<std::byte> d = side(dest, true, "enqueue_copy(dest)");
        const std::span<std::byte> s = side(src, false, "enqueue_copy(src)");
        // As with buffers, a host side is copied whole; between SVM, the smaller size.
        const size_t bytes =
            byte_count.value_or(!nb::isinstance<cl::svm_pointer>(src)    ? s.size()
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
        const size_t available =
            std::min(s.size() - std::min(src_offset, s.size()), d.size() - std::min(dst_offset, d.size()));
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
        const std::span<std::byte> host = hold.export_memory(src, false, "enqueue_copy(src)");
        return cl::enqueue_write(q, nb::cast<const cl::buffer&>(dest), dst_offset, host.data(),
                                 bytes_for(host, "source"), false, events);
    }
    if (src_is_buffer) {
        const std::span<std::byte> host = hold.export_memory(dest, true, "enqueue_copy(dest)");
        return cl::enqueue_read(q, nb::cast<const cl::buffer&>(src), src_offset, host.data(),
                                bytes_for(host, "destination"), false, events);
    }
    throw nb::type_error(
        "enqueue_copy: one of dest and src must be a Buffer or SVM (host-to-host copies are numpy's job)");
}

// A rectangle argument: a sequence of 1 to `most` ints, the missing ones `fill`.
std::array<size_t, 3> rect_numbers(nb::handle value, const char* what, size_t most, size_t fill) {
    const auto wrong = [&](const std::string& found) {
        return nb::type_error((std::string("enqueue_copy(") + what + ") must be a tuple of 1 to " +
                               std::to_string(most) + " ints, got " + found)
                                  .c_str());
    };
    if (!PySequence_Check(value.ptr()) || PyUnicode_Check(value.ptr()) || PyBytes_Check(value.ptr()))
        throw wrong(nb::cast<std::string>(nb::type_name(value.type())));
    const size_t count = nb::len(value);
    if (count < 1 || count > most)
        throw wrong(std::to_string(count) + " of them");
    std::array<size_t, 3> numbers{fill, fill, fill};
    const std::string item_what = std::string("enqueue_copy(") + what + ")";
    for (size_t k = 0; k < count; ++k)
        numbers[k] = cl_unsigned(value[k], item_what.c_str());
    return numbers;
}

// One side of a rectangular copy from its origin and pitches arguments (`origin` required).
cl::rect_side rect_side_of(nb::handle origin, const char* origin_name, nb::handle pitches, const char* pitches_name) {
    if (origin.is_none())
        throw nb::type_error((std::string("enqueue_copy: a rectangular copy needs ") + origin_name +
                              " (with the region, and the other side's origin)")
                                 .c_str());
    cl::rect_side side{.origin = rect_numbers(origin, origin_name, 3, 0)};
    if (!pitches.is_none()) {
        const auto p = rect_numbers(pitches, pitches_name, 2, 0);
        side.row_pitch = p[0];
        side.slice_pitch = p[1];
    }
    return side;
}

// A rectangular copy: host to buffer, buffer to host, or buffer to buffer.
cl::event enqueue_rect_copy(const cl::queue& q, nb::handle dest, nb::handle src, nb::handle dst_offset,
                            nb::handle src_offset, nb::handle byte_count, const copy_keywords& rect, python_hold& hold,
                            const std::vector<cl_event>& events) {
    for (auto [given, name] : {std::pair{offset_given(dst_offset), "dst_offset"},
                               {offset_given(src_offset), "src_offset"},
                               {!byte_count.is_none(), "byte_count"}})
        if (given)
            throw nb::type_error((std::string("enqueue_copy: ") + name +
                                  " is an argument of a linear copy; a rectangular copy (region, origins, pitches) "
                                  "places its bytes by its origins")
                                     .c_str());
    const bool dest_is_buffer = nb::isinstance<cl::buffer>(dest), src_is_buffer = nb::isinstance<cl::buffer>(src);
    if (!dest_is_buffer && !src_is_buffer)
        throw nb::type_error("enqueue_copy: a rectangular copy needs a Buffer as dest or src (or both)");
    const auto refuse = [](nb::handle given, const char* name, const char* instead) {
        if (!given.is_none())
            throw nb::type_error(
                (std::string("enqueue_copy: ") + name + " is not an argument of this copy; " + instead).c_str());
    };
    if (rect.region.is_none())
        throw nb::type_error("enqueue_copy: a rectangular copy needs region (bytes per row, rows, slices)");
    const cl::rect_region region = rect_numbers(rect.region, "region", 3, 1);
    if (dest_is_buffer && src_is_buffer) {
        const char* instead = "between Buffers, give src_origin, dst_origin, region and src_pitches/dst_pitches";
        for (auto [given, name] : {std::pair{rect.buffer_origin, "buffer_origin"},
                                   {rect.host_origin, "host_origin"},
                                   {rect.buffer_pitches, "buffer_pitches"},
                                   {rect.host_pitches, "host_pitches"}})
            refuse(given, name, instead);
        return cl::enqueue_copy_rect(q, nb::cast<const cl::buffer&>(src),
                                     rect_side_of(rect.src_origin, "src_origin", rect.src_pitches, "src_pitches"),
                                     nb::cast<const cl::buffer&>(dest),
                                     rect_side_of(rect.dst_origin, "dst_origin", rect.dst_pitches, "dst_pitches"),
                                     region, events);
    }
    const char* instead = "with a host array, give buffer_origin, host_origin, region and buffer_pitches/host_pitches";
    for (auto [given, name] : {std::pair{rect.src_origin, "src_origin"},
                               {rect.dst_origin, "dst_origin"},
                               {rect.src_pitches, "src_pitches"},
                               {rect.dst_pitches, "dst_pitches"}})
        refuse(given, name, instead);
    const cl::rect_side buffer_side =
        rect_side_of(rect.buffer_origin, "buffer_origin", rect.buffer_pitches, "buffer_pitches");
    const cl::rect_side host_side = rect_side_of(rect.host_origin, "host_origin", rect.host_pitches, "host_pitches");
    if (dest_is_buffer) {
        const std::span<std::byte> host = hold.export_memory(src, false, "enqueue_copy(src)");
        return cl::enqueue_write_rect(q, nb::cast<const cl::buffer&>(dest), buffer_side, host.data(), host.size(),
                                      host_side, region, false, events);
    }
    const std::span<std::byte> host = hold.export_memory(dest, true, "enqueue_copy(dest)");
    return cl::enqueue_read_rect(q, nb::cast<const cl::buffer&>(src), buffer_side, host.data(), host.size(), host_side,
                                 region, false, events);
}

// Keeps the host memory of a queued copy until it has completed, and waits when blocking.
cl::event finish_copy(cl::event done, python_hold hold, bool is_blocking) {
    if (!hold.empty())
        done.keep_until_complete(share_hold(std::move(hold)));
    if (is_blocking) {
        release_gil release;
        done.wait();
    }
    release_dropped_holds();
    return done;
}

// The command is enqueued with the GIL held, so no other thread can release a Buffer or SVM
// of it meanwhile (the command then holds what it needs); only the wait lets the GIL go.
cl::event enqueue_copy(const cl::queue& q, nb::handle dest, nb::handle src, nb::handle dst_offset_arg,
                       nb::handle src_offset_arg, nb::handle byte_count_arg, nb::handle is_blocking_arg,
                       nb::handle wait_for, const copy_keywords& rect) {
    const bool is_blocking = cl_bool(is_blocking_arg, "enqueue_copy(is_blocking)");
    const std::vector<cl_event> events = wait_list(wait_for);
    note_queue_use(q);
    python_hold hold;
    if (nb::isinstance<cl::image>(dest) || nb::isinstance<cl::image>(src)) {
        cl::event done =
            enqueue_image_copy(q, dest, src, dst_offset_arg, src_offset_arg, byte_count_arg, rect, hold, events);
        return finish_copy(std::move(done), std::move(hold), is_blocking);
    }
    if (const char* name = rect.image_keyword_given())
        throw nb::type_error(
            (std::string("enqueue_copy: ") + name + " is an argument of image copies; neither dest nor src is an Image")
                .c_str());
    cl::event done =
        rect.any_rect()
            ? enqueue_rect_copy(q, dest, src, dst_offset_arg, src_offset_arg, byte_count_arg, rect, hold, events)
            : enqueue_copy_command(q, dest, src, dst_offset_arg, src_offset_arg, byte_count_arg, hold, events);
    return finish_copy(std::move(done), std::move(hold), is_blocking);
}

// Event.set_callback's callback: OpenCL calls it on a thread of its own, so it takes the GIL
// to call `callback(status)`, reports an exception it raises as unraisable (nobody is there to
// catch it), and lets go of the callable under the GIL. Once the interpreter is finalizing it
// calls nothing and keeps its reference: no Python code can run then.
std::function<void(cl_int)> python_status_callback(nb::callable callback) {
    auto held = std::make_shared<PyObject*>(callback.release().ptr());
    return [held](cl_int status) {
#if PY_VERSION_HEX >= 0x030D0000
        const bool finalizing = Py_IsFinalizing();
#else
        const bool finalizing = _Py_IsFinalizing();
#endif
        if (*held == nullptr || !Py_IsInitialized() || finalizing)
            return;
        nb::gil_scoped_acquire gil;
        PyObject* result = PyObject_CallFunction(*held, "i", static_cast<int>(status));
        if (result == nullptr)
            PyErr_WriteUnraisable(*held);
        Py_XDECREF(result);
        Py_CLEAR(*held);
    };
}

// Device.hashable_model_and_version_identifier: PyOpenCL's tuple of the same facts.
nb::typed<nb::tuple, std::string, std::string, int, std::string, std::string> model_and_version(const cl::device& d) {
    return nb::make_tuple("v1", d.vendor(), d.vendor_id(), d.name(), d.version());
}

void warn_deprecated(const char* message) {
    if (PyErr_WarnEx(PyExc_DeprecationWarning, message, 1) < 0)
        throw nb::python_error();
}

// A sequence of Devices (the `devices` of Context(devices), named by `what`), checked item by item.
std::vector<cl::device> device_list(nb::handle devices, const std::string& what) {
    if (!PySequence_Check(devices.ptr()) || PyUnicode_Check(devices.ptr()))
        throw nb::type_error((what + " must be a sequence of gpukit.cl.Device, got " +
                              nb::cast<std::string>(nb::type_name(devices.type())))
                                 .c_str());
    std::vector<cl::device> result;
    for (nb::handle item : devices) {
        if (!nb::isinstance<cl::device>(item))
            throw nb::type_error((what + ": item " + std::to_string(result.size()) + " is a " +
                                  nb::cast<std::string>(nb::type_name(item.type())) + "; expected gpukit.cl.Device")
                                     .c_str());
        result.push_back(nb::cast<cl::device>(item));
    }
    return result;
}

// Program.build(cache_dir): PyOpenCL's directory for its cache of program binaries, which it
// uses only where the OpenCL implementation does not cache builds itself (PoCL and NVIDIA's
// do). gpukit keeps no such cache, so the directory is checked for its type and not used.
void check_cache_dir(nb::handle cache_dir) {
    const bool accepted = cache_dir.is_none() || cache_dir.is(Py_False) || PyUnicode_Check(cache_dir.ptr()) ||
                          PyBytes_Check(cache_dir.ptr()) || nb::hasattr(cache_dir, "__fspath__");
    if (!accepted)
        throw nb::type_error(("Program.build(cache_dir) must be a path (str, bytes or os.PathLike), False or None, "
                              "got " +
                              nb::cast<std::string>(nb::type_name(cache_dir.type())))
                                 .c_str());
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

// The options of a build or compile from Python: the user's, then gpukit's device headers on
// the include path (pyopencl-complex.h and the headers it reads), as PyOpenCL adds its own.
std::string build_options(nb::handle options) {
    const std::string joined = join_options(options);
    return joined.empty() ? device_include_option() : joined + " " + device_include_option();
}

// PyOpenCL's objects are equal when they wrap one OpenCL object (two Python objects may: the
// Context a queue was made with and the one its `context` gives), hash as that object's handle,
// and compare unequal (False, as PyOpenCL answers, not NotImplemented) with objects of other
// kinds. `key` gives the handle; `int_ptr` shows it where PyOpenCL has that property.
template <class T, class... Extra, class Key>
void identify_by_handle(nb::class_<T, Extra...>& cls, Key key, bool int_ptr = true) {
    auto value = [key](const T& object) { return reinterpret_cast<std::uintptr_t>(std::invoke(key, object)); };
    if (int_ptr)
        cls.def_prop_ro("int_ptr", value, "The OpenCL handle, as an int.");
    cls.def(
        "__eq__",
        [value](const T& a, nb::handle b) { return nb::isinstance<T>(b) && value(a) == value(nb::cast<const T&>(b)); },
        "other"_a.none());
    cls.def("__hash__", value);
}

// PyOpenCL's Class.from_int_ptr(int_ptr_value, retain=True): another object of the OpenCL object
// whose handle is int_ptr_value (an int_ptr, of this library or another); with retain=False it
// takes over a reference the caller holds. `wrap(handle, retain)` makes it.
template <class T, class... Extra, class Wrap>
void def_from_int_ptr(nb::class_<T, Extra...>& cls, const char* name, Wrap wrap) {
    const std::string what = std::string(name) + ".from_int_ptr";
    cls.def_static(
        "from_int_ptr",
        [what, wrap](nb::handle value, nb::handle retain) {
            const std::uint64_t address = cl_unsigned(value, (what + "(int_ptr_value)").c_str(), UINTPTR_MAX);
            return wrap(reinterpret_cast<void*>(static_cast<std::uintptr_t>(address)),
                        cl_bool(retain, (what + "(retain)").c_str()));
        },
        "int_ptr_value"_a.none(), "retain"_a.none() = true,
        "The object whose OpenCL handle is int_ptr_value, which must be a live handle of this kind (OpenCL "
        "cannot check that; another value may crash the process). With retain=False, takes over the caller's "
        "reference.");
}

// Platforms and devices are not reference counted: from_int_ptr finds them among those installed,
// so a handle that is none of them is refused instead of used.
template <class T>
T installed(void* handle, const std::vector<T>& all, const char* routine, const char* kind, cl_int code) {
    for (const T& item : all)
        if (item.handle() == handle)
            return item;
    throw cl::logic_error(std::string(routine) + ": " + std::to_string(reinterpret_cast<std::uintptr_t>(handle)) +
                              " is not the handle of " + kind,
                          code, routine);
}

std::vector<cl::device> all_devices() {
    std::vector<cl::device> devices;
    for (const cl::platform& p : cl::platform::all())
        for (const cl::device& d : p.devices())
            devices.push_back(d);
    return devices;
}

}  // namespace

const std::string& device_include_option() {
    static const std::string option = [] {
        nb::module_ os_path = nb::module_::import_("os.path");
        const nb::object package = os_path.attr("dirname")(nb::module_::import_("gpukit").attr("__file__"));
        const std::string dir = nb::cast<std::string>(os_path.attr("join")(package, "include"));
        return dir.find(' ') == std::string::npos ? "-I " + dir : "-I \"" + dir + "\"";
    }();
    return option;
}

void note_queue_use(const cl::queue& q) {
    nb::handle self = nb::find(&q);
    if (!self.is_valid() || !nb::hasattr(self, exited_attribute))
        return;
    if (PyErr_WarnEx(used_after_exit_warning,
                     "the CommandQueue is used after its `with` block ended; PyOpenCL deprecates this (it still runs)",
                     1) < 0)
        throw nb::python_error();
}

void bind_cl(nb::module_& parent) {
    nb::module_ m = parent.def_submodule("cl", "The OpenCL backend; use it through gpukit.cl.");
    bind_exceptions(m, parent);

    bind_flags(m, "mem_flags",
               {{"READ_WRITE", CL_MEM_READ_WRITE},
                {"WRITE_ONLY", CL_MEM_WRITE_ONLY},
                {"READ_ONLY", CL_MEM_READ_ONLY},
                {"USE_HOST_PTR", CL_MEM_USE_HOST_PTR},
                {"ALLOC_HOST_PTR", CL_MEM_ALLOC_HOST_PTR},
                {"COPY_HOST_PTR", CL_MEM_COPY_HOST_PTR},
                {"HOST_WRITE_ONLY", CL_MEM_HOST_WRITE_ONLY},
                {"HOST_READ_ONLY", CL_MEM_HOST_READ_ONLY},
                {"HOST_NO_ACCESS", CL_MEM_HOST_NO_ACCESS}});
    bind_flags(m, "device_type",
               {{"DEFAULT", CL_DEVICE_TYPE_DEFAULT},
                {"CPU", CL_DEVICE_TYPE_CPU},
                {"GPU", CL_DEVICE_TYPE_GPU},
                {"ACCELERATOR", CL_DEVICE_TYPE_ACCELERATOR},
                {"CUSTOM", CL_DEVICE_TYPE_CUSTOM},
                {"ALL", CL_DEVICE_TYPE_ALL}});
    bind_info_enums(m);
    bind_flags(m, "svm_mem_flags",
               {{"READ_WRITE", CL_MEM_READ_WRITE},
                {"WRITE_ONLY", CL_MEM_WRITE_ONLY},
                {"READ_ONLY", CL_MEM_READ_ONLY},
                {"SVM_FINE_GRAIN_BUFFER", CL_MEM_SVM_FINE_GRAIN_BUFFER},
                {"SVM_ATOMICS", CL_MEM_SVM_ATOMICS}});
    bind_flags(m, "map_flags",
               {{"READ", CL_MAP_READ},
                {"WRITE", CL_MAP_WRITE},
                {"WRITE_INVALIDATE_REGION", CL_MAP_WRITE_INVALIDATE_REGION}});
    bind_flags(m, "command_queue_properties",
               {{"OUT_OF_ORDER_EXEC_MODE_ENABLE", CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE},
                {"PROFILING_ENABLE", CL_QUEUE_PROFILING_ENABLE}});

    m.def("available", &cl::available, "True when libOpenCL.so.1 can be loaded.");
    m.def(
        "error_name",
        [](nb::handle code) {
            return cl::error_name(static_cast<cl_int>(cl_signed(code, "error_name(code)", INT32_MIN, INT32_MAX)));
        },
        "code"_a.none());
    m.def("get_platforms", &cl::platform::all);
    m.def(
        "parse_device_spec",
        [](const std::string& spec) {
            std::vector<std::pair<std::string, std::vector<std::string>>> entries;
            for (cl::device_spec& e : cl::parse_device_spec(spec))
                entries.emplace_back(std::move(e.platform), std::move(e.devices));
            return entries;
        },
        "spec"_a, "The (platform, [devices]) entries of a GPUKIT_CL_TEST-style selection string.");
    m.def("select_devices", nb::overload_cast<std::string_view>(&cl::select_devices), "spec"_a);
    m.def("create_some_context", &cl::create_some_context);
    // The fills: OpenCL copies the pattern when the command is queued, so nothing is held after.
    m.def(
        "enqueue_fill_buffer",
        [](const cl::queue& q, const cl::buffer& mem, nb::handle pattern, nb::handle offset, nb::handle size,
           nb::handle wait_for) {
            note_queue_use(q);
            python_hold hold;
            const std::span<std::byte> bytes = hold.export_memory(pattern, false, "enqueue_fill_buffer(pattern)");
            return cl::enqueue_fill(q, mem, bytes, cl_unsigned(offset, "enqueue_fill_buffer(offset)"),
                                    cl_unsigned(size, "enqueue_fill_buffer(size)"), wait_list(wait_for));
        },
        "queue"_a, "mem"_a, "pattern"_a, "offset"_a.none(), "size"_a.none(), "wait_for"_a.none() = nb::none(),
        "Fill `size` bytes of `mem` from `offset` with copies of `pattern` (a numpy scalar or array of 1, 2, "
        "4, ..., 128 bytes). Returns an Event.");
    m.def(
        "enqueue_svm_memfill",
        [](const cl::queue& q, nb::handle dest, nb::handle pattern, nb::handle byte_count, nb::handle wait_for) {
            if (!nb::isinstance<cl::svm_pointer>(dest))
                throw nb::type_error(("enqueue_svm_memfill(dest) must be SVM (an SVMAllocation or PooledSVM), got " +
                                      nb::cast<std::string>(nb::type_name(dest.type())))
                                         .c_str());
            const auto& svm = nb::cast<const cl::svm_pointer&>(dest);
            cl::check_svm_usable(svm, q.context_handle(), "enqueue_svm_memfill(dest)");
            note_queue_use(q);
            python_hold hold;
            const std::span<std::byte> bytes = hold.export_memory(pattern, false, "enqueue_svm_memfill(pattern)");
            const size_t count =
                byte_count.is_none() ? svm.size() : cl_unsigned(byte_count, "enqueue_svm_memfill(byte_count)");
            if (count > svm.size())
                throw cl::logic_error("enqueue_svm_memfill: byte_count " + std::to_string(count) +
                                          " is larger than the SVM's " + std::to_string(svm.size()) + " bytes",
                                      CL_INVALID_VALUE, "clEnqueueSVMMemFill");
            cl::event done = cl::enqueue_svm_fill(q, svm.pointer(), bytes, count, wait_list(wait_for));
            python_hold kept;
            kept.keep(dest);  // a PooledSVM or SVMAllocation dropped now must not be reused or freed yet
            done.keep_until_complete(share_hold(std::move(kept)));
            return done;
        },
        "queue"_a, "dest"_a, "pattern"_a, "byte_count"_a.none() = nb::none(), "wait_for"_a.none() = nb::none(),
        "Fill `byte_count` bytes (default: all) of SVM `dest` with copies of `pattern`. Returns an Event.");
    m.def(
        "link_program",
        [](const cl::context& ctx, nb::handle programs, nb::handle options, nb::handle devices) {
            if (!PySequence_Check(programs.ptr()) || PyUnicode_Check(programs.ptr()))
                throw nb::type_error("link_program(programs) must be a sequence of compiled Programs");
            std::vector<const cl::program*> inputs;
            for (nb::handle p : programs) {
                if (!nb::isinstance<cl::program>(p))
                    throw nb::type_error(("link_program(programs): item " + std::to_string(inputs.size()) + " is a " +
                                          nb::cast<std::string>(nb::type_name(p.type())) + "; expected a Program")
                                             .c_str());
                inputs.push_back(&nb::cast<const cl::program&>(p));
            }
            const std::string joined = join_options(options);
            const std::vector<cl::device> chosen =
                devices.is_none() ? std::vector<cl::device>{} : device_list(devices, "link_program(devices)");
            release_gil release;  // `programs` holds the inputs meanwhile
            return cl::program::link(ctx, inputs, joined, chosen);
        },
        "context"_a, "programs"_a, "options"_a.none() = nb::none(), "devices"_a.none() = nb::none(),
        "The executable Program linked from compiled Programs (Program.compile) for `devices` (default: all).");
    m.def(
        "unload_platform_compiler", [](const cl::platform& p) { p.unload_compiler(); }, "platform"_a,
        "Let `platform`'s implementation free its compiler until the next build.");
    // The OpenCL version of the headers gpukit was built with (CL_TARGET_OPENCL_VERSION).
    m.def(
        "get_cl_header_version",
        [] {
            return std::pair{CL_TARGET_OPENCL_VERSION / 100, CL_TARGET_OPENCL_VERSION / 10 % 10};
        },
        "The OpenCL version of the headers gpukit was built with, (major, minor).");

    // The classes PyOpenCL binds with dynamic attributes take them here too (instances get a
    // __dict__), and every class can be subclassed in Python, as PyOpenCL's: libraries keep
    // their own state on these objects and derive their own kinds of them.
    auto platform =
        nb::class_<cl::platform>(m, "Platform", nb::dynamic_attr(), "An installed OpenCL implementation.")
            .def_prop_ro("name", &cl::platform::name)
            .def_prop_ro("vendor", &cl::platform::vendor)
            .def_prop_ro("version", &cl::platform::version)
            .def_prop_ro("profile", &cl::platform::profile)
            .def_prop_ro("extensions", &cl::platform::extensions)
            .def("_get_cl_version", &cl::platform::opencl_version, "The OpenCL version, (major, minor).")
            .def("get_info", &platform_info, "param"_a.none(), "clGetPlatformInfo(param), decoded (see platform_info).")
            .def("unload_compiler", &cl::platform::unload_compiler,
                 "Let the implementation free its compiler until the next build.")
            .def("__getattr__", &info_getattr, "name"_a)
            .def(
                "get_devices",
                [](const cl::platform& p, nb::handle type) {
                    return p.devices(cl_unsigned(type, "Platform.get_devices(device_type)"));
                },
                "device_type"_a.none() = CL_DEVICE_TYPE_ALL)
            .def("__repr__", [](const cl::platform& p) { return "<gpukit.cl.Platform '" + p.name() + "'>"; });
    identify_by_handle(platform, &cl::platform::handle);
    def_from_int_ptr(platform, "Platform", [](void* h, bool) {
        return installed(h, cl::platform::all(), "Platform.from_int_ptr", "an installed platform", CL_INVALID_PLATFORM);
    });

    auto device =
        nb::class_<cl::device>(m, "Device", nb::dynamic_attr(), "An OpenCL device.")
            .def_prop_ro("name", &cl::device::name)
            .def_prop_ro("type", [](const cl::device& d) { return as_flags("device_type", d.type()); })
            .def_prop_ro("vendor", &cl::device::vendor)
            .def_prop_ro("vendor_id", &cl::device::vendor_id)
            .def_prop_ro("version", &cl::device::version)
            .def("_get_cl_version", &cl::device::opencl_version, "The OpenCL version, (major, minor).")
            .def_prop_ro("hashable_model_and_version_identifier", &model_and_version,
                         "A tuple naming the device's model and software version (not the one device): equal for "
                         "two devices of one model with one driver, and across processes.")
            .def_prop_ro("persistent_unique_id",
                         [](const cl::device& d) {
                             warn_deprecated(
                                 "Device.persistent_unique_id is deprecated; use "
                                 "Device.hashable_model_and_version_identifier, which it returns");
                             return model_and_version(d);
                         })
            .def_prop_ro("driver_version", &cl::device::driver_version)
            .def_prop_ro("extensions", &cl::device::extensions)
            .def_prop_ro("max_compute_units", &cl::device::max_compute_units)
            .def_prop_ro("global_mem_size", &cl::device::global_mem_size)
            .def_prop_ro("local_mem_size", &cl::device::local_mem_size)
            .def_prop_ro("max_work_group_size", &cl::device::max_work_group_size)
            .def_prop_ro("max_mem_alloc_size", &cl::device::max_mem_alloc_size)
            .def_prop_ro("image_support", &cl::device::image_support)
            .def_prop_ro("svm_capabilities", &cl::device::svm_capabilities)
            .def_prop_ro("platform", &cl::device::get_platform)
            .def("get_info", &device_info, "param"_a.none(), "clGetDeviceInfo(param), decoded (see device_info).")
            .def(
                "_get_info_bytes",
                [](const cl::device& d, nb::handle param) {
                    const auto bytes = d.info_bytes(
                        static_cast<cl_device_info>(cl_unsigned(param, "Device._get_info_bytes(param)",
                                                                std::numeric_limits<cl_device_info>::max())));
                    return nb::bytes(bytes.data(), bytes.size());
                },
                "param"_a.none(), "The raw bytes clGetDeviceInfo answers for any CL_DEVICE_* parameter (vendors' too).")
            .def("__getattr__", &info_getattr, "name"_a)
            .def("__repr__", [](const cl::device& d) {
                return "<gpukit.cl.Device '" + d.name() + "' on '" + d.get_platform().name() + "'>";
            });
    identify_by_handle(device, &cl::device::handle);
    def_from_int_ptr(device, "Device", [](void* h, bool) {
        return installed(h, all_devices(), "Device.from_int_ptr", "a device of an installed platform",
                         CL_INVALID_DEVICE);
    });

    auto context =
        nb::class_<cl::context>(m, "Context", nb::dynamic_attr(), nb::is_weak_referenceable(),
                                "Devices of one platform sharing buffers and programs.")
            .def(
                "__init__",
                [](cl::context* self, nb::handle devices) {
                    new (self) cl::context(cl::context::create(device_list(devices, "Context(devices)")));
                },
                "devices"_a.none())
            .def_prop_ro("devices", &cl::context::devices)
            .def(
                "_get_cl_version",
                [](const cl::context& c) { return c.devices().at(0).get_platform().opencl_version(); },
                "The OpenCL version of the platform of the context's devices, (major, minor).")
            .def("get_info", &context_info, "param"_a.none(), "clGetContextInfo(param), decoded (see context_info).")
            .def("__getattr__", &info_getattr, "name"_a);
    identify_by_handle(context, &cl::context::handle);
    def_from_int_ptr(context, "Context",
                     [](void* h, bool retain) { return cl::context::wrap(static_cast<cl_context>(h), retain); });

    auto queue =
        nb::class_<cl::queue>(m, "CommandQueue", nb::dynamic_attr(),
                              "A queue of commands for one device; it runs them in the order queued, even "
                              "when made with OUT_OF_ORDER_EXEC_MODE_ENABLE (which OpenCL permits).")
            .def(
                "__init__",
                [](cl::queue* self, const cl::context& ctx, std::optional<cl::device> dev, nb::handle properties_arg) {
                    const cl_command_queue_properties properties =
                        cl_unsigned(properties_arg, "CommandQueue(properties)");
                    new (self) cl::queue(cl::queue::create_with(ctx, dev.value_or(ctx.devices().front()), properties));
                },
                "context"_a, "device"_a.none() = nb::none(), "properties"_a.none() = 0)
            .def("finish",
                 [](const cl::queue& q) {
                     if (nb::handle self = nb::find(&q); self.is_valid() && nb::hasattr(self, exited_attribute))
                         return;  // finished when its `with` block ended, as PyOpenCL's
                     {
                         release_gil release;
                         q.finish();
                     }
                     release_dropped_holds();
                 })
            .def("flush",
                 [](const cl::queue& q) {
                     note_queue_use(q);
                     q.flush();
                 })
            // `with queue:` finishes the queue on leaving, as PyOpenCL's; through Python, so a
            // subclass's finish() is the one called. Later uses warn CommandQueueUsedAfterExit.
            .def("__enter__", [](nb::handle self) { return nb::borrow(self); })
            .def(
                "__exit__",
                [](nb::handle self, nb::handle, nb::handle, nb::handle) {
                    self.attr("finish")();
                    nb::setattr(self, exited_attribute, nb::bool_(true));
                },
                "exc_type"_a.none(), "exc_value"_a.none(), "traceback"_a.none())
            .def_prop_ro("device", &cl::queue::get_device)
            .def(
                "_get_cl_version", [](const cl::queue& q) { return q.get_device().opencl_version(); },
                "The OpenCL version of the queue's device, (major, minor).")
            .def("get_info", &queue_info, "param"_a.none(),
                 "clGetCommandQueueInfo(param), decoded (see command_queue_info).")
            .def("__getattr__", &info_getattr, "name"_a)
            .def_prop_ro(
                "context", [](const cl::queue& q) { return cl::context::wrap(q.context_handle()); },
                "The queue's Context: a new object, equal to the one the queue was made with.")
            .def_prop_ro("properties",
                         [](const cl::queue& q) { return as_flags("command_queue_properties", q.properties()); });
    identify_by_handle(queue, &cl::queue::handle);
    def_from_int_ptr(queue, "CommandQueue",
                     [](void* h, bool retain) { return cl::queue::wrap(static_cast<cl_command_queue>(h), retain); });

    auto buffer =
        nb::class_<cl::buffer>(m, "Buffer", nb::dynamic_attr(), "Device memory of a context.")
            .def(
                "__init__",
                [](cl::buffer* self, const cl::context& ctx, nb::handle flags_arg, nb::handle size_arg,
                   nb::handle hostbuf) {
                    const cl_mem_flags flags = cl_unsigned(flags_arg, "Buffer(flags)");
                    size_t size = cl_unsigned(size_arg, "Buffer(size)");
                    void* host = nullptr;
                    std::shared_ptr<void> host_owner;  // held by OpenCL while it uses USE_HOST_PTR memory
                    if (!hostbuf.is_none()) {
                        python_hold hold;
                        const std::span<std::byte> memory =
                            hold.export_memory(hostbuf, (flags & CL_MEM_USE_HOST_PTR) != 0, "Buffer(hostbuf)");
                        if (size == 0)
                            size = memory.size();
                        if (size > memory.size())
                            throw cl::logic_error("Buffer: size " + std::to_string(size) +
                                                      " is larger than hostbuf's " + std::to_string(memory.size()) +
                                                      " bytes",
                                                  CL_INVALID_BUFFER_SIZE, "clCreateBuffer");
                        host = memory.data();
                        host_owner = share_hold(std::move(hold));
                    }
                    new (self) cl::buffer(cl::buffer::create(ctx, flags, size, host, std::move(host_owner)));
                    release_dropped_holds();  // COPY_HOST_PTR memory was needed only by create
                },
                "context"_a, "flags"_a.none(), "size"_a.none() = 0, "hostbuf"_a.none() = nb::none(),
                "A buffer of `size` bytes (default: hostbuf's size).")
            .def_prop_ro("size", &cl::buffer::size)
            .def_prop_ro(
                "flags", [](const cl::buffer& b) { return as_flags("mem_flags", b.flags()); },
                nb::for_getter(nb::sig("def flags(self) -> gpukit._gpukit.cl.mem_flags")))
            .def_prop_ro(
                "context", [](const cl::buffer& b) { return buffer_info(b, nb::int_(CL_MEM_CONTEXT)); },
                "The buffer's Context: a new object, equal to the one the buffer was made in.")
            .def("get_info", &buffer_info, "param"_a.none(), "clGetMemObjectInfo(param), decoded (see mem_info).")
            .def(
                "get_sub_region",
                [](const cl::buffer& b, nb::handle origin, nb::handle size, nb::handle flags) {
                    return b.sub_region(cl_unsigned(origin, "Buffer.get_sub_region(origin)"),
                                        cl_unsigned(size, "Buffer.get_sub_region(size)"),
                                        cl_unsigned(flags, "Buffer.get_sub_region(flags)"));
                },
                "origin"_a.none(), "size"_a.none(), "flags"_a.none() = 0,
                "The `size` bytes from byte `origin` as a Buffer of their own (a sub-buffer; `origin` a multiple of "
                "the devices' mem_base_addr_align / 8).")
            .def(
                "__getitem__",
                [](const cl::buffer& b, nb::handle key) {
                    if (!PySlice_Check(key.ptr()))
                        throw nb::type_error(("a Buffer's subscript must be a slice of bytes, got " +
                                              nb::cast<std::string>(nb::type_name(key.type())))
                                                 .c_str());
                    Py_ssize_t start = 0, stop = 0, step = 0;
                    if (PySlice_Unpack(key.ptr(), &start, &stop, &step) < 0)
                        throw nb::python_error();
                    PySlice_AdjustIndices(static_cast<Py_ssize_t>(b.size()), &start, &stop, step);
                    if (step != 1)
                        throw nb::value_error(("a Buffer slice must have step 1, got " + std::to_string(step)).c_str());
                    if (stop <= start)
                        throw cl::logic_error("Buffer[" + std::to_string(start) + ":" + std::to_string(stop) +
                                                  "] is empty; a sub-buffer has at least 1 byte",
                                              CL_INVALID_BUFFER_SIZE, "clCreateSubBuffer");
                    return b.sub_region(static_cast<size_t>(start), static_cast<size_t>(stop - start));
                },
                "key"_a, "buf[start:stop]: get_sub_region(start, stop - start), as PyOpenCL's.");
    identify_by_handle(buffer, &cl::buffer::handle);
    def_from_int_ptr(buffer, "Buffer",
                     [](void* h, bool retain) { return cl::buffer::wrap(static_cast<cl_mem>(h), retain); });

    auto svm_pointer = nb::class_<cl::svm_pointer>(m, "SVMPointer", nb::dynamic_attr(),
                                                   "Shared virtual memory: a kernel argument and a copy endpoint.")
                           .def_prop_ro("size", &cl::svm_pointer::size)
                           .def_prop_ro("svm_ptr", [](const cl::svm_pointer& p) {
                               return reinterpret_cast<std::uintptr_t>(p.pointer());
                           });
    identify_by_handle(svm_pointer, &cl::svm_pointer::pointer, false);  // SVM is identified by its address

    nb::class_<cl::profile_times>(m, "EventProfile", "Device timestamps of a command, in nanoseconds.")
        .def_ro("queued", &cl::profile_times::queued)
        .def_ro("submit", &cl::profile_times::submit)
        .def_ro("start", &cl::profile_times::start)
        .def_ro("end", &cl::profile_times::end);

    // PyOpenCL's base Event takes no attributes but the NannyEvent its host copies return does;
    // gpukit has one Event for both.
    auto event = nb::class_<cl::event>(m, "Event", nb::dynamic_attr(), "The completion of one enqueued command.")
                     .def("wait",
                          [](const cl::event& e) {
                              {
                                  release_gil release;
                                  e.wait();
                              }
                              release_dropped_holds();  // what the command held, a bytearray's export for one
                          })
                     .def_prop_ro("command_execution_status", &cl::event::status)
                     .def_prop_ro("profile", &cl::event::profile)
                     .def("get_info", &event_info, "param"_a.none(), "clGetEventInfo(param), decoded (see event_info).")
                     .def(
                         "set_callback",
                         [](const cl::event& e, nb::handle type, nb::typed<nb::callable, nb::object(int)> callback) {
                             e.set_callback(static_cast<cl_int>(
                                                cl_signed(type, "Event.set_callback(type)", INT32_MIN, INT32_MAX)),
                                            python_status_callback(std::move(callback)));
                         },
                         "type"_a.none(), "cb"_a,
                         "Call cb(status) on another thread once the command reaches `type` (command_execution_status: "
                         "SUBMITTED, RUNNING or COMPLETE); a failed command reports its negative error code.")
                     .def("get_profiling_info", &event_profiling_info, "param"_a.none(),
                          "clGetEventProfilingInfo(param) in nanoseconds (see profiling_info); the queue must profile.")
                     .def("__getattr__", &info_getattr, "name"_a);
    identify_by_handle(event, &cl::event::handle);
    nb::class_<cl::user_event, cl::event>(m, "UserEvent", nb::dynamic_attr(),
                                          "An Event the program completes itself with set_status (OpenCL 1.1).")
        .def(
            "__init__",
            [](cl::user_event* self, const cl::context& ctx) {
                new (self) cl::user_event(cl::user_event::create(ctx));
            },
            "context"_a)
        .def(
            "set_status",
            [](cl::user_event& e, nb::handle status) {
                e.set_status(
                    static_cast<cl_int>(cl_signed(status, "UserEvent.set_status(status)", INT32_MIN, INT32_MAX)));
            },
            "status"_a.none(),
            "command_execution_status.COMPLETE, or a negative error code; once. A UserEvent dropped without a "
            "status fails the commands that wait for it.");
    def_from_int_ptr(event, "Event",
                     [](void* h, bool retain) { return cl::event::wrap(static_cast<cl_event>(h), retain); });

    m.def(
        "enqueue_nd_range_kernel",
        [](const cl::queue& q, const cl::kernel& k, nb::handle global_size, nb::handle local_size,
           nb::handle global_offset, nb::handle wait_for, nb::handle g_times_l, nb::handle allow_empty_ndrange) {
            return launch_request(global_size, local_size, global_offset, wait_for,
                                  cl_bool(g_times_l, "enqueue_nd_range_kernel(g_times_l)"),
                                  cl_bool(allow_empty_ndrange, "enqueue_nd_range_kernel(allow_empty_ndrange)"))
                .run(q, k);
        },
        "queue"_a, "kernel"_a, "global_work_size"_a.none(), "local_work_size"_a.none(),
        "global_offset"_a.none() = nb::none(), "wait_for"_a.none() = nb::none(), nb::kw_only(),
        "g_times_l"_a.none() = false, "allow_empty_ndrange"_a.none() = false,
        "Run `kernel`, whose arguments are set (Kernel.set_args), on `queue`. Returns an Event.");
    m.def(
        "enqueue_marker",
        [](const cl::queue& q, nb::handle wait_for) {
            note_queue_use(q);
            return cl::enqueue_marker(q, wait_list(wait_for));
        },
        "queue"_a, "wait_for"_a.none() = nb::none(),
        "An Event that completes with the commands of `wait_for` (None: everything queued before).");
    m.def(
        "enqueue_barrier",
        [](const cl::queue& q, nb::handle wait_for) {
            note_queue_use(q);
            return cl::enqueue_barrier(q, wait_list(wait_for));
        },
        "queue"_a, "wait_for"_a.none() = nb::none(),
        "A barrier: an Event that completes with the commands of `wait_for` (None: everything queued before), "
        "and that the commands queued after it wait for.");
    m.def(
        "wait_for_events",
        [](nb::handle events) {
            if (!PySequence_Check(events.ptr()) || PyUnicode_Check(events.ptr()))
                throw nb::type_error(("wait_for_events(events) must be a sequence of gpukit.cl.Event, got " +
                                      nb::cast<std::string>(nb::type_name(events.type())))
                                         .c_str());
            std::vector<const cl::event*> waited;  // the Events stay alive in `events`, which the caller holds
            for (nb::handle e : events) {
                if (!nb::isinstance<cl::event>(e))
                    throw nb::type_error(("wait_for_events: item " + std::to_string(waited.size()) + " is a " +
                                          nb::cast<std::string>(nb::type_name(e.type())) + "; expected gpukit.cl.Event")
                                             .c_str());
                waited.push_back(&nb::cast<const cl::event&>(e));
            }
            release_gil release;
            cl::wait_for_events(waited);
        },
        "events"_a, "Wait until every Event of `events` has completed.");
    m.def(
        "enqueue_copy",
        [](const cl::queue& q, nb::handle dest, nb::handle src, nb::handle dst_offset, nb::handle src_offset,
           nb::handle byte_count, nb::handle is_blocking, nb::handle wait_for, nb::handle region,
           nb::handle buffer_origin, nb::handle host_origin, nb::handle buffer_pitches, nb::handle host_pitches,
           nb::handle src_origin, nb::handle dst_origin, nb::handle src_pitches, nb::handle dst_pitches,
           nb::handle origin, nb::handle pitches, nb::handle offset, nb::handle dest_origin) {
            return enqueue_copy(q, dest, src, dst_offset, src_offset, byte_count, is_blocking, wait_for,
                                {region, buffer_origin, host_origin, buffer_pitches, host_pitches, src_origin,
                                 dst_origin, src_pitches, dst_pitches, origin, pitches, offset, dest_origin});
        },
        "queue"_a, "dest"_a, "src"_a, nb::kw_only(), "dst_offset"_a.none() = 0, "src_offset"_a.none() = 0,
        "byte_count"_a.none() = nb::none(), "is_blocking"_a.none() = true, "wait_for"_a.none() = nb::none(),
        "region"_a.none() = nb::none(), "buffer_origin"_a.none() = nb::none(), "host_origin"_a.none() = nb::none(),
        "buffer_pitches"_a.none() = nb::none(), "host_pitches"_a.none() = nb::none(),
        "src_origin"_a.none() = nb::none(), "dst_origin"_a.none() = nb::none(), "src_pitches"_a.none() = nb::none(),
        "dst_pitches"_a.none() = nb::none(), "origin"_a.none() = nb::none(), "pitches"_a.none() = nb::none(),
        "offset"_a.none() = nb::none(), "dest_origin"_a.none() = nb::none(),
        "Copy between a numpy array and a Buffer or SVM, or between Buffers, or between SVM; with region and "
        "origins (buffer_origin/host_origin, or src_origin/dst_origin between Buffers), a rectangular copy "
        "between Buffers or a Buffer and a numpy array. With an Image on either side, PyOpenCL's image copies: "
        "origin, region (pixels) and pitches with a numpy array; offset, origin and region with a Buffer; "
        "src_origin, dest_origin and region between Images. Returns an Event.");

    auto program =
        nb::class_<cl::program>(m, "Program", nb::dynamic_attr(), "OpenCL C source built for a context's devices.")
            // PyOpenCL's two forms: Program(context, source) and Program(context, devices, binaries).
            .def(
                "__init__",
                [](cl::program* self, const cl::context& ctx, nb::handle source_or_devices, nb::handle binaries) {
                    if (binaries.is_none()) {
                        if (!PyUnicode_Check(source_or_devices.ptr()))
                            throw nb::type_error(("Program(context, source): source must be a str of OpenCL C, got " +
                                                  nb::cast<std::string>(nb::type_name(source_or_devices.type())) +
                                                  " (for binaries: Program(context, devices, binaries))")
                                                     .c_str());
                        new (self)
                            cl::program(cl::program::create_with_source(ctx, nb::cast<std::string>(source_or_devices)));
                        return;
                    }
                    const std::vector<cl::device> devices = device_list(source_or_devices, "Program(context, devices)");
                    if (!PySequence_Check(binaries.ptr()) || PyUnicode_Check(binaries.ptr()) ||
                        PyBytes_Check(binaries.ptr()))
                        throw nb::type_error(
                            ("Program(context, devices, binaries): binaries must be a sequence of bytes, "
                             "one per device, got " +
                             nb::cast<std::string>(nb::type_name(binaries.type())))
                                .c_str());
                    std::vector<std::vector<std::byte>> copies;
                    for (nb::handle binary : binaries) {
                        python_hold hold;
                        const std::span<std::byte> bytes =
                            hold.export_memory(binary, false,
                                               ("Program(binaries): binary " + std::to_string(copies.size())).c_str());
                        copies.emplace_back(bytes.begin(), bytes.end());
                    }
                    new (self) cl::program(cl::program::create_with_binary(ctx, devices, copies));
                },
                "context"_a, "source_or_devices"_a.none(), "binaries"_a.none() = nb::none(),
                "Program(context, source), or Program(context, devices, binaries) from the executables binaries "
                "gives (build() readies it).")
            .def(
                "build",
                [](nb::handle self, nb::handle options, nb::handle devices, nb::handle cache_dir) {
                    const std::string joined = build_options(options);
                    // None or no devices: all of them (as OpenCL takes an empty list, and PyOpenCL with it).
                    const std::vector<cl::device> chosen =
                        devices.is_none() ? std::vector<cl::device>{} : device_list(devices, "Program.build(devices)");
                    check_cache_dir(cache_dir);
                    cl::program& p = nb::cast<cl::program&>(self);
                    {
                        release_gil release;
                        p.build(joined, chosen);
                    }
                    return self;
                },
                nb::sig("def build(self, options: object | None = None, devices: object | None = None, "
                        "cache_dir: object | None = None) -> gpukit._gpukit.cl.Program"),
                "options"_a.none() = nb::none(), "devices"_a.none() = nb::none(), "cache_dir"_a.none() = nb::none(),
                "Build for `devices` (default: every device of the context) with `options` (a str or a sequence of "
                "str; gpukit's device headers, pyopencl-complex.h among them, are on the include path). `cache_dir` is "
                "accepted for PyOpenCL code and not used: gpukit keeps no cache of OpenCL program "
                "binaries. Returns self.")
            .def(
                "compile",
                [](nb::handle self, nb::handle options, nb::handle devices, nb::handle headers) {
                    const std::string joined = build_options(options);
                    const std::vector<cl::device> chosen = devices.is_none()
                                                               ? std::vector<cl::device>{}
                                                               : device_list(devices, "Program.compile(devices)");
                    std::vector<std::pair<std::string, const cl::program*>> named;
                    nb::list kept;  // the header programs, alive for the call
                    if (!headers.is_none()) {
                        if (!PySequence_Check(headers.ptr()) || PyUnicode_Check(headers.ptr()))
                            throw nb::type_error(
                                "Program.compile(headers) must be a sequence of (name, Program) pairs");
                        for (nb::handle pair : headers) {
                            if (!PyTuple_Check(pair.ptr()) || nb::len(pair) != 2 || !PyUnicode_Check(pair[0].ptr()) ||
                                !nb::isinstance<cl::program>(pair[1]))
                                throw nb::type_error(("Program.compile(headers): item " + std::to_string(named.size()) +
                                                      " must be a (name, Program) pair")
                                                         .c_str());
                            kept.append(pair);
                            named.emplace_back(nb::cast<std::string>(pair[0]), &nb::cast<const cl::program&>(pair[1]));
                        }
                    }
                    cl::program& p = nb::cast<cl::program&>(self);
                    {
                        release_gil release;
                        p.compile(joined, chosen, named);
                    }
                    return self;
                },
                nb::sig("def compile(self, options: object | None = None, devices: object | None = None, "
                        "headers: object | None = None) -> gpukit._gpukit.cl.Program"),
                "options"_a.none() = nb::none(), "devices"_a.none() = nb::none(), "headers"_a.none() = nb::none(),
                "Compile for `devices` (default: all) into an object for link_program; `headers`: (name, Program) "
                "pairs whose source `#include \"name\"` reads. Returns self.")
            .def(
                "get_build_log",
                [](const cl::program& p, const cl::device& dev) { return message_text(p.build_log(dev)); }, "device"_a)
            .def("get_info", &program_info, "param"_a.none(), "clGetProgramInfo(param), decoded (see program_info).")
            .def("get_build_info", &program_build_info, "device"_a, "param"_a.none(),
                 "clGetProgramBuildInfo(device, param), decoded (see program_build_info).")
            .def(
                "all_kernels",
                [](const cl::program& p) {
                    std::vector<cl::kernel> kernels;
                    for (const std::string& name : p.kernel_names())
                        kernels.push_back(cl::kernel::create(p, name));
                    return kernels;
                },
                "A new Kernel of each kernel of the built program.")
            // As PyOpenCL's: an attribute is a program_info answer (prg.binaries, prg.kernel_names,
            // the names joined by ';'), else a kernel of the built program.
            .def(
                "__getattr__",
                [](nb::handle self, const std::string& name) -> nb::object {
                    if (nb::object info = info_attribute(self, name); info.is_valid())
                        return info;
                    if (!nb::inst_ready(self))
                        throw nb::attribute_error(
                            ("Program has no attribute '" + name + "': its __init__ has not run").c_str());
                    const auto& p = nb::cast<const cl::program&>(self);
                    if (!p.built())
                        throw nb::attribute_error(
                            ("Program has no attribute '" + name + "'; kernels are attributes only after build()")
                                .c_str());
                    const std::vector<std::string> names = p.kernel_names();
                    if (std::find(names.begin(), names.end(), name) == names.end()) {
                        std::string known;
                        for (const std::string& n : names)
                            known += (known.empty() ? "" : ", ") + n;
                        throw nb::attribute_error(("Program has no kernel or program_info attribute '" + name +
                                                   "'; its kernels are: " + known)
                                                      .c_str());
                    }
                    return nb::cast(cl::kernel::create(p, name));
                },
                nb::sig("def __getattr__(self, name: str) -> gpukit._gpukit.cl.Kernel"),
                "name"_a);  // PyOpenCL's type: kernels are the use
    identify_by_handle(program, &cl::program::handle);
    def_from_int_ptr(program, "Program",
                     [](void* h, bool retain) { return cl::program::wrap(static_cast<cl_program>(h), retain); });

    nb::class_<cl::local_memory>(m, "LocalMemory", nb::dynamic_attr(), "A __local kernel argument of `size` bytes.")
        .def(
            "__init__",
            [](cl::local_memory* self, nb::handle size) {
                new (self) cl::local_memory{cl_unsigned(size, "LocalMemory(size)")};
            },
            "size"_a.none())
        .def_ro("size", &cl::local_memory::bytes);

    nb::class_<cl::kernel_parameter>(m, "KernelParameter", "One parameter of a kernel, as OpenCL describes it.")
        .def_ro("name", &cl::kernel_parameter::name)
        .def_ro("type_name", &cl::kernel_parameter::type_name)
        .def_prop_ro(
            "kind", [](const cl::kernel_parameter& p) { return cl::kind_name(p.kind); },
            "'global', 'constant', 'local', 'value', 'unsupported' (images, samplers, pipes) or 'unknown'")
        .def("__repr__", [](const cl::kernel_parameter& p) {
            return "<gpukit.cl.KernelParameter '" + p.name + "' " + p.type_name + " (" + cl::kind_name(p.kind) + ")>";
        });

    auto kernel =
        nb::class_<cl::kernel>(m, "Kernel", nb::dynamic_attr(), "One kernel of a built program.")
            .def(
                "__init__",
                [](cl::kernel* self, const cl::program& p, const std::string& name) {
                    new (self) cl::kernel(cl::kernel::create(p, name));
                },
                "program"_a, "name"_a)
            .def_prop_ro("function_name", &cl::kernel::name)
            .def_prop_ro("num_args", &cl::kernel::num_args)
            .def_prop_ro("parameters", &cl::kernel::parameters)
            .def_prop_ro(
                "context", [](const cl::kernel& k) { return cl::context::wrap(k.context_handle()); },
                "The Context of the kernel's program: a new object, equal to it.")
            .def_prop_ro(
                "program", [](const cl::kernel& k) { return kernel_info(k, nb::int_(CL_KERNEL_PROGRAM)); },
                "The kernel's Program: a new object, equal to it.")
            .def_prop_ro("reference_count",
                         [](const cl::kernel& k) { return kernel_info(k, nb::int_(CL_KERNEL_REFERENCE_COUNT)); })
            .def_prop_ro(
                "attributes", [](const cl::kernel& k) { return kernel_info(k, nb::int_(CL_KERNEL_ATTRIBUTES)); },
                "The attributes the kernel was declared with (__attribute__((...))), as OpenCL spells them.")
            .def("get_info", &kernel_info, "param"_a.none(), "clGetKernelInfo(param), decoded (see kernel_info).")
            .def("get_work_group_info", &kernel_work_group_info,
                 nb::sig("def get_work_group_info(self, param: object | None, device: gpukit._gpukit.cl.Device) -> int "
                         "| list[int]"),
                 "param"_a.none(), "device"_a,
                 "clGetKernelWorkGroupInfo(param) for `device`, decoded (see kernel_work_group_info): an int, or a "
                 "list of ints for COMPILE_WORK_GROUP_SIZE and GLOBAL_WORK_SIZE.")
            .def(
                "set_arg",
                [](cl::kernel& k, nb::handle index, nb::handle value) {
                    set_kernel_arg(k, static_cast<cl_uint>(cl_unsigned(index, "Kernel.set_arg(index)", UINT32_MAX)),
                                   value);
                },
                "index"_a.none(), "value"_a.none(),
                "Set argument `index`; the kernel keeps the Buffer's memory, or the SVM, until it is set again.")
            // The nb::sig of these: nanobind's own signatures, with the types of *args (and of the
            // keywords the body takes from **kwargs), which it does not render.
            .def("set_args", &set_kernel_args, "args"_a, nb::sig("def set_args(self, *args: object) -> None"))
            .def(
                "__call__",
                [](cl::kernel& k, const cl::queue& q, nb::handle global_size, nb::handle local_size, nb::args args,
                   nb::kwargs kwargs) {
                    nb::handle wait_for = nb::none(), global_offset = nb::none();
                    bool g_times_l = false, allow_empty_ndrange = false;
                    for (auto [key, value] : kwargs) {
                        const std::string name = nb::cast<std::string>(key);
                        if (name == "wait_for")
                            wait_for = value;
                        else if (name == "global_offset")
                            global_offset = value;
                        else if (name == "g_times_l")
                            g_times_l = cl_bool(value, "Kernel.__call__(g_times_l)");
                        else if (name == "allow_empty_ndrange")
                            allow_empty_ndrange = cl_bool(value, "Kernel.__call__(allow_empty_ndrange)");
                        else
                            throw nb::type_error(
                                ("Kernel.__call__ got an unexpected keyword '" + name +
                                 "'; expected wait_for, global_offset, g_times_l or allow_empty_ndrange")
                                    .c_str());
                    }
                    const launch_request request(global_size, local_size, global_offset, wait_for, g_times_l,
                                                 allow_empty_ndrange);
                    set_kernel_args(k, args);
                    return request.run(q, k);
                },
                "queue"_a, "global_size"_a.none(), "local_size"_a.none(), "args"_a, "kwargs"_a,
                nb::sig("def __call__(self, queue: gpukit._gpukit.cl.CommandQueue, global_size: object | None, "
                        "local_size: object | None, *args: object, "
                        "wait_for: collections.abc.Sequence[gpukit._gpukit.cl.Event] | None = None, "
                        "global_offset: object | None = None, g_times_l: bool = False, "
                        "allow_empty_ndrange: bool = False) -> gpukit._gpukit.cl.Event"),
                "Set the arguments and run: kernel(queue, global_size, local_size, *args, wait_for=None, "
                "global_offset=None, g_times_l=False, allow_empty_ndrange=False) -> Event.")
            // Python (gpukit.cl._capture_call); bound here so that Kernel's stub has it.
            .def(
                "capture_call",
                [](nb::handle self, nb::handle output_file, nb::handle queue, nb::handle global_size,
                   nb::handle local_size, nb::args args, nb::kwargs kwargs) {
                    nb::object capture = nb::module_::import_("gpukit.cl._capture_call").attr("capture_call");
                    return capture(self, output_file, queue, global_size, local_size, *args, **kwargs);
                },
                "output_file"_a, "queue"_a, "global_size"_a.none(), "local_size"_a.none(), "args"_a, "kwargs"_a,
                nb::sig("def capture_call(self, output_file: object, queue: object, global_size: object | None, "
                        "local_size: object | None, *args: object, "
                        "wait_for: collections.abc.Sequence[gpukit._gpukit.cl.Event] | None = None, "
                        "global_offset: object | None = None, g_times_l: bool = False, "
                        "allow_empty_ndrange: bool = False) -> None"),
                "Write a Python script that replays kernel(queue, global_size, local_size, \\*args, \\*\\*kwargs) on "
                "its own "
                "(the program's source and options, the arguments' values), as PyOpenCL's; the call is not run.");
    identify_by_handle(kernel, &cl::kernel::handle);
    def_from_int_ptr(kernel, "Kernel",
                     [](void* h, bool retain) { return cl::kernel::wrap(static_cast<cl_kernel>(h), retain); });

    bind_cl_mapping(m);
    bind_cl_images(m);
    bind_cl_array(m);
}

}  // namespace gpukit::python
