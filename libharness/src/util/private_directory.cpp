#include "harness/util/private_directory.hpp"

#include "harness/util/atomic_file.hpp"

#include <cerrno>
#include <sys/stat.h>

namespace harness::util {

std::error_code create_private_directories(const std::filesystem::path& dir) {
  std::error_code ec;
  if (dir.empty() || std::filesystem::is_directory(dir, ec)) return {};
  if (const auto parent = dir.parent_path(); !parent.empty() && parent != dir)
    if (auto up = create_private_directories(parent)) return up;
  // mkdir with the mode, not create_directory then chmod: no moment where the directory is open
  // to others.
  if (::mkdir(dir.c_str(), 0700) == 0) return {};
  const int error = errno;
  if (error == EEXIST && std::filesystem::is_directory(dir, ec)) return {};
  return {error == EEXIST ? ENOTDIR : error, std::generic_category()};
}

std::error_code create_state_directory(const std::filesystem::path& dir) {
  if (auto ec = create_private_directories(dir)) return ec;
  std::error_code ec;
  if (!std::filesystem::exists(dir / ".gitignore", ec)) (void)write_file_atomic(dir / ".gitignore", "*\n");
  return {};
}

} // namespace harness::util
