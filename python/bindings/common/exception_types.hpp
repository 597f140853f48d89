// Making gpukit's Python exception classes and raising them with their attributes; shared
// by the CUDA tree (bind_errors.cpp) and the OpenCL one (bind_cl.cpp).
#pragma once

#include "common/bindings.hpp"

#include "gpukit/core/error.hpp"

#include <initializer_list>
#include <utility>

namespace gpukit::python {

using exception_attributes = std::initializer_list<std::pair<const char*, nb::object>>;

// A new exception class `<module_name>.<name>` deriving from `base`, set as `m.<name>`; the
// module keeps it alive.
PyObject* new_exception_type(nb::module_& m, const char* module_name, const char* name, PyObject* base,
                             const char* doc);

// The classes every backend's tree has: `<module_name>.Error`, deriving from the base passed to
// new_exception_tree, and its MemoryError, LogicError and RuntimeError (the CUDA tree adds
// LaunchError and CompileError).
struct exception_tree {
    PyObject* error = nullptr;
    PyObject* memory = nullptr;
    PyObject* logic = nullptr;
    PyObject* runtime = nullptr;
};

// The docstrings of those classes: what each one means in its backend.
struct exception_tree_docs {
    const char* error;
    const char* memory;
    const char* logic;
    const char* runtime;
};

// Makes the classes of an exception_tree in `m`, its Error deriving from `base`.
exception_tree new_exception_tree(nb::module_& m, const char* module_name, PyObject* base,
                                  const exception_tree_docs& docs);

// Raises `type(message)` with the given attributes set on the instance.
void raise_with(PyObject* type, const char* message, exception_attributes attributes);

// Raises `type(e.what())` carrying `code` and `routine` of the failed call, and `more`.
void raise_api_error(PyObject* type, const api_error& e, exception_attributes more = {});

}  // namespace gpukit::python
