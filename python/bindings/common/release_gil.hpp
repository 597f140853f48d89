// Releasing the GIL around a blocking call in a way that survives the process exiting
// meanwhile. The bindings use release_gil (or nb::call_guard<release_gil>()) wherever they
// would use nb::gil_scoped_release.
//
// Daemon threads may be inside such a call when the main thread ends the program; CPython
// does not wait for them. Two things can then go wrong, and release_gil.cpp prevents both:
//
// 1. The call returns while the interpreter finalizes. On Python 3.11 to 3.13 a thread that
//    asks for the GIL after finalization has begun is ended with pthread_exit(), which on
//    glibc unwinds its stack with a "forced unwind". Starting inside a destructor (noexcept),
//    that unwind ends in std::terminate: "terminate called without an active exception",
//    SIGABRT. Letting it through would only move the abort to nanobind's dispatcher, whose
//    catch (...) does not rethrow (glibc aborts a forced unwind that is not rethrown). So
//    ~release_gil catches it and parks the thread until the process ends, which is what
//    Python 3.14 does itself for such threads.
//
// 2. The call is still running when exit() runs the libraries' exit handlers and static
//    destructors: NVRTC unloads its builtins, the CUDA driver tears its state down, under
//    the running call (a segfault). So gpukit counts the calls in progress, and when any
//    remain at exit it ends the process there with the status the program chose, after
//    flushing C stdio, instead of running those handlers under the calls' feet.
#pragma once

#include <Python.h>

namespace gpukit::python {

class release_gil {
public:
    release_gil() noexcept;
    ~release_gil();
    release_gil(const release_gil&) = delete;
    release_gil& operator=(const release_gil&) = delete;

private:
    PyThreadState* state_;
};

// Arranges point 2 above; called once when the extension module is initialized.
void guard_process_exit();

}  // namespace gpukit::python
