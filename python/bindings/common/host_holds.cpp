#include "common/host_holds.hpp"

#include "gpukit/core/error.hpp"
#include "gpukit/cuda/event.hpp"
#include "gpukit/cuda/staged_copy.hpp"

#include <mutex>
#include <utility>
#include <vector>

namespace gpukit::python {
namespace {

struct hold {
    cuda::event done;
    std::shared_ptr<void> owner;
};

struct hold_list {
    std::mutex mutex;
    std::vector<hold> holds;
};

hold_list& holds() {
    static hold_list* list = new hold_list;  // never destroyed: holds are let go at exit first
    return *list;
}

// True when the copy behind `h` is done, or its event can no longer say (its context failed
// or is gone, in which case the copy is over too).
bool finished(const hold& h) noexcept {
    try {
        return h.done.query();
    } catch (...) {
        return true;
    }
}

}  // namespace

void release_finished_holds() {
    std::vector<hold> finished_holds;  // let go of outside the lock
    {
        hold_list& list = holds();
        std::lock_guard lock(list.mutex);
        for (auto it = list.holds.begin(); it != list.holds.end();) {
            if (finished(*it)) {
                finished_holds.push_back(std::move(*it));
                it = list.holds.erase(it);
            } else {
                ++it;
            }
        }
    }
}

void hold_until_done(std::shared_ptr<void> owner, const void* host, cuda::stream_view s) {
    release_finished_holds();
    if (!cuda::is_driver_memory(host))
        return;  // pageable: the driver has finished with it
    cuda::event done = cuda::event::create(CU_EVENT_DISABLE_TIMING);
    done.record(s);
    hold_list& list = holds();
    std::lock_guard lock(list.mutex);
    list.holds.push_back({std::move(done), std::move(owner)});
}

void bind_host_holds(nb::module_& m) {
    m.def(
        "_release_all_holds",
        [] {
            std::vector<hold> all;
            {
                hold_list& list = holds();
                std::lock_guard lock(list.mutex);
                all.swap(list.holds);
            }
            {
                release_gil release;
                for (const hold& h : all) {
                    try {
                        h.done.synchronize();
                    } catch (...) {
                        // The context failed or is gone: the copy is over.
                    }
                }
            }
        },
        "Wait for the asynchronous copies whose host memory gpukit holds, then let it all go.");
    nb::module_::import_("atexit").attr("register")(m.attr("_release_all_holds"));
}

}  // namespace gpukit::python
