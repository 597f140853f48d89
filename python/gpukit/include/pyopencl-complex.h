// PyOpenCL's complex header name for OpenCL C programs: gpukit's complex numbers
// (gpukit/opencl_complex.h says what it declares). gpukit.cl's Program.build puts this
// directory on the include path, as PyOpenCL does with its own.
#include "gpukit/opencl_complex.h"
