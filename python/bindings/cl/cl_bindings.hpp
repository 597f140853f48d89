// What the files of the gpukit._gpukit.cl binding share: bind_cl (bind_cl.cpp) binds the core
// classes, then calls the binders of the other files on the same submodule.
#pragma once

#include "cl/cl_host_memory.hpp"
#include "common/bindings.hpp"

#include "gpukit/cl/event.hpp"
#include "gpukit/cl/queue.hpp"

#include <utility>
#include <vector>

namespace gpukit::python {

// A use of `q` (a command queued, a flush): after the queue's `with` block it still works,
// with PyOpenCL's CommandQueueUsedAfterExit warning (its deprecated behaviour).
void note_queue_use(const cl::queue& q);

// "-I <gpukit's device headers>" (bind_cl.cpp): OpenCL C built from Python finds
// pyopencl-complex.h there, as PyOpenCL's builds find its headers.
const std::string& device_include_option();

// MemoryMap and enqueue_map_buffer (bind_cl_mapping.cpp); needs Buffer, CommandQueue, Event.
void bind_cl_mapping(nb::module_& cl_module);
// Images, image formats, samplers and their functions (bind_cl_images.cpp); needs the same.
void bind_cl_images(nb::module_& cl_module);
// _ArrayEngine, the array engine of gpukit.cl.array (bind_cl_array.cpp).
void bind_cl_array(nb::module_& cl_module);

// enqueue_copy's keywords beyond a linear copy's, PyOpenCL's names: those of rectangular buffer
// copies (host_origin, ...), and those of image copies (origin, pitches, offset, dest_origin;
// region and src_origin serve both).
struct copy_keywords {
    nb::handle region, buffer_origin, host_origin, buffer_pitches, host_pitches, src_origin, dst_origin, src_pitches,
        dst_pitches;
    nb::handle origin, pitches, offset, dest_origin;

    bool any_rect() const {
        for (nb::handle h : {region, buffer_origin, host_origin, buffer_pitches, host_pitches, src_origin, dst_origin,
                             src_pitches, dst_pitches})
            if (!h.is_none())
                return true;
        return false;
    }
    // The first keyword given that only image copies take, or null.
    const char* image_keyword_given() const {
        for (auto [given, name] :
             {std::pair{origin, "origin"}, {pitches, "pitches"}, {offset, "offset"}, {dest_origin, "dest_origin"}})
            if (!given.is_none())
                return name;
        return nullptr;
    }
};

// Whether an offset argument of enqueue_copy was given: anything but its default, 0.
inline bool offset_given(nb::handle offset) { return !(PyIndex_Check(offset.ptr()) && offset.equal(nb::int_(0))); }

// An enqueue_copy with an Image as dest or src (bind_cl_images.cpp): enqueued, its host memory
// exported into `hold`; the caller keeps `hold` until the event completes.
cl::event enqueue_image_copy(const cl::queue& q, nb::handle dest, nb::handle src, nb::handle dst_offset,
                             nb::handle src_offset, nb::handle byte_count, const copy_keywords& k, python_hold& hold,
                             const std::vector<cl_event>& events);

}  // namespace gpukit::python
