#pragma once
// Whether git can read a repository's history here, and all of it. A git that refuses the
// repository (its owner is another user and safe.directory does not list it, a corrupt .git)
// fails every command with exit 128; a shallow clone (CI's default) lacks the commits beyond its
// boundary. Either way a trailer commit that is not found says nothing about the plan.

#include <expected>
#include <filesystem>
#include <string>

namespace harness::worker {

/// How much of the history the clone holds.
enum class HistoryDepth { whole, shallow };

/// `git rev-parse --is-shallow-repository` in `root`: the depth, or everything git said when it
/// refused (its reason and the fix it prints, such as `git config --global --add safe.directory`).
std::expected<HistoryDepth, std::string> history_depth(const std::filesystem::path& root);

/// What to do in a shallow clone so that the plans' commits can be read.
inline constexpr std::string_view unshallow_fix = "git fetch --unshallow, or fetch-depth: 0 in CI";

} // namespace harness::worker
