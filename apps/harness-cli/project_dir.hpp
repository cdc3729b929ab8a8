#pragma once
// The project a command works on: --project when given, else the repository the working
// directory lies in (util::find_project_root), else the working directory.

#include "harness/util/project_root.hpp"

#include <filesystem>
#include <string>

namespace harness::cli {

/// `given` is --project's value, empty when the flag was not given.
inline std::filesystem::path project_dir(const std::string& given) {
  if (!given.empty()) return given;
  return util::find_project_root(".").value_or(".");
}

} // namespace harness::cli
