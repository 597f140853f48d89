// USE_HOST_PTR memory kept alive for as long as OpenCL uses it: what buffers and images made
// from host memory share.
#pragma once

#include <CL/cl.h>

#include <memory>

namespace gpukit::cl::detail {

// Keeps `owner` (what owns a USE_HOST_PTR object's host memory) until OpenCL destroys the
// memory object `handle`, after its last command (clSetMemObjectDestructorCallback); throws
// cl::runtime_error where the implementation cannot say when that is.
void keep_until_destroyed(cl_mem handle, std::shared_ptr<void> owner);

}  // namespace gpukit::cl::detail
