#pragma once
// The few git operations workers and the orchestrator need, run as real `git` processes.
// Commits name their paths explicitly, under a lock file, so concurrent writers in one
// repository never commit each other's files.

#include <expected>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace harness::worker {

struct GitResult {
  int exit_code = -1;
  std::string out; ///< stdout and stderr
};

/// Runs `git <args>` in `root`.
GitResult run_git(const std::filesystem::path& root, std::vector<std::string> args);

/// A path that differs from HEAD.
struct GitChange {
  bool untracked = false;
  std::string path; ///< relative to the repository root
};

/// `git status -z` as a list (untracked files listed one by one).
std::vector<GitChange> changed_paths(const std::filesystem::path& root);

/// Stages and commits exactly `paths` (which may include deletions) under `lock_file`.
/// Returns the new commit hash, empty when nothing changed, or git's complaint.
std::expected<std::string, std::string> commit_paths(const std::filesystem::path& root,
                                                     const std::filesystem::path& lock_file,
                                                     const std::vector<std::string>& paths, const std::string& message);

/// Runs `fn` while holding the repository lock `lock_file` (for index writes such as checkout).
void with_git_lock(const std::filesystem::path& lock_file, const std::function<void()>& fn);

/// The newest commit whose message contains `needle`, or empty.
std::string find_commit(const std::filesystem::path& root, const std::string& needle);

} // namespace harness::worker
