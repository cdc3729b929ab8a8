include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Two components, both installed by a plain `cmake --install`: `runtime` is what a user of the
# programs needs (harness-cli, harness-mcp, the skills, the browser-check driver); `development`
# is the linkable library for `find_package(harness)`. `--component runtime` installs the first
# alone (a few MB, where the static libraries of a Debug build are hundreds).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/libharness/include/harness DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  COMPONENT development)
install(TARGETS ${HARNESS_LIBRARY_TARGETS} harness harness_settings harness_yaml harness_sqlite3
  EXPORT harnessTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS harness-cli harness-mcp RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/skills DESTINATION ${CMAKE_INSTALL_DATADIR}/harness COMPONENT runtime)
install(FILES ${PROJECT_SOURCE_DIR}/libharness/data/ui_driver.cjs DESTINATION ${CMAKE_INSTALL_DATADIR}/harness
  COMPONENT runtime)
install(EXPORT harnessTargets NAMESPACE harness:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/harness
  COMPONENT development)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/harnessConfig.cmake.in
  ${PROJECT_BINARY_DIR}/harnessConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/harness)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/harnessConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/harnessConfig.cmake ${PROJECT_BINARY_DIR}/harnessConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/harness COMPONENT development)
