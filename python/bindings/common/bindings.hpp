// One bind_<area>() per binding file; module.cpp calls them in order.
#pragma once

#include "common/release_gil.hpp"

#include <nanobind/nanobind.h>

namespace gpukit::python {

namespace nb = nanobind;

void bind_errors(nb::module_& m);
// gpukit.driver.GpukitWarning, and the C++ core's warnings routed to Python's warnings.
void bind_warnings(nb::module_& m);
void bind_constants(nb::module_& m);
void bind_device(nb::module_& m);
void bind_context(nb::module_& m);
void bind_stream(nb::module_& m);
void bind_layout(nb::module_& m);
void bind_array_kernels(nb::module_& m);
void bind_promotion(nb::module_& m);
// gpukit._gpukit._Array, GPUArray's C++ base class, and its reductions.
void bind_gpuarray(nb::module_& m);
void bind_array_reductions(nb::module_& m);
// gpuarray's module functions: take, concatenate, where, minimum, logical_and, ...
void bind_array_functions(nb::module_& m);
// gpukit.cumath's functions (bind_cumath.cpp).
void bind_cumath(nb::module_& m);
// gpukit._gpukit._ScanKernel, behind gpukit.scan.
void bind_scan(nb::module_& m);
// gpukit._gpukit._ReductionKernel, the C++ half of gpukit.reduction.ReductionKernel.
void bind_reduction_kernel(nb::module_& m);
void bind_dlpack(nb::module_& m);
void bind_occupancy(nb::module_& m);
void bind_pool(nb::module_& m);
void bind_rtc(nb::module_& m);
void bind_link(nb::module_& m);
void bind_graph(nb::module_& m);
void bind_function(nb::module_& m);
// _kernel_argument_bytes and _prepared_argument_bytes (kernel_arguments.cpp).
void bind_kernel_arguments(nb::module_& m);
void bind_module(nb::module_& m);
void bind_memory(nb::module_& m);
void bind_copy(nb::module_& m);
// gpukit._gpukit._release_all_holds, also run at interpreter exit (host_holds.hpp).
void bind_host_holds(nb::module_& m);
void bind_host_memory(nb::module_& m);
void bind_cuda_array(nb::module_& m);
void bind_structured_copy(nb::module_& m);
void bind_texture(nb::module_& m);
// gpukit.gl's classes and the memcpy overloads for mapped arrays; needs bind_cuda_array first.
void bind_graphics(nb::module_& m);
// gpukit.curandom's rand, cuRAND generators and tables; needs bind_memory first (state).
void bind_random(nb::module_& m);
// The gpukit.cl submodule; needs bind_errors first (its Error derives from gpukit.driver.Error).
void bind_cl(nb::module_& parent);
// gpukit._gpukit.cl.tools; needs bind_cl first (its classes build on Buffer and SVMPointer).
void bind_cl_tools(nb::module_& parent);
// The gpukit._gpukit.nccl submodule; needs bind_errors first (NcclError derives from Error).
void bind_nccl(nb::module_& parent);

// The Python enum class made for a constant group ("device_attribute"), for converting
// driver values back to named members.
nb::object constant_class(const char* group);

}  // namespace gpukit::python
