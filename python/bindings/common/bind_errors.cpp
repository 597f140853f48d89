// The exception tree of the seed, raised for gpukit's C++ exceptions:
// Error > MemoryError, LogicError, LaunchError, RuntimeError, CompileError; and Python's own
// TypeError for gpukit::type_error, as numpy raises for operand types it does not support.
#include "common/argument_errors.hpp"
#include "common/exception_types.hpp"
#include "common/path_args.hpp"

#include "gpukit/core/error.hpp"

#include <exception>
#include <typeinfo>

namespace gpukit::python {

PyObject* new_exception_type(nb::module_& m, const char* module_name, const char* name, PyObject* base,
                             const char* doc) {
    const std::string qualified = std::string(module_name) + "." + name;
    PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, base, nullptr);
    if (type == nullptr)
        throw nb::python_error();
    m.attr(name) = nb::borrow(type);  // and the reference made here is kept for the translators
    return type;
}

exception_tree new_exception_tree(nb::module_& m, const char* module_name, PyObject* base,
                                  const exception_tree_docs& docs) {
    exception_tree tree;
    tree.error = new_exception_type(m, module_name, "Error", base, docs.error);
    tree.memory = new_exception_type(m, module_name, "MemoryError", tree.error, docs.memory);
    tree.logic = new_exception_type(m, module_name, "LogicError", tree.error, docs.logic);
    tree.runtime = new_exception_type(m, module_name, "RuntimeError", tree.error, docs.runtime);
    return tree;
}

namespace {

// Sets `attributes` on a new `type(message)` and raises it; a failing constructor leaves its
// own error set.
void raise_instance(PyObject* type, const char* message, exception_attributes attributes,
                    const api_error* call = nullptr) {
    // message_text: a message may quote a path that is no UTF-8, which "s" would refuse.
    nb::object instance = nb::steal(PyObject_CallOneArg(type, message_text(message).ptr()));
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

namespace {

exception_tree driver_types;  // gpukit.driver.Error and the classes every backend has
PyObject* launch_type = nullptr;
PyObject* compile_type = nullptr;

}  // namespace

void bind_errors(nb::module_& m) {
    driver_types =
        new_exception_tree(m, "gpukit.driver", PyExc_Exception,
                           {.error = "Base class of every gpukit error.",
                            .memory = "An allocation failed.",
                            .logic = "The program used gpukit wrongly (a bad argument, a freed or detached object).",
                            .runtime = "The environment failed: no driver, no device, a missing file."});
    launch_type = new_exception_type(m, "gpukit.driver", "LaunchError", driver_types.error,
                                     "A kernel launch or a running kernel failed.");
    compile_type = new_exception_type(m, "gpukit.driver", "CompileError", driver_types.error,
                                      "Compiling CUDA C failed; see msg, stdout, stderr and command_line.");

    nb::register_exception_translator([](const std::exception_ptr& p, void*) {
        try {
            std::rethrow_exception(p);
        } catch (const compile_error& e) {
            raise_with(compile_type, e.what(),
                       {{"msg", message_text(e.what())},
                        {"stdout", message_text(e.stdout_text())},
                        {"stderr", message_text(e.log())},
                        {"command_line", message_text(e.command_line())}});
        } catch (const memory_error& e) {
            raise_api_error(driver_types.memory, e);
        } catch (const launch_error& e) {
            raise_api_error(launch_type, e);
        } catch (const logic_error& e) {
            raise_api_error(driver_types.logic, e);
        } catch (const runtime_error& e) {
            raise_api_error(driver_types.runtime, e);
        } catch (const cuda_error& e) {
            raise_api_error(driver_types.error, e);
        } catch (const type_error& e) {
            PyErr_SetObject(PyExc_TypeError, message_text(e.what()).ptr());
        } catch (const error& e) {
            PyErr_SetObject(driver_types.error, message_text(e.what()).ptr());
        } catch (const std::bad_cast&) {
            // A failed nb::cast: its text would be a C++ type name. The call's trampoline
            // (argument_errors.hpp) replaces this text by one naming the argument.
            PyErr_SetString(PyExc_TypeError, bad_cast_text);
        }
    });
}

}  // namespace gpukit::python
