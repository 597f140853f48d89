# `cmake --install`: the library, its headers, a CMake package (find_package(gpukit)) and a
# pkg-config file (gpukit.pc). Every installed file locates the others relative to itself and
# finds the CUDA and OpenCL headers on the consumer's machine, so the install can be moved.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(GPUKIT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/gpukit)
install(TARGETS gpukit EXPORT gpukit-targets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/gpukit DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The device headers kernels include (pycuda-complex.hpp, gpukit/helpers.cuh, ...;
# docs/device-headers.md): kernel code, not host code, so beside the data rather than in the
# include directory. The package's GPUKIT_DEVICE_INCLUDE_DIR and pkg-config's
# deviceincludedir name the folder, for a compile's include directories.
set(GPUKIT_DEVICE_INCLUDE_INSTALL_DIR ${CMAKE_INSTALL_DATADIR}/gpukit/device-include)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/gpukit/include/ DESTINATION ${GPUKIT_DEVICE_INCLUDE_INSTALL_DIR})
install(EXPORT gpukit-targets NAMESPACE gpukit:: DESTINATION ${GPUKIT_CMAKE_DIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gpukit-config.cmake.in
  ${PROJECT_BINARY_DIR}/gpukit-config.cmake
  INSTALL_DESTINATION ${GPUKIT_CMAKE_DIR}
  PATH_VARS GPUKIT_DEVICE_INCLUDE_INSTALL_DIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gpukit-config-version.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/gpukit-config.cmake ${PROJECT_BINARY_DIR}/gpukit-config-version.cmake
              ${PROJECT_SOURCE_DIR}/cmake/gpukit-headers.cmake
  DESTINATION ${GPUKIT_CMAKE_DIR})

# pkg-config: the install prefix, written out, so the flags read as plain paths; an install
# moved elsewhere is found with `pkg-config --define-prefix`, which takes the prefix from the
# .pc file's own place. The CUDA headers are the user's to add (docs/building.md).
set(GPUKIT_PKGCONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
configure_file(${PROJECT_SOURCE_DIR}/cmake/gpukit.pc.in ${PROJECT_BINARY_DIR}/gpukit.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/gpukit.pc DESTINATION ${GPUKIT_PKGCONFIG_DIR})
