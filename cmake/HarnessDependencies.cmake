# Every dependency comes from a Debian bookworm package; nothing is downloaded at build time.
# cmake/install-deps.sh installs the packages named here.
find_package(Threads REQUIRED)
find_package(Boost 1.81 REQUIRED CONFIG COMPONENTS json filesystem)
find_package(SQLite3 REQUIRED)
find_package(fmt REQUIRED)
find_package(yaml-cpp REQUIRED)
# Debian's md4cConfig.cmake also imports md4c-html, which lives in another package; pkg-config
# finds just the parser.
find_package(PkgConfig REQUIRED)
pkg_check_modules(MD4C REQUIRED IMPORTED_TARGET GLOBAL md4c)
find_package(CLI11 REQUIRED CONFIG)
if(HARNESS_BUILD_TESTS)
  find_package(Catch2 2.13 REQUIRED CONFIG)
endif()
