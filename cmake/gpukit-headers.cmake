# Finds the CUDA and OpenCL headers and names them gpukit::cuda_headers and
# gpukit::opencl_headers. Headers only: the CUDA driver, NVRTC and OpenCL are loaded at run
# time (dlopen), so gpukit never links against them.
#
# One file for both sides: gpukit's own build includes it, and the installed package includes
# it at the consumer's configure time, so an install holds no header path of the build
# machine. Sets GPUKIT_HEADERS_MISSING to a message when a header is not found (the caller
# decides whether that is fatal: a build fails, find_package(gpukit) reports not found).
unset(GPUKIT_HEADERS_MISSING)

# CUDAToolkit_ROOT, nvcc on the PATH and the usual prefixes, through CMake's own search; it
# also wants the runtime library, which gpukit does not need, so a plain header search follows.
find_package(CUDAToolkit QUIET)
find_path(GPUKIT_CUDA_INCLUDE_DIR cuda.h
  HINTS ${CUDAToolkit_INCLUDE_DIRS} ENV CUDA_HOME ENV CUDA_PATH ${CUDAToolkit_ROOT}
  PATHS /usr/local/cuda
  PATH_SUFFIXES include targets/x86_64-linux/include)
if(NOT GPUKIT_CUDA_INCLUDE_DIR)
  set(GPUKIT_HEADERS_MISSING "gpukit needs the CUDA headers (cuda.h, nvrtc.h); install the CUDA "
                             "toolkit or set CUDA_HOME or CUDAToolkit_ROOT. Nothing is linked against them.")
endif()

find_path(GPUKIT_OPENCL_INCLUDE_DIR CL/cl.h
  HINTS ENV OPENCL_HOME
  PATHS /usr/include /usr/local/include ${GPUKIT_CUDA_INCLUDE_DIR})
if(NOT GPUKIT_OPENCL_INCLUDE_DIR)
  string(APPEND GPUKIT_HEADERS_MISSING " gpukit needs the OpenCL headers (CL/cl.h); "
                                       "on Debian: apt-get install opencl-headers, or set OPENCL_HOME.")
endif()

# GLOBAL: gpukit::gpukit names these targets, and a project that add_subdirectory()s gpukit
# links it from directories outside the one that created them.
if(NOT GPUKIT_HEADERS_MISSING AND NOT TARGET gpukit::cuda_headers)
  add_library(gpukit::cuda_headers INTERFACE IMPORTED GLOBAL)
  set_target_properties(gpukit::cuda_headers PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${GPUKIT_CUDA_INCLUDE_DIR}"
                        INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${GPUKIT_CUDA_INCLUDE_DIR}")
  add_library(gpukit::opencl_headers INTERFACE IMPORTED GLOBAL)
  set_target_properties(gpukit::opencl_headers PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${GPUKIT_OPENCL_INCLUDE_DIR}"
                        INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${GPUKIT_OPENCL_INCLUDE_DIR}"
                        INTERFACE_COMPILE_DEFINITIONS CL_TARGET_OPENCL_VERSION=300)
endif()
