#pragma once
// The few git operations workers and the orchestrator need, run as real `git` processes.
// Commits name their paths explicitly, under a lock file, so concurrent writers in one
// repository never commit each other's files.

#include <chrono>
#include <expected>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace harness::worker {

struct GitResult {
  int exit_code = -1;
  std::string out; ///< stdout only: what callers parse (names, hashes, `-z` lists)
  std::string err; ///< stderr: git's warnings and errors, and hooks' chatter; never parsed as output
  /// Everything git said, stderr first, for a message or to look for one of git's phrases; no
  /// line break at its end (it ends a message: review MM L9 found verify's line followed by an
  /// empty one).
  std::string messages() const;
};

/// Runs `git <args>` in `root`: every git the library starts goes through here. In the C locale
/// (LC_ALL=C, LANGUAGE unset), so that its messages read the same for every user. stdout and
/// stderr are read apart: git prints warnings on stderr and still succeeds (an fsmonitor hook
/// that cannot start watchman, "could not open directory" for a directory removed meanwhile),
/// and such a line must never become part of a file name.
GitResult run_git(const std::filesystem::path& root, std::vector<std::string> args);

/// The fields of git's `-z` output (NUL-terminated names), empty ones left out.
std::vector<std::string> nul_separated(std::string_view out);

/// run_git for a command that writes the index (add, commit, reset, checkout). Another git in the
/// repository (an editor's, or an agent's `git status`, which takes .git/index.lock for a moment)
/// makes git give up at once with "index.lock: File exists", and a commit made elsewhere while
/// ours was written fails it with "cannot lock ref 'HEAD'"; this tries again until `patience`
/// has passed. A lock left by a crashed git outlasts it: git's own message then says what to do.
GitResult run_git_writing_index(const std::filesystem::path& root, std::vector<std::string> args,
                                std::chrono::milliseconds patience = std::chrono::seconds(10));

/// One record of `git status --porcelain=v1 -z`.
struct PorcelainEntry {
  char index = ' '; ///< X: the index against HEAD ('?' untracked, '!' ignored)
  char work_tree = ' '; ///< Y: the work tree against the index
  std::string path; ///< relative to the repository root; a rename's or copy's new path
  std::string source; ///< the path a rename or copy came from; empty for any other record
};

/// The records of `git status --porcelain=v1 -z` output. A rename or copy, whichever of X and Y
/// says so (an index rename "R ", a work-tree rename of an intent-to-add entry " R"), is two
/// fields, `XY new\0old\0`; every other record one. With -z no name is quoted: a space or a
/// newline in it stays as it is.
std::vector<PorcelainEntry> porcelain_entries(std::string_view out);

/// A path that differs from HEAD.
struct GitChange {
  bool untracked = false;
  bool added = false; ///< in the index (staged or intent-to-add), not in HEAD
  std::string path; ///< relative to the repository root
  bool deleted = false; ///< gone from the work tree (deleted there, or its deletion staged)
};

/// `git status -z` as a list (untracked files listed one by one). With `globs`, only paths that
/// match one of them are looked at (git walks just those parts of the tree). A rename is its two
/// paths, as git shows it without rename detection: the new one added, the old one deleted; a
/// copy is its new path only (the source is unchanged, or listed on its own).
std::vector<GitChange> changed_paths(const std::filesystem::path& root, const std::vector<std::string>& globs = {});

/// The files among those `globs` (files_modified entries) match that git ignores (a .gitignore,
/// .git/info/exclude or core.excludesFile rule), one by one; empty when none, or git fails. Such a
/// file is never committed: `changed_paths` does not list it.
std::vector<std::string> ignored_paths(const std::filesystem::path& root, const std::vector<std::string>& globs);

/// The rule git ignores `path` by, as "'*.txt' in /home/u/.config/git/ignore"; empty when none.
std::string ignore_rule(const std::filesystem::path& root, const std::string& path);

/// A `files_modified` entry as a git pathspec: a wildcard pattern gets glob magic ("src/**"
/// matches below src/ at any depth); a plain path stays plain, which also matches everything
/// below it when it names a directory (one starting with ':', which git reads as magic, is
/// given as a literal pathspec). A pathspec with its magic already (`:(literal)...`) stays.
std::string glob_pathspec(const std::string& glob);

/// `path` as a git pathspec that means that path only (no wildcards): ":(literal)path".
std::string literal_pathspec(const std::string& path);

/// Whether a commit runs the repository's hooks (pre-commit, commit-msg): a task's work passes
/// the project's own gate (secret scanners, linters); harness's documents (SUMMARY, STATUS,
/// VERIFICATION, ROADMAP progress) are its bookkeeping and skip them.
enum class CommitHooks { run, skip };

/// Commits exactly `paths` (file or directory paths, never patterns; deletions too) as they are in
/// the work tree, under `lock_file`. Nothing is staged in the shared index on the way (`commit
/// --only`; new files become intent-to-add entries, which a bare `git commit` skips): what others
/// staged stays out of this commit, and a bare commit someone runs meanwhile takes nothing of it.
/// Returns the new commit hash, empty when nothing changed, or git's complaint (a hook's refusal
/// included; the new files are then untracked again). `untracked`: which of `paths` are new files,
/// when the caller has just read every one of them from changed_paths (its `untracked` ones);
/// nullopt: git is asked (`ls-files --others`), as it must be for a path nobody looked at.
std::expected<std::string, std::string> commit_paths(const std::filesystem::path& root,
                                                     const std::filesystem::path& lock_file,
                                                     const std::vector<std::string>& paths, const std::string& message,
                                                     CommitHooks hooks = CommitHooks::skip,
                                                     const std::optional<std::vector<std::string>>& untracked = std::nullopt);

/// A file `commit_marker` writes before it commits: `path` relative to the repository root.
struct FileWrite {
  std::string path;
  std::string text;
};

/// Deletes `remove` (paths relative to `root`; missing ones are fine), writes `write`, and commits
/// `message` with the deletions and new contents of those git tracks, even when there are none (an
/// empty commit): a record in history, such as a redo marker. Changes the user staged stay staged
/// and out of the commit. Hooks are skipped (harness's bookkeeping). Returns the new commit hash,
/// or git's complaint (the removed and rewritten files are then as they were).
std::expected<std::string, std::string> commit_marker(const std::filesystem::path& root,
                                                      const std::filesystem::path& lock_file,
                                                      const std::vector<std::string>& remove, const std::string& message,
                                                      const std::vector<FileWrite>& write = {});

/// What `git commit` does after each commit unless told not to: `git maintenance run --auto`
/// (gc when loose objects pile up). Our commits skip it; a run calls this once at its end.
GitResult run_auto_maintenance(const std::filesystem::path& root, const std::filesystem::path& lock_file);

/// Runs `fn` while holding the repository lock `lock_file` (for index writes such as checkout).
void with_git_lock(const std::filesystem::path& lock_file, const std::function<void()>& fn);

/// The paths the commits `hashes` changed, in order, a rename as its two paths (one `git show`;
/// empty when git fails or no hash is given).
std::vector<std::string> files_of_commits(const std::filesystem::path& root, const std::vector<std::string>& hashes);

} // namespace harness::worker
