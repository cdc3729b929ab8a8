#pragma once
// Which project a command works on when the user is somewhere inside it: found the way git finds
// its repository, by walking up from where the command runs.

#include <filesystem>
#include <optional>

namespace harness::util {

/// The project `start` lies in: its nearest ancestor (or itself) holding a `.git` (a directory, or
/// the file of a worktree or submodule), as git finds a repository and as a spec directory's
/// project root is found; outside any repository, the nearest one holding a `.orchestration/`
/// directory (where an orchestrate ran); nullopt when neither exists. The answer keeps `start`'s
/// form: `start` itself, or `start` followed by `..` steps ("." gives "." or "../.."), so paths
/// built on it read as relative to where the user is; an absolute `start` gives an absolute path.
std::optional<std::filesystem::path> find_project_root(const std::filesystem::path& start);

} // namespace harness::util
