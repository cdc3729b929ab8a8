#pragma once
// Which build this is. The release number alone (CMake's project version) did not tell two builds
// apart: a person reporting a problem, or upgrading a project in the middle of a run, needs the
// commit (review EE F8).

#include <string_view>

namespace harness::util {

/// The commit the build was made from, as `git describe --always --dirty` names it ("88d91c9abcde",
/// "88d91c9abcde-dirty" with uncommitted changes; never a tag's name); where the sources are not
/// a git checkout of their own, CMake's HARNESS_BUILD_COMMIT, or "unknown".
std::string_view build_commit();

/// The release number, CMake's project version ("0.1.0").
std::string_view release_version();

} // namespace harness::util
