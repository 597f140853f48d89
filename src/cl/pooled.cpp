#include "gpukit/cl/pooled.hpp"

#include "gpukit/cl/api.hpp"

#include <string>

namespace gpukit::cl {

void pooled_svm::bind_to_queue(const queue& q) {
    check_svm_usable(*this, q.context_handle(), "PooledSVM.bind_to_queue");
    bound_queue_ = detail::retained<cl_command_queue>(q.handle());
}

void pooled_svm::release_after(cl_command_queue q) noexcept {
    if (!block_)
        return;
    if (q) {
        try {
            if (const cl_int status = api().clFinish(q); status != CL_SUCCESS)
                cleanup_warning("clFinish before returning SVM to its pool failed: " + error_name(status));
        } catch (...) {
            // api() refuses only in a fork() child of the process that made the queue,
            // which has nothing of the parent's to wait for.
        }
    }
    block_.free();
    bound_queue_ = {};
    clear();
}

}  // namespace gpukit::cl
