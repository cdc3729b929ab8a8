#pragma once
// Where this program lives, for the data files installed beside it (share/harness/) or, in a
// build tree, found in the source tree.

#include <filesystem>

namespace harness::cli {

inline std::filesystem::path self_dir() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::current_path() : p.parent_path();
}

} // namespace harness::cli
