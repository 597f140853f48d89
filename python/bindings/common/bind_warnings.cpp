// Warnings from the C++ core (gpukit::cleanup_warning: a release that failed in a destructor,
// a compiled kernel that could not be cached) as Python warnings of category
// gpukit.driver.GpukitWarning, so that warnings.catch_warnings, -W error and pytest see them.
//
// A thread that holds the GIL warns at once. Any other thread (a destructor run while the GIL
// is released, a thread of gpukit's own) never waits for the GIL, since it may hold a lock
// that the GIL's holder is waiting for: it queues the message, and the main thread issues it
// at its next check for pending calls (Py_AddPendingCall, which needs no GIL). From the
// interpreter's exit on, messages go to stderr as in C++. A warning names the innermost line
// outside the gpukit package (the user's call that led to it), as Python's own warnings do.
#include "common/bindings.hpp"
#include "common/exception_types.hpp"
#include "common/path_args.hpp"

#include "gpukit/core/error.hpp"

#include <nanobind/stl/string.h>

#include <cstdio>
#include <deque>
#include <mutex>
#include <string_view>
#include <string>
#include <thread>

namespace gpukit::python {
namespace {

using namespace nb::literals;

PyObject* category = nullptr;  // gpukit.driver.GpukitWarning, never freed

void print_to_stderr(const std::string& message) { std::fprintf(stderr, "gpukit warning: %s\n", message.c_str()); }

// The gpukit package's folder with a trailing separator, as its modules' code objects name
// their files; empty when it cannot be told (then warnings name the innermost frame).
const std::string& package_folder() {
    static const std::string folder = [] {
        PyObject* module = PyImport_ImportModule("gpukit");
        PyObject* file = module ? PyObject_GetAttrString(module, "__file__") : nullptr;
        std::string text;
        if (file && PyUnicode_Check(file))
            if (const char* utf8 = PyUnicode_AsUTF8(file))
                text = utf8;
        Py_XDECREF(file);
        Py_XDECREF(module);
        PyErr_Clear();
        const std::size_t slash = text.rfind('/');
        return slash == std::string::npos ? std::string() : text.substr(0, slash + 1);
    }();
    return folder;
}

// The stacklevel that names the innermost frame outside the gpukit package: 1 + the number of
// gpukit's frames on top of the stack (1 when every frame is gpukit's, or there is none).
int caller_stacklevel() {
    const std::string& folder = package_folder();
    if (folder.empty())
        return 1;
    int level = 1;
    PyFrameObject* frame = PyEval_GetFrame();  // borrowed
    Py_XINCREF(frame);
    while (frame) {
        PyCodeObject* code = PyFrame_GetCode(frame);
        const char* file = PyUnicode_AsUTF8(code->co_filename);
        Py_DECREF(code);
        if (!file) {
            PyErr_Clear();
            break;
        }
        if (std::string_view(file).substr(0, folder.size()) != folder) {
            Py_DECREF(frame);
            return level;
        }
        PyFrameObject* back = PyFrame_GetBack(frame);
        Py_DECREF(frame);
        frame = back;
        ++level;
    }
    Py_XDECREF(frame);
    return 1;
}

// Issues one warning; the GIL is held. An error already set (a destructor run while an
// exception propagates) is kept; a warning turned into an error (-W error) cannot be raised
// from a destructor, so it goes to sys.unraisablehook, which pytest reports.
void warn(const std::string& message) {
#if PY_VERSION_HEX >= 0x030C0000
    PyObject* pending = PyErr_GetRaisedException();
#else
    PyObject *pending_type, *pending_value, *pending_traceback;
    PyErr_Fetch(&pending_type, &pending_value, &pending_traceback);
#endif
    try {
        // A message may quote a path that is no UTF-8, which PyErr_WarnEx would refuse.
        if (PyErr_WarnEx(category, message_text(message).c_str(), caller_stacklevel()) < 0)
            PyErr_WriteUnraisable(nullptr);
    } catch (nb::python_error& e) {
        e.restore();
        PyErr_WriteUnraisable(nullptr);
    }
#if PY_VERSION_HEX >= 0x030C0000
    PyErr_SetRaisedException(pending);
#else
    PyErr_Restore(pending_type, pending_value, pending_traceback);
#endif
}

std::mutex queued_mutex;
std::deque<std::string> queued;  // messages from threads without the GIL, oldest first
bool delivery_pending = false;   // a pending call is scheduled and has not run yet

int deliver_queued(void*) {
    std::deque<std::string> messages;
    {
        std::lock_guard lock(queued_mutex);
        messages.swap(queued);
        delivery_pending = false;
    }
    for (const std::string& message : messages)
        warn(message);
    return 0;
}

void warn_through_python(const std::string& message) {
    if (PyGILState_Check()) {
        warn(message);
        return;
    }
    std::lock_guard lock(queued_mutex);
    queued.push_back(message);
    if (!delivery_pending) {
        delivery_pending = Py_AddPendingCall(&deliver_queued, nullptr) == 0;
        if (!delivery_pending) {  // the interpreter's queue is full: say it now, not never
            for (const std::string& m : queued)
                print_to_stderr(m);
            queued.clear();
        }
    }
}

// At exit (atexit runs before finalization): the C++ default again, and what is queued is
// printed, since the main thread may run no more Python.
void stop_warning_through_python() {
    set_cleanup_warning_hook(nullptr);
    std::lock_guard lock(queued_mutex);
    for (const std::string& message : queued)
        print_to_stderr(message);
    queued.clear();
}

}  // namespace

void bind_warnings(nb::module_& m) {
    category = new_exception_type(
        m, "gpukit.driver", "GpukitWarning", PyExc_RuntimeWarning,
        "A problem gpukit could not raise: a release that failed in a destructor, a kernel compiled but not "
        "cached. A RuntimeWarning, so warnings filters, -W error and pytest apply to it.");
    set_cleanup_warning_hook(&warn_through_python);
    nb::module_::import_("atexit").attr("register")(nb::cpp_function(&stop_warning_through_python));
    m.def(
        "_cleanup_warning",
        [](const std::string& message, bool from_other_thread) {
            if (!from_other_thread) {
                cleanup_warning(message);
                return;
            }
            nb::gil_scoped_release unlocked;
            std::thread([&message] { cleanup_warning(message); }).join();
        },
        "message"_a, "from_other_thread"_a,
        "Issues `message` as gpukit's C++ core does, from this thread or from a thread without the GIL (tests).");
}

}  // namespace gpukit::python
