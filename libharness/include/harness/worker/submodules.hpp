#pragma once
// A repository's git submodules: other repositories inside its work tree, whose files no commit
// of this one can hold (`git add` of a path inside one answers "pathspec did not match").
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace harness::worker {

/// The submodules of the repository at `root`, project-relative: the paths .gitmodules names that
/// are gitlinks (mode 160000) in the index. Empty when there is no .gitmodules (no git process
/// runs then) or git cannot read it.
std::vector<std::string> submodule_paths(const std::filesystem::path& root);

/// The submodule of `submodules` that `path` (project-relative) lies inside, or nullopt. The
/// submodule's own path is not inside it: it is this repository's gitlink, which a commit can move.
std::optional<std::string> submodule_holding(const std::vector<std::string>& submodules, std::string_view path);

} // namespace harness::worker
