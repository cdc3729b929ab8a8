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
  std::filesystem::path at;      ///< the directory asked, on the fullest file system
};

/// The least free space over the file systems holding `dirs` (statvfs; a directory that cannot be
/// asked is skipped): nullopt when none could be asked.
std::optional<FreeSpace> least_free_space(const std::vector<std::filesystem::path>& dirs);

} // namespace harness::util
