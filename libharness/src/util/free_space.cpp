#include "harness/util/free_space.hpp"

#include <sys/statvfs.h>
#include <unistd.h>

namespace harness::util {

std::optional<FreeSpace> least_free_space(const std::vector<std::filesystem::path>& dirs) {
  std::optional<FreeSpace> least;
  for (const auto& dir : dirs)
    if (struct statvfs info {}; ::statvfs(dir.c_str(), &info) == 0 && info.f_blocks > 0) {
      // Root writes into the blocks reserved for it, so only their end is a full disk to root.
      const bool root = ::geteuid() == 0;
      const auto bytes = static_cast<std::uint64_t>(root ? info.f_bfree : info.f_bavail) * info.f_frsize;
      if (!least) least = FreeSpace{bytes, dir, std::nullopt, {}};
      else if (bytes < least->bytes) least->bytes = bytes, least->at = dir;
      // f_files 0: the file system keeps no count (btrfs, some FUSE): nothing to run out of.
      if (const auto files = static_cast<std::uint64_t>(root ? info.f_ffree : info.f_favail);
          info.f_files > 0 && (!least->files || files < *least->files))
        least->files = files, least->files_at = dir;
    }
  return least;
}

} // namespace harness::util
