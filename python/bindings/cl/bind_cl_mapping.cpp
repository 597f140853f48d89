// gpukit._gpukit.cl's host views of device memory: MemoryMap, _enqueue_map_buffer and
// Buffer.get_host_array for buffers; SVM (PyOpenCL's wrapper of arrays over SVM) and SVM mapping.
// gpukit.cl.enqueue_map_buffer (Python) turns a MemoryMap into the numpy array PyOpenCL
// returns, whose base it is.
#include "cl/cl_args.hpp"
#include "cl/cl_bindings.hpp"

#include "gpukit/cl/buffer.hpp"
#include "gpukit/cl/svm.hpp"

#include <nanobind/stl/pair.h>

#include <cstdint>
#include <utility>

namespace gpukit::python {

using namespace nb::literals;

void bind_cl_mapping(nb::module_& m) {
    nb::class_<cl::mapped_region>(m, "MemoryMap", nb::dynamic_attr(),
                                  "Bytes of a Buffer mapped into host memory (enqueue_map_buffer's array's base). "
                                  "release() unmaps them; so does leaving a `with` block, or dropping the last "
                                  "array that uses them. The array must not be used after release().")
        .def(
            "release",
            [](cl::mapped_region& region, nb::handle queue, nb::handle wait_for) {
                if (!queue.is_none()) {
                    if (!nb::isinstance<cl::queue>(queue))
                        throw nb::type_error("MemoryMap.release(queue) must be a CommandQueue or None");
                    note_queue_use(nb::cast<const cl::queue&>(queue));
                }
                const cl::queue* on = queue.is_none() ? nullptr : &nb::cast<const cl::queue&>(queue);
                return region.unmap(on, wait_list(wait_for));
            },
            "queue"_a.none() = nb::none(), "wait_for"_a.none() = nb::none(),
            "Unmap (on `queue`, the mapping queue when None, after `wait_for`); returns the Event that "
            "completes when the bytes are back in the buffer.")
        .def("__enter__", [](nb::handle self) { return nb::borrow(self); })
        .def(
            "__exit__",
            [](cl::mapped_region& region, nb::args) {
                if (region.is_mapped())
                    region.unmap();
            },
            // nanobind's own signature, with the type of *args, which it does not render.
            nb::sig("def __exit__(self, *args: object) -> None"))
        .def_prop_ro("_address", [](const cl::mapped_region& r) { return reinterpret_cast<std::uintptr_t>(r.data()); })
        .def_prop_ro("_size", &cl::mapped_region::size);

    // Buffer.get_host_array is Python (numpy makes the array); bound here so that Buffer's stub has it.
    nb::handle buffer_type = nb::type<cl::buffer>();
    nb::setattr(buffer_type, "get_host_array",
                nb::cpp_function(
                    [](nb::handle self, nb::handle shape, nb::handle dtype, nb::handle order) {
                        return nb::module_::import_("gpukit.cl._host_views")
                            .attr("get_host_array")(self, shape, dtype, order);
                    },
                    nb::is_method(), nb::scope(buffer_type), nb::name("get_host_array"), "shape"_a.none(),
                    "dtype"_a.none(), "order"_a.none() = "C",
                    "The host memory of a USE_HOST_PTR buffer as a numpy array of `shape` and `dtype` (contiguous in "
                    "`order`), whose base is the buffer, as PyOpenCL's. LogicError for other buffers."));

    // PyOpenCL's SVM(mem): a numpy array over SVM (or SVM itself) as a kernel argument or copy
    // side; gpukit.cl._svm finds the SVM the array lies in, which `mem` keeps alive.
    nb::class_<cl::svm_range, cl::svm_pointer>(m, "SVM", nb::dynamic_attr(),
                                               "SVM memory (an SVMAllocation, or a numpy array over SVM, as svm_empty "
                                               "makes) as a kernel argument, a copy's side or something to map.")
        .def(
            "__init__",
            [](cl::svm_range* self, nb::handle mem) {
                nb::object found = nb::module_::import_("gpukit.cl._svm").attr("svm_owner_and_range")(mem);
                const auto& owner = nb::cast<const cl::svm_pointer&>(found[0]);
                new (self) cl::svm_range(owner, reinterpret_cast<void*>(nb::cast<std::uintptr_t>(found[1])),
                                         nb::cast<size_t>(found[2]));
                nb::setattr(nb::find(self), "mem", mem);
            },
            "mem"_a.none());

    // map, map_ro, map_rw and as_buffer are Python; bound here so that SVMPointer's stub has them.
    nb::handle svm_type = nb::type<cl::svm_pointer>();
    nb::setattr(svm_type, "map",
                nb::cpp_function(
                    [](nb::handle self, nb::handle queue, nb::handle flags, nb::handle is_blocking,
                       nb::handle wait_for) {
                        return nb::module_::import_("gpukit.cl._svm")
                            .attr("svm_map")(self, queue, flags, is_blocking, wait_for);
                    },
                    nb::is_method(), nb::scope(svm_type), nb::name("map"), "queue"_a, "flags"_a.none(),
                    "is_blocking"_a.none() = true, "wait_for"_a.none() = nb::none(),
                    "Map for host access with map_flags `flags`: an SVMMap (a context manager giving the array)."));
    for (auto [name, flags] : {std::pair{"map_ro", CL_MAP_READ}, {"map_rw", CL_MAP_READ | CL_MAP_WRITE}})
        nb::setattr(svm_type, name,
                    nb::cpp_function(
                        [flags](nb::handle self, nb::handle queue, nb::handle is_blocking, nb::handle wait_for) {
                            return nb::module_::import_("gpukit.cl._svm")
                                .attr("svm_map")(self, queue, flags, is_blocking, wait_for);
                        },
                        nb::is_method(), nb::scope(svm_type), nb::name(name), "queue"_a, "is_blocking"_a.none() = true,
                        "wait_for"_a.none() = nb::none(),
                        "map() for reading (map_ro) or reading and writing (map_rw)."));
    nb::setattr(svm_type, "as_buffer",
                nb::cpp_function(
                    [](nb::handle self, nb::handle ctx, nb::handle flags) {
                        return nb::module_::import_("gpukit.cl._svm").attr("svm_as_buffer")(self, ctx, flags);
                    },
                    nb::is_method(), nb::scope(svm_type), nb::name("as_buffer"), "ctx"_a, "flags"_a.none() = nb::none(),
                    "A Buffer over this SVM (mem_flags READ_WRITE by default)."));

    m.def(
        "_enqueue_svm_map",
        [](const cl::queue& q, nb::handle is_blocking, nb::handle flags, const cl::svm_pointer& svm,
           nb::handle wait_for) {
            note_queue_use(q);
            return cl::enqueue_svm_map(q, cl_bool(is_blocking, "SVM.map(is_blocking)"),
                                       static_cast<cl_map_flags>(cl_unsigned(flags, "SVM.map(flags)")), svm,
                                       wait_list(wait_for));
        },
        "queue"_a, "is_blocking"_a.none(), "flags"_a.none(), "svm"_a, "wait_for"_a.none());
    m.def(
        "_enqueue_svm_unmap",
        [](const cl::queue& q, const cl::svm_pointer& svm, nb::handle wait_for) {
            note_queue_use(q);
            return cl::enqueue_svm_unmap(q, svm, wait_list(wait_for));
        },
        "queue"_a, "svm"_a, "wait_for"_a.none());

    m.def(
        "_enqueue_map_buffer",
        [](const cl::queue& q, const cl::buffer& buf, nb::handle flags, nb::handle offset, nb::handle size,
           nb::handle is_blocking, nb::handle wait_for) {
            note_queue_use(q);
            const auto map_flags = static_cast<cl_map_flags>(cl_unsigned(flags, "enqueue_map_buffer(flags)"));
            return cl::mapped_region::map(q, buf, map_flags, cl_unsigned(offset, "enqueue_map_buffer(offset)"),
                                          cl_unsigned(size, "enqueue_map_buffer(size)"),
                                          cl_bool(is_blocking, "enqueue_map_buffer(is_blocking)"), wait_list(wait_for));
        },
        "queue"_a, "buf"_a, "flags"_a.none(), "offset"_a.none(), "size"_a.none(), "is_blocking"_a.none(),
        "wait_for"_a.none(), "(MemoryMap, Event) of `size` bytes of `buf` from `offset`; see enqueue_map_buffer.");
}

}  // namespace gpukit::python
