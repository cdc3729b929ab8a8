include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/libharness/include/harness DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS ${HARNESS_LIBRARY_TARGETS} harness harness_settings harness_yaml harness_sqlite3
  EXPORT harnessTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS harness-cli harness-mcp RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/skills DESTINATION ${CMAKE_INSTALL_DATADIR}/harness)
install(FILES ${PROJECT_SOURCE_DIR}/libharness/data/ui_driver.cjs DESTINATION ${CMAKE_INSTALL_DATADIR}/harness)
install(EXPORT harnessTargets NAMESPACE harness:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/harness)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/harnessConfig.cmake.in
  ${PROJECT_BINARY_DIR}/harnessConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/harness)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/harnessConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/harnessConfig.cmake ${PROJECT_BINARY_DIR}/harnessConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/harness)
