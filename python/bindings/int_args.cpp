#include "int_args.hpp"

#include "gpukit/core/error.hpp"

#include <nanobind/stl/string.h>

namespace gpukit::python {
namespace {

std::string repr_of(nb::handle value) { return nb::cast<std::string>(nb::repr(value)); }

}  // namespace

nb::int_ index_arg(nb::handle value, const char* what) {
    if (PyIndex_Check(value.ptr()) && !PyBool_Check(value.ptr())) {
        nb::object index = nb::steal(PyNumber_Index(value.ptr()));
        if (index.is_valid())
            return nb::borrow<nb::int_>(index);
        PyErr_Clear();  // e.g. a numpy array of several elements: has the slot, is no scalar
    }
    const std::string type = nb::cast<std::string>(nb::type_name(value.type()));
    throw nb::type_error((std::string(what) + ": expected an integer, got " + type + " " + repr_of(value)).c_str());
}

void throw_out_of_range(nb::handle index, const char* what, const std::string& min, const std::string& max) {
    throw logic_error(std::string(what) + ": expected an integer from " + min + " to " + max + ", got " +
                      repr_of(index));
}

std::int64_t clamped_int64(nb::handle value, const char* what) {
    const nb::int_ index = index_arg(value, what);
    int overflow = 0;
    const long long result = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    return overflow > 0 ? std::numeric_limits<std::int64_t>::max()
                        : overflow < 0 ? std::numeric_limits<std::int64_t>::min() : result;
}

}  // namespace gpukit::python
