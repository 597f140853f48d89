#include "common/argument_errors.hpp"

#include <array>
#include <cstddef>
#include <cstring>
#include <string_view>
#include <unordered_set>
#include <utility>

namespace gpukit::python {

using namespace nb::literals;

namespace {

using vectorcall_function = PyObject* (*)(PyObject*, PyObject* const*, size_t, PyObject*);

// nanobind gives each function one of a few dispatchers (by arity and overloads); each
// dispatcher met gets a slot here and the trampoline of that slot.
constexpr std::size_t max_dispatchers = 16;
std::array<vectorcall_function, max_dispatchers> dispatchers{};
std::size_t dispatcher_count = 0;

// nanobind marks the self of a constructor call with the bit below the vector call's
// offset flag (trusted: just allocated); neither bit is part of the argument count.
constexpr size_t call_flags = PY_VECTORCALL_ARGUMENTS_OFFSET | (PY_VECTORCALL_ARGUMENTS_OFFSET >> 1);

// Whether the pending TypeError is nanobind's "incompatible function arguments" or the
// translated std::bad_cast; sets `cast` for the latter.
bool is_conversion_failure(PyObject* error, bool& cast) {
    if (Py_TYPE(error) != reinterpret_cast<PyTypeObject*>(PyExc_TypeError))
        return false;
    nb::object text = nb::steal(PyObject_Str(error));
    const char* message = text.is_valid() ? PyUnicode_AsUTF8(text.ptr()) : nullptr;
    if (message == nullptr) {
        PyErr_Clear();
        return false;
    }
    cast = std::strcmp(message, bad_cast_text) == 0;
    return cast || std::strstr(message, "(): incompatible function arguments") != nullptr;
}

// explain()'s message for the failed call, or null (and no error set) to keep nanobind's.
nb::object explanation(PyObject* function, PyObject* const* args, size_t nargsf, PyObject* kwnames, bool cast) {
    const auto nargs = static_cast<Py_ssize_t>(nargsf & ~call_flags);
    nb::object positional = nb::steal(PyTuple_New(nargs));
    for (Py_ssize_t i = 0; i < nargs; ++i)
        PyTuple_SET_ITEM(positional.ptr(), i, Py_NewRef(args[i]));
    nb::dict keywords;
    if (kwnames != nullptr)
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(kwnames); ++j)
            keywords[PyTuple_GET_ITEM(kwnames, j)] = nb::handle(args[nargs + j]);
    nb::object explain = nb::module_::import_("gpukit._errors.arguments").attr("explain");
    nb::object message = explain(nb::handle(function), positional, keywords, cast);
    return message.is_none() ? nb::object() : message;
}

// Replaces the pending conversion failure of a call of `function` by explain()'s TypeError;
// leaves any other error as it is, and the original one where explaining fails.
void explain_failure(PyObject* function, PyObject* const* args, size_t nargsf, PyObject* kwnames) noexcept {
    if (!PyErr_ExceptionMatches(PyExc_TypeError))
        return;
    PyObject *type, *error, *traceback;
    PyErr_Fetch(&type, &error, &traceback);
    PyErr_NormalizeException(&type, &error, &traceback);
    bool cast = false;
    try {
        if (error != nullptr && is_conversion_failure(error, cast))
            if (nb::object message = explanation(function, args, nargsf, kwnames, cast); message.is_valid()) {
                Py_XDECREF(type), Py_XDECREF(error), Py_XDECREF(traceback);
                PyErr_SetObject(PyExc_TypeError, message.ptr());
                return;
            }
    } catch (nb::python_error& e) {
        e.discard_as_unraisable("gpukit: explaining a failed call");
    } catch (...) {
    }
    PyErr_Clear();
    PyErr_Restore(type, error, traceback);
}

template <std::size_t I>
PyObject* checked_call(PyObject* function, PyObject* const* args, size_t nargsf, PyObject* kwnames) noexcept {
    PyObject* result = dispatchers[I](function, args, nargsf, kwnames);
    if (result == nullptr) [[unlikely]]
        explain_failure(function, args, nargsf, kwnames);
    return result;
}

template <std::size_t... I>
constexpr std::array<vectorcall_function, sizeof...(I)> trampolines(std::index_sequence<I...>) {
    return {&checked_call<I>...};
}

constexpr std::array<vectorcall_function, max_dispatchers> checked_calls =
    trampolines(std::make_index_sequence<max_dispatchers>{});

bool is_nanobind_function(PyObject* object) {
    const char* type = Py_TYPE(object)->tp_name;
    return std::strcmp(type, "nanobind.nb_func") == 0 || std::strcmp(type, "nanobind.nb_method") == 0;
}

// Points the vector call of a nanobind function at the trampoline of its dispatcher. The
// slot is where the function's type says (tp_vectorcall_offset, CPython's vector call
// protocol), which is also where nanobind's own calls read it.
void route_through_trampoline(PyObject* function) {
    PyTypeObject* type = Py_TYPE(function);
    if (!PyType_HasFeature(type, Py_TPFLAGS_HAVE_VECTORCALL) || type->tp_vectorcall_offset <= 0)
        return;
    auto* slot = reinterpret_cast<vectorcall_function*>(reinterpret_cast<char*>(function) + type->tp_vectorcall_offset);
    std::size_t i = 0;
    while (i < dispatcher_count && dispatchers[i] != *slot && checked_calls[i] != *slot)
        ++i;
    if (i < dispatcher_count && checked_calls[i] == *slot)
        return;  // reached twice (an alias)
    if (i == dispatcher_count) {
        if (dispatcher_count == max_dispatchers)
            return;  // a nanobind with more dispatchers than expected: its message stays
        dispatchers[dispatcher_count++] = *slot;
    }
    *slot = checked_calls[i];
}

// Every function of `scope` (a module or a bound class), of the properties and nested classes
// of a class, and of the submodules of a module named below `prefix`.
void route_scope(PyObject* scope, std::string_view prefix, std::unordered_set<PyObject*>& seen) {
    if (!seen.insert(scope).second)
        return;
    PyObject* dict = PyModule_Check(scope) ? PyModule_GetDict(scope) : reinterpret_cast<PyTypeObject*>(scope)->tp_dict;
    PyObject *key, *value;
    Py_ssize_t position = 0;
    while (PyDict_Next(dict, &position, &key, &value)) {
        if (is_nanobind_function(value)) {
            route_through_trampoline(value);
        } else if (PyObject_TypeCheck(value, &PyProperty_Type)) {
            for (const char* accessor : {"fget", "fset", "fdel"}) {
                nb::object f = nb::getattr(value, accessor, nb::none());
                if (is_nanobind_function(f.ptr()))
                    route_through_trampoline(f.ptr());
            }
        } else if (PyType_Check(value) && nb::type_check(value)) {
            route_scope(value, prefix, seen);
        } else if (PyModule_Check(value)) {
            const char* name = PyModule_GetName(value);
            if (name != nullptr && std::string_view(name).starts_with(prefix))
                route_scope(value, prefix, seen);
            PyErr_Clear();
        }
    }
}

}  // namespace

bool refuse_uninitialised_buffer(PyObject* self, Py_buffer* view) {
    if (nb::inst_ready(self))
        return false;
    const char* name = Py_TYPE(self)->tp_name;
    if (const char* dot = std::strrchr(name, '.'))
        name = dot + 1;
    PyErr_Format(PyExc_BufferError, "this %s object was not initialised: make it by calling %s(...)", name, name);
    view->obj = nullptr;
    return true;
}

void explain_argument_errors(nb::module_& m) {
    m.def(
        "_uninitialised", [](nb::handle obj) { return nb::inst_check(obj) && !nb::inst_ready(obj); }, "obj"_a.none(),
        "Whether obj is a gpukit object made by __new__ whose __init__ never ran.");
    std::unordered_set<PyObject*> seen;
    route_scope(m.ptr(), PyModule_GetName(m.ptr()), seen);
}

}  // namespace gpukit::python
