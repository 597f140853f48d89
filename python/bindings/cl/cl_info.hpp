// The get_info calls of the gpukit.cl bindings: the clGet*Info parameters each decodes, under
// PyOpenCL's names (the mem_info, kernel_info, program_info and kernel_work_group_info enums), and the Python
// value of each answer: an int, a flag, a str, a list, or the Context or Program it names.
#pragma once

#include "common/bindings.hpp"

#include "gpukit/cl/buffer.hpp"
#include "gpukit/cl/kernel.hpp"
#include "gpukit/cl/program.hpp"

#include <CL/cl.h>

namespace gpukit::python {

// The enum.IntFlag `name` of gpukit.cl (mem_flags, device_type, ...) with `value`.
nb::object as_flags(const char* name, cl_bitfield value);

// Adds the enums of the parameters below to `m` (gpukit._gpukit.cl).
void bind_info_enums(nb::module_& m);

// Buffer.get_info(param), Kernel.get_info(param), Kernel.get_work_group_info(param, device):
// `param` is one of the enum's members (or its int); another raises cl.LogicError listing them.
nb::object buffer_info(const cl::buffer& b, nb::handle param);
nb::object kernel_info(const cl::kernel& k, nb::handle param);
nb::object program_info(const cl::program& p, nb::handle param);
// The program_info answer the attribute `name` stands for (prg.binaries, prg.kernel_names: a
// member's name in lower case), or a null object when `name` names none.
nb::object program_info_attribute(const cl::program& p, const std::string& name);
nb::object kernel_work_group_info(const cl::kernel& k, nb::handle param, const cl::device& dev);

}  // namespace gpukit::python
