#include "harness/util/build_info.hpp"

// build_commit() is generated on every build (cmake/HarnessBuildInfo.cmake); the release number
// changes only with CMake's project version, which libharness/CMakeLists.txt passes in.
namespace harness::util {
std::string_view release_version() { return HARNESS_RELEASE_VERSION; }
} // namespace harness::util
