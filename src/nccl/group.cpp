#include "gpukit/nccl/group.hpp"

#include "gpukit/cuda/api.hpp"
#include "gpukit/nccl/error.hpp"

namespace gpukit::nccl {
namespace {

// ncclGroupEnd, with the calling thread's current context put back afterwards: NCCL sets
// each grouped communicator's device with the CUDA runtime, then the device it found,
// whose primary context then replaces any other context that was current.
result end_group() {
    CUcontext current = nullptr;
    GPUKIT_CU(cuCtxGetCurrent, &current);
    const result code = api().ncclGroupEnd();
    GPUKIT_CU(cuCtxSetCurrent, current);
    return code;
}

}  // namespace

group::group() { check(api().ncclGroupStart(), "ncclGroupStart"); }

group::~group() {
    if (!open_)
        return;
    open_ = false;
    try {
        if (const result code = end_group(); code != result::success)
            cleanup_warning("ncclGroupEnd failed while leaving a group early: " + result_name(code));
    } catch (...) {
    }
}

void group::end() {
    if (!open_)
        throw logic_error("this NCCL group has ended already");
    open_ = false;
    check(end_group(), "ncclGroupEnd");
}

}  // namespace gpukit::nccl
