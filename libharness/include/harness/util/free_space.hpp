#pragma once
// How much this user may still write where a run writes: its lock, state database, workers' logs,
// the spec's documents and the commits all need a little, and a full disk fails them all.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

namespace harness::util {

struct FreeSpace {
  std::uint64_t bytes = 0;       ///< bytes this user may write (root: the reserved blocks too)
  std::filesystem::path at;      ///< the directory asked, on the file system with the fewest bytes
  /// Files (inodes) this user may still create, and where: a file system out of them fails every
  /// new file however many bytes it has (review OO F5). nullopt where none reports a count.
  std::optional<std::uint64_t> files;
  std::filesystem::path files_at;
};

/// The least free space over the file systems holding `dirs` (statvfs; a directory that cannot be
/// asked is skipped), bytes and files each at its fullest: nullopt when none could be asked.
std::optional<FreeSpace> least_free_space(const std::vector<std::filesystem::path>& dirs);

} // namespace harness::util
