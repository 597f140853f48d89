#include "array/array_fusion.hpp"
#include "common/exit_cleanup.hpp"

#include <nanobind/stl/string.h>

#include <frameobject.h>

#include <cstdint>
#include <unordered_map>

namespace gpukit::python {

namespace {

struct site {
    PyObject* code;  // a reference is held, so the address is not reused while in the table
    int offset;
    bool operator==(const site&) const = default;
};

struct site_hash {
    std::size_t operator()(const site& s) const noexcept {
        return std::hash<const void*>{}(s.code) ^ (static_cast<std::size_t>(s.offset) * 0x9e3779b97f4a7c15ull);
    }
};

// Used with the GIL held.
std::unordered_map<site, bool, site_hash> decisions;
std::size_t analysed = 0;
bool enabled = true;
constexpr std::size_t max_decisions = 4096;

// Drops the table's references to code objects.
void forget_decisions() {
    for (auto& [key, value] : decisions)
        Py_DECREF(key.code);
    decisions.clear();
}

bool analyse(PyObject* code, int offset) {
    static cached_object function(
        []() -> nb::object { return nb::module_::import_("gpukit._array.fusion").attr("_analyse"); });
    nb::object result = nb::steal(PyObject_CallFunction(function.get().ptr(), "Oi", code, offset));
    if (!result.is_valid())
        nb::raise_python_error();
    ++analysed;
    return PyObject_IsTrue(result.ptr()) == 1;
}

// A debugger may stop between two instructions of one expression and let the user change
// an operand; sys.monitoring's DEBUGGER_ID tool (0) is where debuggers register.
bool debugger_registered() {
#if PY_VERSION_HEX >= 0x030C0000
    static cached_object get_tool(
        []() -> nb::object { return nb::module_::import_("sys").attr("monitoring").attr("get_tool"); });
    nb::object tool = nb::steal(PyObject_CallFunction(get_tool.get().ptr(), "i", 0));
    if (!tool.is_valid())
        nb::raise_python_error();
    return !tool.is_none();
#else
    return false;
#endif
}

}  // namespace

bool result_feeds_next_operator() {
    if (!enabled)
        return false;
    PyFrameObject* frame = PyEval_GetFrame();  // borrowed; the frame running the operator
    if (!frame)
        return false;
    nb::object code = nb::steal(reinterpret_cast<PyObject*>(PyFrame_GetCode(frame)));
    const site where{code.ptr(), PyFrame_GetLasti(frame)};
    bool fuse;
    if (auto found = decisions.find(where); found != decisions.end()) {
        fuse = found->second;
    } else {
        fuse = analyse(where.code, where.offset);
        if (decisions.size() >= max_decisions)
            forget_decisions();
        // The table's references go at exit; registered with the first entry.
        [[maybe_unused]] static const bool dropped_at_exit = (drop_at_exit(&forget_decisions), true);
        decisions.emplace(site{code.release().ptr(), where.offset}, fuse);
    }
    if (!fuse)
        return false;
    // Hooks that could run code between the two operators turn fusion off (checked only
    // where it would fire, so other operators never pay for it).
    const PyThreadState* state = PyThreadState_Get();
    return !state->c_tracefunc && !state->c_profilefunc && !debugger_registered();
}

void set_fusion(bool on) noexcept { enabled = on; }
bool fusion_enabled() noexcept { return enabled; }
std::size_t fusion_sites_analysed() noexcept { return analysed; }

}  // namespace gpukit::python
