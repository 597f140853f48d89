// Python memory that OpenCL uses after the call it was given to has returned: the host side of
// a non-blocking copy, the host memory of a USE_HOST_PTR buffer, the SVM of a queued command;
// and, the same way, the arrays and streams of the calls an NCCL group records until it ends.
//
// gpukit::cl keeps an owner (a std::shared_ptr<void>) of such memory for as long as OpenCL needs
// it (event::keep_until_complete, buffer::create) and may drop it on a thread of the OpenCL
// implementation; gpukit::nccl's group drops its owners with the GIL released. Releasing
// Python objects needs the GIL, and such a thread must never wait for it (whoever holds the
// GIL may be waiting for OpenCL), so a dropped owner only sets its Python objects aside; the
// next call of release_dropped_holds() (by gpukit.cl's calls, by the end of an NCCL group)
// releases them, with the GIL held.
#pragma once

#include "common/bindings.hpp"
#include "common/memory_args.hpp"

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace gpukit::python {

// The Python objects one command or buffer uses: buffer exports (PEP 3118: the object stays
// alive, and a bytearray cannot be resized while exported) and plain references. Destroy it
// only with the GIL held.
class python_hold {
public:
    // Exports the memory of `obj`: contiguous, at least one byte, writable when asked. Errors
    // name `role`: cl.LogicError, or TypeError for an object that has no memory to export or
    // whose memory holds Python objects (memory_args.hpp, get_plain_buffer).
    std::span<std::byte> export_memory(nb::handle obj, bool writable, const char* role);
    // Keeps a reference to `obj`.
    void keep(nb::handle obj) { references_.push_back(nb::borrow(obj)); }
    bool empty() const noexcept { return exports_.empty() && references_.empty(); }

private:
    std::vector<std::unique_ptr<host_buffer>> exports_;
    std::vector<nb::object> references_;
};

// `hold` as an owner for C++ code (gpukit::cl, gpukit::nccl's groups), which may drop it on
// any thread, without the GIL.
std::shared_ptr<void> share_hold(python_hold hold);

// Releases what C++ has let go of since the last call. Call with the GIL held.
void release_dropped_holds();

}  // namespace gpukit::python
