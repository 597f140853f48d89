include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS gpukit EXPORT gpukit-targets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/gpukit DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT gpukit-targets NAMESPACE gpukit:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gpukit)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gpukit-config.cmake.in
  ${PROJECT_BINARY_DIR}/gpukit-config.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gpukit)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gpukit-config-version.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/gpukit-config.cmake ${PROJECT_BINARY_DIR}/gpukit-config-version.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gpukit)
