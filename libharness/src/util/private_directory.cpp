#include "harness/util/private_directory.hpp"

#include "harness/util/atomic_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <vector>
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

std::string blocking_part(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::vector<fs::path> parts; // from the root down: the first part in the way is the one to name
  for (auto part = dir; !part.empty() && part != part.parent_path(); part = part.parent_path()) parts.push_back(part);
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    std::error_code ec;
    const auto link = fs::symlink_status(*it, ec);
    if (!fs::exists(link)) return {}; // missing: it can be made
    if (fs::is_directory(*it, ec)) continue;
    if (fs::is_symlink(link) && !fs::exists(*it, ec))
      return fmt::format("{} is a symbolic link to {}, which does not exist", it->string(), fs::read_symlink(*it, ec).string());
    return it->string() + " is not a directory";
  }
  return {};
}

} // namespace harness::util
