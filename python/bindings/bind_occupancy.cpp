// gpukit.tools.DeviceData and OccupancyRecord.
#include "bindings.hpp"
#include "bound_function.hpp"

#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/occupancy.hpp"

#include <nanobind/stl/optional.h>

#include <nanobind/stl/string.h>

namespace gpukit::python {

using namespace nb::literals;
using cuda::device_data;
using cuda::occupancy_record;

void bind_occupancy(nb::module_& m) {
    nb::class_<device_data>(m, "DeviceData", "Limits of a device that matter when choosing launch sizes.")
        .def("__init__", [](device_data* self, std::optional<cuda::device> dev) {
            const cuda::device d = dev ? *dev : cuda::context::current_or_throw("DeviceData()").get_device();
            new (self) device_data(device_data::of(d));
        }, "dev"_a.none() = nb::none())
        .def_ro("max_threads", &device_data::max_threads)
        .def_ro("warp_size", &device_data::warp_size)
        .def_ro("warps_per_mp", &device_data::warps_per_mp)
        .def_ro("thread_blocks_per_mp", &device_data::thread_blocks_per_mp)
        .def_ro("registers", &device_data::registers)
        .def_ro("registers_per_block", &device_data::registers_per_block)
        .def_ro("shared_memory", &device_data::shared_memory)
        .def_ro("shared_memory_per_block", &device_data::shared_memory_per_block)
        .def_ro("shared_memory_per_block_optin", &device_data::shared_memory_per_block_optin)
        .def_ro("reserved_shared_memory_per_block", &device_data::reserved_shared_memory_per_block)
        .def_ro("smem_granularity", &device_data::smem_granularity)
        .def_ro("smem_alloc_granularity", &device_data::smem_alloc_granularity)
        .def("align_bytes", &device_data::align_bytes, "word_size"_a = 4)
        .def("align", &device_data::align, "bytes"_a, "word_size"_a = 4)
        .def("align_words", &device_data::align_words, "word_size"_a)
        .def("align_dtype", &device_data::align_dtype, "elements"_a, "dtype_size"_a)
        .def_static("make_valid_tex_channel_count", &device_data::make_valid_tex_channel_count, "size"_a);

    nb::class_<occupancy_record>(m, "OccupancyRecord", "How many blocks of a kernel fit on one multiprocessor.")
        .def(nb::init<const device_data&, int, std::size_t, int>(), "devdata"_a, "threads"_a, "shared_mem"_a = 0,
             "registers"_a = 0)
        .def_ro("tb_per_mp", &occupancy_record::tb_per_mp)
        .def_ro("limited_by", &occupancy_record::limited_by)
        .def_ro("warps_per_mp", &occupancy_record::warps_per_mp)
        .def_ro("occupancy", &occupancy_record::occupancy);

    m.def("max_active_blocks_per_multiprocessor", [](const bound_function& f, int block_size, std::size_t shared) {
        return cuda::max_active_blocks_per_multiprocessor(f.fn, block_size, shared);
    }, "function"_a, "block_size"_a, "dynamic_smem"_a = 0,
       "The driver's count of resident blocks per multiprocessor for this kernel.");
    m.def("max_potential_block_size", [](const bound_function& f, std::size_t shared, int limit) {
        const cuda::potential_block_size r = cuda::max_potential_block_size(f.fn, shared, limit);
        return nb::make_tuple(r.min_grid_size, r.block_size);
    }, "function"_a, "dynamic_smem"_a = 0, "block_size_limit"_a = 0,
       "(min_grid_size, block_size): the driver's best block size for this kernel.");
}

}  // namespace gpukit::python
