#include "cl/cl_args.hpp"

#include "common/int_args.hpp"

#include "gpukit/cl/error.hpp"
#include "gpukit/cl/event.hpp"

#include <nanobind/stl/string.h>

#include <optional>
#include <string>
#include <vector>

namespace gpukit::python {

namespace {

[[noreturn]] void throw_cl_out_of_range(nb::handle index, const char* what, const std::string& min,
                                        const std::string& max) {
    throw cl::logic_error(out_of_range_text(index, what, min, max), CL_INVALID_VALUE, what);
}

}  // namespace

std::uint64_t cl_unsigned(nb::handle value, const char* what, std::uint64_t limit) {
    const nb::int_ index = index_arg(value, what);
    const std::optional<std::uint64_t> number = int_value<std::uint64_t>(index);
    if (!number || *number > limit)
        throw_cl_out_of_range(index, what, "0", std::to_string(limit));
    return *number;
}

std::int64_t cl_signed(nb::handle value, const char* what, std::int64_t min, std::int64_t max) {
    const nb::int_ index = index_arg(value, what);
    const std::optional<std::int64_t> number = int_value<std::int64_t>(index);
    if (!number || *number < min || *number > max)
        throw_cl_out_of_range(index, what, std::to_string(min), std::to_string(max));
    return *number;
}

namespace {

// Whether `value` is a numpy.bool_; looked up in sys.modules, never imported: a __del__ at
// interpreter exit may pass a flag, when imports are no longer possible.
bool is_numpy_bool(nb::handle value) {
    const nb::object numpy = nb::steal(PyImport_GetModule(nb::str("numpy").ptr()));
    if (!numpy.is_valid()) {
        PyErr_Clear();
        return false;
    }
    return PyObject_IsInstance(value.ptr(), numpy.attr("bool_").ptr()) == 1;
}

}  // namespace

bool cl_bool(nb::handle value, const char* what) {
    if (PyBool_Check(value.ptr()) || is_numpy_bool(value))
        return PyObject_IsTrue(value.ptr()) == 1;
    throw nb::type_error((std::string(what) + ": expected True or False, got " +
                          nb::cast<std::string>(nb::type_name(value.type())) + " " +
                          nb::cast<std::string>(nb::repr(value)))
                             .c_str());
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

}  // namespace gpukit::python
