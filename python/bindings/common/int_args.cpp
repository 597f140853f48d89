#include "common/int_args.hpp"
#include "common/object_text.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/constants.hpp"

#include <nanobind/stl/string.h>

#include <cstring>

namespace gpukit::python {
namespace {}  // namespace

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

std::string out_of_range_text(nb::handle index, const char* what, const std::string& min, const std::string& max) {
    return std::string(what) + ": expected an integer from " + min + " to " + max + ", got " + repr_of(index);
}

void throw_out_of_range(nb::handle index, const char* what, const std::string& min, const std::string& max) {
    throw logic_error(out_of_range_text(index, what, min, max));
}

long long constant_arg(nb::handle value, const char* what, const char* group) {
    const int v = integer_arg<int>(value, what);
    constexpr std::size_t listed = 8;
    std::string members;
    std::size_t count = 0;
    for (const cuda::named_constant& c : cuda::all_constants()) {
        if (std::strcmp(c.group, group) != 0)
            continue;
        if (c.value == v)
            return v;
        if (++count <= listed)
            members += (members.empty() ? "" : ", ") + std::string(c.name) + "=" + std::to_string(c.value);
    }
    const char* article = std::strchr("aeiou", group[0]) ? "an " : "a ";
    throw logic_error(std::string(what) + ": expected " + article + group + " (" + members +
                      (count > listed ? ", ..." : "") + "), got " + std::to_string(v));
}

std::int64_t clamped_int64(nb::handle value, const char* what) {
    const nb::int_ index = index_arg(value, what);
    int overflow = 0;
    const long long result = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    return overflow > 0   ? std::numeric_limits<std::int64_t>::max()
           : overflow < 0 ? std::numeric_limits<std::int64_t>::min()
                          : result;
}

int_tuple_type as_int_tuple(const std::vector<std::int64_t>& values) {
    nb::object t = nb::steal(PyTuple_New(static_cast<Py_ssize_t>(values.size())));
    for (std::size_t k = 0; k < values.size(); ++k)
        PyTuple_SET_ITEM(t.ptr(), static_cast<Py_ssize_t>(k), PyLong_FromLongLong(values[k]));
    return nb::borrow<nb::tuple>(t);
}

}  // namespace gpukit::python
