#include "cl_args.hpp"

#include "gpukit/cl/error.hpp"

#include <nanobind/stl/string.h>

#include <string>

namespace gpukit::python {

namespace {

std::string bound_text(std::int64_t bound) { return std::to_string(bound); }
std::string bound_text(std::uint64_t bound) {
    return bound == std::numeric_limits<std::uint64_t>::max() ? "2**64-1" : std::to_string(bound);
}

bool is_numpy_bool(nb::handle value) {
    const nb::object numpy_bool = nb::module_::import_("numpy").attr("bool_");
    return PyObject_IsInstance(value.ptr(), numpy_bool.ptr()) == 1;
}

// `value` as a Python int; TypeError naming `what` unless it is an integer (bools are not).
nb::object python_int(nb::handle value, const char* what) {
    if (!PyIndex_Check(value.ptr()) || PyBool_Check(value.ptr()) || is_numpy_bool(value))
        throw nb::type_error((std::string(what) + " must be an integer, got " +
                              nb::cast<std::string>(nb::type_name(value.type())) + " " +
                              nb::cast<std::string>(nb::repr(value)))
                                 .c_str());
    nb::object index = nb::steal(PyNumber_Index(value.ptr()));
    if (!index.is_valid())
        throw nb::python_error();
    return index;
}

template <class Bound>
[[noreturn]] void throw_out_of_range(nb::handle index, const char* what, Bound min, Bound max) {
    const bool below = PyObject_RichCompareBool(index.ptr(), nb::int_(0).ptr(), Py_LT) == 1 && min >= 0;
    throw cl::logic_error(std::string(what) + ": " + nb::cast<std::string>(nb::str(index)) + " is " +
                              (below ? "negative" : "out of range") + "; expected an integer from " + bound_text(min) +
                              " to " + bound_text(max),
                          CL_INVALID_VALUE, what);
}

}  // namespace

std::uint64_t cl_unsigned(nb::handle value, const char* what, std::uint64_t limit) {
    const nb::object index = python_int(value, what);
    const unsigned long long number = PyLong_AsUnsignedLongLong(index.ptr());
    if (PyErr_Occurred()) {
        PyErr_Clear();
        throw_out_of_range(index, what, std::uint64_t{0}, limit);
    }
    if (number > limit)
        throw_out_of_range(index, what, std::uint64_t{0}, limit);
    return number;
}

std::int64_t cl_signed(nb::handle value, const char* what, std::int64_t min, std::int64_t max) {
    const nb::object index = python_int(value, what);
    int overflow = 0;
    const long long number = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    if (PyErr_Occurred())
        throw nb::python_error();
    if (overflow != 0 || number < min || number > max)
        throw_out_of_range(index, what, min, max);
    return number;
}

bool cl_bool(nb::handle value, const char* what) {
    if (PyBool_Check(value.ptr()) || is_numpy_bool(value))
        return PyObject_IsTrue(value.ptr()) == 1;
    throw nb::type_error((std::string(what) + " must be True or False, got " +
                          nb::cast<std::string>(nb::type_name(value.type())) + " " +
                          nb::cast<std::string>(nb::repr(value)))
                             .c_str());
}

}  // namespace gpukit::python
