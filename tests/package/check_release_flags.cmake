# Configures gpukit as a top-level project the ways a user would and checks the Release flags
# each gets (CMakeLists.txt): GCC's default is -O2 less the optimizations that cost compile
# time and nothing per call, Clang's plain -O2, and flags the user gives are kept as given,
# also when given to a tree already configured.
# GPUKIT_SOURCE: gpukit's source tree; WORK_DIR: a scratch directory; CXX_COMPILER: the
# compiler of the build that runs this test; CLANG: a clang++ to check too (may be empty).
function(configure_and_check name expected)
  set(tree ${WORK_DIR}/${name})
  execute_process(
    COMMAND ${CMAKE_COMMAND} -S ${GPUKIT_SOURCE} -B ${tree} -G Ninja -DGPUKIT_BUILD_TESTS=OFF -DGPUKIT_INSTALL=OFF
            -DGPUKIT_BUILD_PYTHON=OFF ${ARGN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(rc)
    message(FATAL_ERROR "release flags (${name}): configuring failed:\n${out}")
  endif()
  file(STRINGS ${tree}/CMakeCache.txt line REGEX "^CMAKE_CXX_FLAGS_RELEASE:")
  string(REGEX REPLACE "^[^=]*=" "" flags "${line}")
  if(NOT flags STREQUAL expected)
    message(FATAL_ERROR "release flags (${name}): expected '${expected}', got '${flags}'")
  endif()
  message(STATUS "release flags (${name}): ${flags}")
endfunction()

set(gcc_default
    "-O2 -fno-schedule-insns2 -fno-tree-vectorize -fno-gcse -fno-tree-pre -fno-code-hoisting -fno-ipa-cp -fno-ipa-sra -fno-ipa-bit-cp -DNDEBUG")
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CXX_COMPILER} --version OUTPUT_VARIABLE version)
if(version MATCHES "Free Software Foundation")
  configure_and_check(gcc-default "${gcc_default}" -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
  # A tree configured with the default, configured again with the user's flags.
  configure_and_check(gcc-default "-O3 -DNDEBUG" -DCMAKE_CXX_COMPILER=${CXX_COMPILER} "-DCMAKE_CXX_FLAGS_RELEASE=-O3 -DNDEBUG")
endif()
configure_and_check(user-flags "-O1" -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_CXX_FLAGS_RELEASE=-O1)
if(CLANG)
  configure_and_check(clang-default "-O2 -DNDEBUG" -DCMAKE_CXX_COMPILER=${CLANG})
endif()
