// The one release path of every owner's noexcept destructor: failures become cleanup warnings.
#pragma once

#include "gpukit/cl/api.hpp"

#include <string>

namespace gpukit::cl::detail {

template <class Fn, class Handle>
void release_with(Fn opencl_api::*slot, Handle handle, const char* routine) noexcept {
    try {
        if (const cl_int status = (api().*slot)(handle); status != CL_SUCCESS)
            cleanup_warning(std::string(routine) + " failed: " + error_name(status));
    } catch (...) {
        // api() refuses only in a fork() child of the process that made the object (it
        // loaded OpenCL before any object existed): the object is the parent's to release.
    }
}

}  // namespace gpukit::cl::detail
