// What the files of the gpukit._gpukit.cl binding share: bind_cl (bind_cl.cpp) binds the core
// classes, then calls the binders of the other files on the same submodule.
#pragma once

#include "common/bindings.hpp"

#include "gpukit/cl/queue.hpp"

namespace gpukit::python {

// A use of `q` (a command queued, a flush): after the queue's `with` block it still works,
// with PyOpenCL's CommandQueueUsedAfterExit warning (its deprecated behaviour).
void note_queue_use(const cl::queue& q);

// MemoryMap and enqueue_map_buffer (bind_cl_mapping.cpp); needs Buffer, CommandQueue, Event.
void bind_cl_mapping(nb::module_& cl_module);

}  // namespace gpukit::python
