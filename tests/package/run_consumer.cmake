# Builds tests/package/consumer against gpukit the ways a user would (MODE):
#  find_package:     installs gpukit, moves the install to another prefix, checks that no
#                    installed file names a path of the build machine, then builds and runs the
#                    consumer through find_package(gpukit) and through pkg-config (gpukit.pc).
#  add_subdirectory: configures the consumer with gpukit as a subdirectory (its CMakeLists checks
#                    that gpukit leaves the project's settings alone) and compiles the consumer's
#                    source. The library itself is not built again: the other tests build and
#                    run it, and compiling it twice would only repeat that (minutes).
# GPUKIT_BUILD, GPUKIT_SOURCE: gpukit's build and source trees; WORK_DIR: a scratch directory;
# CUDA_INCLUDE_DIR: the CUDA headers, which a pkg-config user names themselves.
function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "consumer (${MODE}): ${what} failed")
  endif()
endfunction()

set(consumer_source ${GPUKIT_SOURCE}/tests/package/consumer)
set(consumer_build ${WORK_DIR}/${MODE})
file(REMOVE_RECURSE ${consumer_build})

if(MODE STREQUAL "add_subdirectory")
  run_step(configure ${CMAKE_COMMAND} -S ${consumer_source} -B ${consumer_build} -G Ninja
           -DCONSUMER_MODE=add_subdirectory -DGPUKIT_SOURCE=${GPUKIT_SOURCE})
  run_step("compile" ${CMAKE_COMMAND} --build ${consumer_build} --target CMakeFiles/consumer.dir/main.cpp.o)
  return()
endif()

# Install to one prefix, then move it: the consumer sees only the moved copy.
set(first_prefix ${WORK_DIR}/install-first)
set(prefix ${WORK_DIR}/install-moved)
file(REMOVE_RECURSE ${first_prefix} ${prefix})
run_step(install ${CMAKE_COMMAND} --install ${GPUKIT_BUILD} --prefix ${first_prefix})
file(RENAME ${first_prefix} ${prefix})

file(GLOB_RECURSE package_files ${prefix}/*.cmake ${prefix}/*.pc)
foreach(package_file IN LISTS package_files)
  file(READ ${package_file} text)
  foreach(machine_path IN ITEMS ${GPUKIT_BUILD} ${GPUKIT_SOURCE} ${first_prefix} ${CUDA_INCLUDE_DIR})
    string(FIND "${text}" "${machine_path}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "${package_file} names ${machine_path}: the install cannot be moved")
    endif()
  endforeach()
endforeach()

run_step(configure ${CMAKE_COMMAND} -S ${consumer_source} -B ${consumer_build}/cmake
         -DCONSUMER_MODE=find_package -DCMAKE_PREFIX_PATH=${prefix})
run_step(build ${CMAKE_COMMAND} --build ${consumer_build}/cmake)
run_step(run ${consumer_build}/cmake/consumer)
# The C++ examples build the same way. The CUDA one needs a GPU to run (scripts/gpu_check.sh
# runs it); the OpenCL one runs here, on whatever OpenCL device there is (PoCL in CI).
run_step("configure the examples" ${CMAKE_COMMAND} -S ${GPUKIT_SOURCE}/examples/cpp -B ${consumer_build}/examples
         -DCMAKE_PREFIX_PATH=${prefix})
run_step("build the examples" ${CMAKE_COMMAND} --build ${consumer_build}/examples)
run_step("run the OpenCL example" ${consumer_build}/examples/arrays_opencl)

# pkg-config, as a Makefile would use it; the install was moved, so the prefix comes from the
# .pc file's place (--define-prefix).
file(GLOB pc_file ${prefix}/lib*/pkgconfig/gpukit.pc ${prefix}/lib/*/pkgconfig/gpukit.pc)
get_filename_component(pc_dir "${pc_file}" DIRECTORY)
set(ENV{PKG_CONFIG_PATH} ${pc_dir})
execute_process(COMMAND pkg-config --define-prefix --cflags --libs gpukit OUTPUT_VARIABLE flags
                OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "consumer (pkg-config): pkg-config gpukit failed")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
execute_process(COMMAND pkg-config --define-prefix --variable=deviceincludedir gpukit OUTPUT_VARIABLE device_dir
                OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(rc OR NOT EXISTS "${device_dir}/pycuda-complex.hpp")
  message(FATAL_ERROR "consumer (pkg-config): deviceincludedir '${device_dir}' has no pycuda-complex.hpp")
endif()
get_filename_component(lib_dir "${pc_dir}" DIRECTORY)
file(MAKE_DIRECTORY ${consumer_build}/pkg-config)
run_step("build (pkg-config)" ${CXX_COMPILER} -std=c++20 ${consumer_source}/main.cpp -o ${consumer_build}/pkg-config/consumer
         -isystem ${CUDA_INCLUDE_DIR} ${flags} -Wl,-rpath,${lib_dir})
run_step("run (pkg-config)" ${consumer_build}/pkg-config/consumer)
