// Host memory that an asynchronous copy reads or writes stays alive until the copy is done,
// whatever the caller drops (PyOpenCL's "nanny events"): hold_until_done() keeps the
// caller's buffer or object, with an event recorded on the copy's stream after the copy, until
// a later call finds the event complete. Only memory the driver knows (page-locked,
// registered, managed) needs it: a copy from or to pageable memory is finished, on the host's
// side, when the call returns.
//
// Everything here runs with the GIL held (the holds own Python objects).
#pragma once

#include "common/bindings.hpp"

#include "gpukit/cuda/stream.hpp"

#include <memory>

namespace gpukit::python {

// Keeps `owner` (a host_buffer, an nb::object, ...) until the work queued on `s` so far is
// done, when `host` is memory the driver knows; drops it at once otherwise.
void hold_until_done(std::shared_ptr<void> owner, const void* host, cuda::stream_view s);

// Lets go of the holds whose copies are done (called by the copy, synchronize and exit paths).
void release_finished_holds();

}  // namespace gpukit::python
