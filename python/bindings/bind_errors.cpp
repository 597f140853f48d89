// The exception tree of the seed, raised for gpukit's C++ exceptions:
// Error > MemoryError, LogicError, LaunchError, RuntimeError, CompileError; and Python's own
// TypeError for gpukit::type_error, as numpy raises for operand types it does not support.
#include "exception_types.hpp"

#include "gpukit/core/error.hpp"

#include <exception>

namespace gpukit::python {
namespace {

struct exception_types {
    PyObject* error = nullptr;
    PyObject* memory = nullptr;
    PyObject* logic = nullptr;
    PyObject* launch = nullptr;
    PyObject* runtime = nullptr;
    PyObject* compile = nullptr;
};
exception_types types;

PyObject* new_type(nb::module_& m, const char* name, PyObject* base, const char* doc) {
    return new_exception_type(m, "gpukit.driver", name, base, doc);
}

}  // namespace

PyObject* new_exception_type(nb::module_& m, const char* module_name, const char* name, PyObject* base,
                             const char* doc) {
    const std::string qualified = std::string(module_name) + "." + name;
    PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, base, nullptr);
    if (type == nullptr)
        throw nb::python_error();
    m.attr(name) = nb::borrow(type);  // and the reference made here is kept for the translators
    return type;
}

namespace {

// Sets `attributes` on a new `type(message)` and raises it; a failing constructor leaves its
// own error set.
void raise_instance(PyObject* type, const char* message, exception_attributes attributes,
                    const api_error* call = nullptr) {
    nb::object instance = nb::steal(PyObject_CallFunction(type, "s", message));
    if (!instance.is_valid())
        return;
    if (call != nullptr) {
        nb::setattr(instance, "code", nb::int_(call->code()));
        nb::setattr(instance, "routine", nb::str(call->routine().c_str()));
    }
    for (const auto& [name, value] : attributes)
        nb::setattr(instance, name, value);
    PyErr_SetObject(type, instance.ptr());
}

}  // namespace

void raise_with(PyObject* type, const char* message, exception_attributes attributes) {
    raise_instance(type, message, attributes);
}

void raise_api_error(PyObject* type, const api_error& e, exception_attributes more) {
    raise_instance(type, e.what(), more, &e);
}

void bind_errors(nb::module_& m) {
    types.error = new_type(m, "Error", PyExc_Exception, "Base class of every gpukit error.");
    types.memory = new_type(m, "MemoryError", types.error, "An allocation failed.");
    types.logic = new_type(m, "LogicError", types.error,
                           "The program used gpukit wrongly (a bad argument, a freed or detached object).");
    types.launch = new_type(m, "LaunchError", types.error, "A kernel launch or a running kernel failed.");
    types.runtime = new_type(m, "RuntimeError", types.error,
                             "The environment failed: no driver, no device, a missing file.");
    types.compile = new_type(m, "CompileError", types.error,
                             "Compiling CUDA C failed; see msg, stdout, stderr and command_line.");

    nb::register_exception_translator([](const std::exception_ptr& p, void*) {
        try {
            std::rethrow_exception(p);
        } catch (const compile_error& e) {
            raise_with(types.compile, e.what(),
                       {{"msg", nb::str(e.what())},
                        {"stdout", nb::str(e.stdout_text().c_str())},
                        {"stderr", nb::str(e.log().c_str())},
                        {"command_line", nb::str(e.command_line().c_str())}});
        } catch (const memory_error& e) {
            raise_api_error(types.memory, e);
        } catch (const launch_error& e) {
            raise_api_error(types.launch, e);
        } catch (const logic_error& e) {
            raise_api_error(types.logic, e);
        } catch (const runtime_error& e) {
            raise_api_error(types.runtime, e);
        } catch (const cuda_error& e) {
            raise_api_error(types.error, e);
        } catch (const type_error& e) {
            PyErr_SetString(PyExc_TypeError, e.what());
        } catch (const error& e) {
            PyErr_SetString(types.error, e.what());
        }
    });
}

}  // namespace gpukit::python
