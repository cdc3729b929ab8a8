#pragma once
// `git commit --only PATHS` runs the pre-commit hook on a temporary index and commits that, but
// leaves in the real index what PATHS held before the hook ran. A formatting hook (lint-staged,
// prettier, black: fix the files, `git add` them) thus leaves every committed file staged as the
// revert of its fix ("MM" in `git status`), and a file the hook stages on its own (a build stamp)
// as a staged deletion: the user's next commit, made without the hook, undoes the hook's work in
// harness's commits. harness promises that its commits stage nothing in the shared index, so
// after a commit it sets those entries to what the commit holds.

#include <filesystem>
#include <string>
#include <vector>

namespace harness::worker {

/// Sets the index entries the commit `hash` made by `git commit --only -- PATHS` (`paths`: files or
/// directories, taken literally) left different from it to the commit's (`git reset -q hash -- PATHS`; the work tree is not
/// touched): the paths it committed that `paths` names, and those a hook added to it where
/// the index held what the commit's parent held (nobody had staged anything there). What the user
/// staged in other paths stays staged. Call with the repository lock held, right after the
/// commit. Returns the paths set, empty when none differed (the usual case) or git failed.
std::vector<std::string> align_index_with_commit(const std::filesystem::path& root, const std::string& hash,
                                                 const std::vector<std::string>& paths);

} // namespace harness::worker
