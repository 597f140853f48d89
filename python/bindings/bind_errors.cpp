// The exception tree of the seed, raised for gpukit's C++ exceptions:
// Error > MemoryError, LogicError, LaunchError, RuntimeError, CompileError; and Python's own
// TypeError for gpukit::type_error, as numpy raises for operand types it does not support.
#include "bindings.hpp"

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
    const std::string qualified = std::string("gpukit.driver.") + name;
    PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, base, nullptr);
    m.attr(name) = nb::borrow(type);
    return type;
}

// Raises `type(message)` with extra attributes set on the instance.
void raise_with(PyObject* type, const char* message, std::initializer_list<std::pair<const char*, nb::object>> attrs) {
    nb::object instance = nb::steal(PyObject_CallFunction(type, "s", message));
    if (!instance.is_valid())
        return;  // the call already set an error
    for (const auto& [name, value] : attrs)
        nb::setattr(instance, name, value);
    PyErr_SetObject(type, instance.ptr());
}

void raise_cuda(PyObject* type, const cuda_error& e) {
    raise_with(type, e.what(), {{"code", nb::int_(e.code())}, {"routine", nb::str(e.routine().c_str())}});
}

}  // namespace

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
            raise_cuda(types.memory, e);
        } catch (const launch_error& e) {
            raise_cuda(types.launch, e);
        } catch (const logic_error& e) {
            raise_cuda(types.logic, e);
        } catch (const runtime_error& e) {
            raise_cuda(types.runtime, e);
        } catch (const cuda_error& e) {
            raise_cuda(types.error, e);
        } catch (const type_error& e) {
            PyErr_SetString(PyExc_TypeError, e.what());
        } catch (const error& e) {
            PyErr_SetString(types.error, e.what());
        }
    });
}

}  // namespace gpukit::python
