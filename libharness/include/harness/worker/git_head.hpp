#pragma once
// What HEAD names, read from the git directory's HEAD file, and the commit it stands on, read from
// the branch's ref: a run looks at both often (to notice a branch switched or rewound under it),
// so no git process is started for them.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace harness::worker {

/// Where a repository's branches (refs/heads, packed-refs) are: `git_dir` itself, or the directory
/// a linked worktree's git directory names in its `commondir` file (the main `.git`). HEAD and the
/// index are the worktree's own, in `git_dir`.
std::filesystem::path common_dir(const std::filesystem::path& git_dir);

/// A full object name as git writes it: 40 lowercase hex digits (SHA-1) or 64 (SHA-256). Such a
/// text is safe as a git argument (it cannot be read as an option).
bool is_object_name(std::string_view text);

/// HEAD: a branch, or a commit when detached.
struct GitHead {
  std::string branch; ///< "main" (without refs/heads/); empty when HEAD is detached
  std::string commit; ///< the commit a detached HEAD names; empty on a branch
  bool operator==(const GitHead&) const = default;
};

/// The content of a HEAD file ("ref: refs/heads/main", or a commit hash when detached); nullopt
/// for anything else (a half-written file).
std::optional<GitHead> parse_head(std::string_view text);

/// `<git_dir>/HEAD` (a worktree's own git directory holds its own HEAD); nullopt when it cannot be
/// read or parsed.
std::optional<GitHead> read_head(const std::filesystem::path& git_dir);

/// The commit HEAD stands on, from files too: a detached HEAD's own, else its branch's ref (a loose
/// ref in the common git directory, which a linked worktree's `commondir` names, else its line in
/// packed-refs). nullopt when it cannot be read that way: a branch without commits yet, or refs
/// git keeps in another form (reftable).
std::optional<std::string> read_head_commit(const std::filesystem::path& git_dir, const GitHead& head);

/// "main", or "a detached HEAD (at 1a2b3c4d5e)": for messages.
std::string describe(const GitHead& head);

} // namespace harness::worker
