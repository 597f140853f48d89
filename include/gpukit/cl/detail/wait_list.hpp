// The (count, list) form in which enqueue calls take an event wait list.
#pragma once

#include <CL/cl.h>

#include <span>

namespace gpukit::cl::detail {

inline cl_uint wait_count(std::span<const cl_event> wait_for) { return static_cast<cl_uint>(wait_for.size()); }
inline const cl_event* wait_list(std::span<const cl_event> wait_for) {
    return wait_for.empty() ? nullptr : wait_for.data();
}

}  // namespace gpukit::cl::detail
