# Headers only: the CUDA driver, NVRTC and OpenCL are loaded at run time (dlopen), so we
# need their headers to build and never link against them.
find_package(Threads REQUIRED)

find_path(GPUKIT_CUDA_INCLUDE_DIR cuda.h
  HINTS ENV CUDA_HOME ENV CUDA_PATH ${CUDAToolkit_ROOT}
  PATHS /usr/local/cuda /usr/local/cuda-13.0 /usr/local/cuda-12
  PATH_SUFFIXES include targets/x86_64-linux/include)
if(NOT GPUKIT_CUDA_INCLUDE_DIR)
  message(FATAL_ERROR "gpukit needs the CUDA headers (cuda.h, nvrtc.h) to build; "
                      "install the CUDA toolkit or set CUDA_HOME. Nothing is linked against them.")
endif()

find_path(GPUKIT_OPENCL_INCLUDE_DIR CL/cl.h
  HINTS ENV OPENCL_HOME
  PATHS /usr/include /usr/local/include ${GPUKIT_CUDA_INCLUDE_DIR})
if(NOT GPUKIT_OPENCL_INCLUDE_DIR)
  message(FATAL_ERROR "gpukit needs the OpenCL headers (CL/cl.h) to build; "
                      "on Debian: apt-get install opencl-headers (make deps does this).")
endif()
message(STATUS "gpukit: CUDA headers in ${GPUKIT_CUDA_INCLUDE_DIR}, OpenCL headers in ${GPUKIT_OPENCL_INCLUDE_DIR}")
