// Messages for calls whose arguments the bindings could not convert.
//
// When no overload of a bound function takes the arguments it was given, nanobind raises
// "f(): incompatible function arguments", followed by its signatures rendered with the
// module's internal names; the message names no argument and says nothing of why. And a
// failed nb::cast in a function body is a std::bad_cast, whose text is a C++ type name. The
// commonest cause of both is an object made with `Class.__new__(Class)` and never
// initialised, which nanobind refuses wherever it is passed.
//
// Rather than give every one of the module's functions a check of its own, the module's
// functions are wrapped once, after they are all defined: each function's vector call goes
// through a trampoline that calls nanobind's own and, only when that fails with one of those
// two errors, asks gpukit._errors.arguments.explain() for a message naming the argument,
// what it must be and what it was. A call that succeeds pays one direct call more.
#pragma once

#include "common/bindings.hpp"

namespace gpukit::python {

// The TypeError text that the exception translator gives a std::bad_cast (bind_errors.cpp);
// the trampoline replaces it with explain()'s message.
inline constexpr const char* bad_cast_text = "an argument, or an item of one, is not of a type this call takes";

// For the buffer protocol slots of bound classes (which no trampoline sees): when `self` was
// made by __new__ and never initialised, sets BufferError saying so (in explain()'s words),
// clears view->obj and returns true.
bool refuse_uninitialised_buffer(PyObject* self, Py_buffer* view);

// Routes the failures of every function, method, constructor and property of `m`, its
// submodules and its classes through explain(); called once, after everything is bound.
// Also defines `_uninitialised(obj)`, which explain() asks.
void explain_argument_errors(nb::module_& m);

}  // namespace gpukit::python
