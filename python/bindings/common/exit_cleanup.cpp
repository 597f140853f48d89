#include "common/exit_cleanup.hpp"

#include <utility>
#include <vector>

namespace gpukit::python {
namespace {

// The drops still to run; plain C++, so the vector itself may outlive the interpreter.
std::vector<std::function<void()>>& drops() {
    static std::vector<std::function<void()>> pending;
    return pending;
}

void run_drops() {
    // Taken out first: a drop may run Python code that uses a cache again (cached_object::get).
    std::vector<std::function<void()>> taken = std::exchange(drops(), {});
    for (auto& drop : taken)
        drop();
}

}  // namespace

void drop_at_exit(std::function<void()> drop) { drops().push_back(std::move(drop)); }

void register_exit_cleanup() { nb::module_::import_("atexit").attr("register")(nb::cpp_function(&run_drops)); }

nb::handle cached_object::get() {
    if (!object_) {
        object_ = make_().release().ptr();
        if (!drop_registered_) {
            drop_registered_ = true;
            drop_at_exit([this] { Py_CLEAR(object_); });
        }
    }
    return object_;
}

}  // namespace gpukit::python
