// The get_info calls of the gpukit.cl bindings: the clGet*Info parameters each decodes, under
// PyOpenCL's names (the mem_info, kernel_info, program_info and kernel_work_group_info enums), and the Python
// value of each answer: an int, a flag, a str, a list, or the Context or Program it names.
#pragma once

#include "common/bindings.hpp"

#include "gpukit/cl/buffer.hpp"
#include "gpukit/cl/image.hpp"
#include "gpukit/cl/kernel.hpp"
#include "gpukit/cl/platform.hpp"
#include "gpukit/cl/program.hpp"
#include "gpukit/cl/queue.hpp"

#include <CL/cl.h>

namespace gpukit::python {

// ImageFormat's C++ type: cl_image_format in a type of gpukit's own, since nanobind's registry
// of bound C++ types is shared by every nanobind module in the process, and PyOpenCL binds
// cl_image_format itself (binding it twice would break `import pyopencl`).
struct image_format {
    cl_image_format value{};
};

// The enum.IntFlag `name` of gpukit.cl (mem_flags, device_type, ...) with `value`.
nb::object as_flags(const char* name, cl_bitfield value);

// Adds `_info_parameters` to `m` (gpukit._gpukit.cl): for each class of parameters below
// (mem_info, device_info, ...) and of constants (channel_order, addressing_mode, ...), its
// (member name, value) pairs, of which gpukit.cl makes PyOpenCL's classes of constants.
void bind_info_enums(nb::module_& m);

// Buffer.get_info(param), Kernel.get_info(param), Kernel.get_work_group_info(param, device):
// `param` is one of the enum's members (or its int); another raises cl.LogicError listing them.
nb::object buffer_info(const cl::buffer& b, nb::handle param);
// Image.get_info (mem_info), Image.get_image_info (image_info), Sampler.get_info (sampler_info).
nb::object image_mem_info(const cl::image& img, nb::handle param);
nb::object image_info(const cl::image& img, nb::handle param);
nb::object sampler_info(const cl::sampler& s, nb::handle param);
nb::object kernel_info(const cl::kernel& k, nb::handle param);
nb::object program_info(const cl::program& p, nb::handle param);
nb::object platform_info(const cl::platform& p, nb::handle param);
nb::object device_info(const cl::device& d, nb::handle param);
nb::object context_info(const cl::context& c, nb::handle param);
nb::object queue_info(const cl::queue& q, nb::handle param);
nb::object event_info(const cl::event& e, nb::handle param);
nb::object event_profiling_info(const cl::event& e, nb::handle param);
nb::object program_build_info(const cl::program& p, const cl::device& dev, nb::handle param);
// PyOpenCL's attribute form of get_info: the answer `self.<name>` stands for (a member of the
// object's info enum in lower case: platform.host_timer_resolution, device.address_bits,
// prg.binaries), or a null object when `name` names none.
nb::object info_attribute(nb::handle self, const std::string& name);
// A class's __getattr__ of that form (device.address_bits, event.command_type, img.width):
// called only for names that are no attribute of the object; AttributeError for the others.
nb::object info_getattr(nb::handle self, const std::string& name);
nb::object kernel_work_group_info(const cl::kernel& k, nb::handle param, const cl::device& dev);

}  // namespace gpukit::python
