# Every dependency comes from a Debian bookworm package; nothing is downloaded at build time.
# cmake/install-deps.sh installs the packages named here.

# A short-lived CLI (`harness-cli status` is called from scripts and prompts) spends a good part of
# its life in the dynamic loader. Where Debian ships a static archive (Boost, yaml-cpp, sqlite3)
# everything links it; sanitizer builds keep the shared libraries, which their runtimes expect.
set(_harness_static_default ON)
if(HARNESS_SANITIZE)
  set(_harness_static_default OFF)
endif()
option(HARNESS_STATIC_DEPS "Link Boost, yaml-cpp and sqlite3 statically when their archives exist" ${_harness_static_default})

find_package(Threads REQUIRED)
if(HARNESS_STATIC_DEPS)
  set(Boost_USE_STATIC_LIBS ON)
endif()
find_package(Boost 1.81 REQUIRED CONFIG COMPONENTS json filesystem)
find_package(SQLite3 REQUIRED)
find_package(fmt REQUIRED)
find_package(yaml-cpp REQUIRED)

# harness::yaml and harness::sqlite3: the static archive when wanted and present, else the shared
# library's own target.
add_library(harness_yaml INTERFACE)
add_library(harness::yaml ALIAS harness_yaml)
add_library(harness_sqlite3 INTERFACE)
add_library(harness::sqlite3 ALIAS harness_sqlite3)
if(HARNESS_STATIC_DEPS)
  find_library(HARNESS_YAML_ARCHIVE NAMES libyaml-cpp.a)
  find_library(HARNESS_SQLITE_ARCHIVE NAMES libsqlite3.a)
endif()
if(HARNESS_STATIC_DEPS AND HARNESS_YAML_ARCHIVE)
  target_link_libraries(harness_yaml INTERFACE ${HARNESS_YAML_ARCHIVE})
else()
  target_link_libraries(harness_yaml INTERFACE yaml-cpp)
endif()
if(HARNESS_STATIC_DEPS AND HARNESS_SQLITE_ARCHIVE)
  target_include_directories(harness_sqlite3 INTERFACE ${SQLite3_INCLUDE_DIRS})
  target_link_libraries(harness_sqlite3 INTERFACE ${HARNESS_SQLITE_ARCHIVE} Threads::Threads ${CMAKE_DL_LIBS} m)
else()
  target_link_libraries(harness_sqlite3 INTERFACE SQLite::SQLite3)
endif()
# Debian's md4cConfig.cmake also imports md4c-html, which lives in another package; pkg-config
# finds just the parser.
find_package(PkgConfig REQUIRED)
pkg_check_modules(MD4C REQUIRED IMPORTED_TARGET GLOBAL md4c)
find_package(CLI11 REQUIRED CONFIG)
if(HARNESS_BUILD_TESTS)
  find_package(Catch2 2.13 REQUIRED CONFIG)
endif()
