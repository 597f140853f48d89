// What error messages say of a Python object: its str, its repr, the name of its type.
#pragma once

#include "common/bindings.hpp"

#include <nanobind/stl/string.h>

#include <string>

namespace gpukit::python {

// str(obj).
inline std::string text_of(nb::handle obj) { return nb::cast<std::string>(nb::str(obj)); }
// repr(obj).
inline std::string repr_of(nb::handle obj) { return nb::cast<std::string>(nb::repr(obj)); }
// The name of obj's type, qualified by its module unless built in ("numpy.ndarray", "int").
inline std::string type_name_of(nb::handle obj) { return nb::cast<std::string>(nb::type_name(obj.type())); }
// type(obj).__name__: the unqualified name ("ndarray").
inline std::string short_type_name_of(nb::handle obj) {
    return nb::cast<std::string>(nb::str(obj.type().attr("__name__")));
}

}  // namespace gpukit::python
