#pragma once
// Which project a path lies in: found the way git finds its repository, by walking up. Used for
// a spec directory's project root and by the commands that work on "the project you are in".

#include <filesystem>
#include <optional>

namespace harness::util {

/// `start` or its nearest ancestor holding a `.git` (a directory, or the file of a worktree or
/// submodule); nullopt when none does. Only `.git` counts, not `.orchestration/`: a stray state
/// directory higher up (a script worker once run by hand in /tmp) would otherwise capture every
/// directory below it. The answer keeps `start`'s form: `start` itself, or `start` followed by
/// `..` steps ("." gives "." or "../.."), so paths built on it read as relative to where the user
/// is; an absolute `start` gives an absolute path.
std::optional<std::filesystem::path> find_project_root(const std::filesystem::path& start);

} // namespace harness::util
