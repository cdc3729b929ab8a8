#pragma once
// Directories only their owner may enter: harness's state (`.orchestration/`) holds every report,
// workers' logs and transcripts, and each worker's HARNESS_TOKEN, which a user's umask (022)
// would leave readable to every local user.

#include <filesystem>
#include <string>
#include <system_error>

namespace harness::util {

/// Creates `dir` and the missing directories above it, each new one with mode 0700 (less if the
/// umask takes more). A directory that exists keeps its mode: one the user made, or a state
/// directory of an older harness, is not changed behind their back. Another process creating the
/// same directory meanwhile is no error. Returns the error of the first directory that could
/// not be made (ENOTDIR when a file stands in the way), else a cleared code.
std::error_code create_private_directories(const std::filesystem::path& dir);

/// create_private_directories, then a `.gitignore` of `*` in `dir` unless one is there: harness's
/// state never shows in `git status`, also where a user made .orchestration/ for its config.yaml
/// and a command other than orchestrate wrote there first (review II F10: prune).
std::error_code create_state_directory(const std::filesystem::path& dir);

/// Why `dir` cannot be made because a part of its path stands in the way, naming that part: "X
/// is not a directory", or "X is a symbolic link to T, which does not exist"; empty when no part
/// does (review OO F9: a dangling .orchestration link read as "No such file or directory").
std::string blocking_part(const std::filesystem::path& dir);

} // namespace harness::util
