// What the memory objects made from host memory share: USE_HOST_PTR memory kept alive for as
// long as OpenCL uses it, and the (count, list) form of an event wait list.
#pragma once

#include <CL/cl.h>

#include <memory>
#include <span>

namespace gpukit::cl::detail {

// Keeps `owner` (what owns a USE_HOST_PTR object's host memory) until OpenCL destroys the
// memory object `handle`, after its last command (clSetMemObjectDestructorCallback); throws
// cl::runtime_error where the implementation cannot say when that is.
void keep_until_destroyed(cl_mem handle, std::shared_ptr<void> owner);

inline cl_uint wait_count(std::span<const cl_event> wait_for) { return static_cast<cl_uint>(wait_for.size()); }
inline const cl_event* wait_list(std::span<const cl_event> wait_for) {
    return wait_for.empty() ? nullptr : wait_for.data();
}

}  // namespace gpukit::cl::detail
