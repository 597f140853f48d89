// The Python objects the bindings keep between calls, dropped when the interpreter exits.
//
// A reference kept in a C++ static outlives the interpreter (a static nb::object would even
// be released after it, a crash), and so does all that it reaches (a function reaches its
// module's globals); nanobind's leak report lists the bound objects among them at exit. So
// such a cache is a cached_object, dropped by Python's atexit while the interpreter is still
// whole, and what the module owns (the enum classes) is looked up there, not kept.
#pragma once

#include "common/bindings.hpp"

#include <functional>

namespace gpukit::python {

// Runs `drop` at interpreter exit (from Python's atexit, with the GIL held). Used with the
// GIL held.
void drop_at_exit(std::function<void()> drop);

// Registers the atexit hook that runs the drops; called once when the module is initialized.
void register_exit_cleanup();

// A Python object made by `make` on first use and kept until the interpreter exits. A use
// after that (by a daemon thread while the interpreter finalizes) makes it again, and that
// one is not dropped. Used with the GIL held; meant to be a function-local static.
class cached_object {
public:
    explicit cached_object(nb::object (*make)()) noexcept : make_(make) {}
    cached_object(const cached_object&) = delete;
    cached_object& operator=(const cached_object&) = delete;

    nb::handle get();

private:
    nb::object (*make_)();
    PyObject* object_ = nullptr;  // owned, and never released by a C++ destructor
    bool drop_registered_ = false;
};

}  // namespace gpukit::python
