#include "harness/util/free_space.hpp"

#include <sys/statvfs.h>
#include <unistd.h>

namespace harness::util {

std::optional<FreeSpace> least_free_space(const std::vector<std::filesystem::path>& dirs) {
  std::optional<FreeSpace> least;
  for (const auto& dir : dirs)
    if (struct statvfs info {}; ::statvfs(dir.c_str(), &info) == 0 && info.f_blocks > 0) {
      // Root writes into the blocks reserved for it, so only their end is a full disk to root.
      const auto bytes = static_cast<std::uint64_t>(::geteuid() == 0 ? info.f_bfree : info.f_bavail) * info.f_frsize;
      if (!least || bytes < least->bytes) least = FreeSpace{bytes, dir};
    }
  return least;
}

} // namespace harness::util
