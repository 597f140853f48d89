// gpukit.tools.DeviceData and OccupancyRecord.
#include "common/bindings.hpp"
#include "cuda/bound_function.hpp"
#include "common/int_args.hpp"

#include "gpukit/cuda/context.hpp"
#include "gpukit/cuda/occupancy.hpp"

#include <nanobind/stl/optional.h>

#include <nanobind/stl/string.h>

namespace gpukit::python {

using namespace nb::literals;
using cuda::device_data;
using cuda::occupancy_record;

void bind_occupancy(nb::module_& m) {
    nb::class_<device_data>(m, "DeviceData", nb::dynamic_attr(),
                            "Limits of a device that matter when choosing launch sizes.")
        .def(
            "__init__",
            [](device_data* self, std::optional<cuda::device> dev) {
                const cuda::device d = dev ? *dev : cuda::context::current_or_throw("DeviceData()").get_device();
                new (self) device_data(device_data::of(d));
            },
            "dev"_a.none() = nb::none())
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
        .def(
            "align_bytes",
            [](const device_data& d, int_arg<std::size_t> word_size) {
                return d.align_bytes(word_size.get("align_bytes(word_size)"));
            },
            "word_size"_a.none() = 4)
        .def(
            "align",
            [](const device_data& d, int_arg<std::size_t> bytes, int_arg<std::size_t> word_size) {
                return d.align(bytes.get("align(bytes)"), word_size.get("align(word_size)"));
            },
            "bytes"_a.none(), "word_size"_a.none() = 4)
        .def(
            "align_words",
            [](const device_data& d, int_arg<std::size_t> word_size) {
                return d.align_words(word_size.get("align_words(word_size)"));
            },
            "word_size"_a.none())
        .def(
            "align_dtype",
            [](const device_data& d, int_arg<std::size_t> elements, int_arg<std::size_t> dtype_size) {
                return d.align_dtype(elements.get("align_dtype(elements)"), dtype_size.get("align_dtype(dtype_size)"));
            },
            "elements"_a.none(), "dtype_size"_a.none())
        .def_static(
            "make_valid_tex_channel_count",
            [](int_arg<int> size) {
                return device_data::make_valid_tex_channel_count(size.get("make_valid_tex_channel_count(size)"));
            },
            "size"_a.none());

    nb::class_<occupancy_record>(m, "OccupancyRecord", "How many blocks of a kernel fit on one multiprocessor.")
        .def(
            "__init__",
            [](occupancy_record* self, const device_data& data, int_arg<int> threads, int_arg<std::size_t> shared_mem,
               int_arg<int> registers) {
                new (self) occupancy_record(data, threads.get("OccupancyRecord(threads)"),
                                            shared_mem.get("OccupancyRecord(shared_mem)"),
                                            registers.get("OccupancyRecord(registers)"));
            },
            "devdata"_a, "threads"_a.none(), "shared_mem"_a.none() = 0, "registers"_a.none() = 0)
        .def_ro("tb_per_mp", &occupancy_record::tb_per_mp)
        .def_ro("limited_by", &occupancy_record::limited_by)
        .def_ro("warps_per_mp", &occupancy_record::warps_per_mp)
        .def_ro("occupancy", &occupancy_record::occupancy);

    m.def(
        "max_active_blocks_per_multiprocessor",
        [](const bound_function& f, int_arg<int> block_size, int_arg<std::size_t> shared) {
            return cuda::max_active_blocks_per_multiprocessor(
                f.fn, block_size.get("max_active_blocks_per_multiprocessor(block_size)"),
                shared.get("max_active_blocks_per_multiprocessor(dynamic_smem)"));
        },
        "function"_a, "block_size"_a.none(), "dynamic_smem"_a.none() = 0,
        "The driver's count of resident blocks per multiprocessor for this kernel.");
    m.def(
        "max_potential_block_size",
        [](const bound_function& f, int_arg<std::size_t> shared, int_arg<int> limit) -> nb::typed<nb::tuple, int, int> {
            const cuda::potential_block_size r =
                cuda::max_potential_block_size(f.fn, shared.get("max_potential_block_size(dynamic_smem)"),
                                               limit.get("max_potential_block_size(block_size_limit)"));
            return nb::make_tuple(r.min_grid_size, r.block_size);
        },
        "function"_a, "dynamic_smem"_a.none() = 0, "block_size_limit"_a.none() = 0,
        "(min_grid_size, block_size): the driver's best block size for this kernel.");
}

}  // namespace gpukit::python
