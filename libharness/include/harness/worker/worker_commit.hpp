#pragma once
// A commit an agent worker asks harness to make (harness_worker_commit): parallel workers share
// one repository and its index, and a worker's own `git add; git commit` collides with the
// others' and with harness's write-back (index.lock failures, "cannot lock ref 'HEAD'", one plan's
// commit sweeping up what another staged). This commit takes the repository lock harness and
// the script worker take, commits exactly the named paths, and adds the plan's trailers.

#include <expected>
#include <filesystem>
#include <string>
#include <vector>

namespace harness::worker {

/// What the worker asks for, and which session asks.
struct WorkerCommitRequest {
  std::filesystem::path spec_dir; ///< the session's spec directory (its layout gives the project root)
  std::string spec_name;          ///< the session's spec, which spec_dir must be (empty: not checked)
  std::string task_id;            ///< the session's task, "execute:01-02": only an execute task commits
  std::string message;            ///< subject (and body); `Plan:` / `Task:` / `Spec:` lines in it are replaced
  std::vector<std::string> files; ///< paths relative to the project root, or absolute inside it
  int task = 0;                   ///< 1-based task of the plan; 0: a commit of no one task (the SUMMARY)
};

/// The commit made.
struct WorkerCommit {
  std::string hash;                    ///< full
  std::vector<std::string> files;      ///< the paths it changed, relative to the project root
  std::vector<std::string> undeclared; ///< those the plan's files_modified does not cover
};

/// The path as git names it, relative to `root`, or why it is refused: empty, outside the
/// project (`..`, an absolute path elsewhere, a symbolic link leading out), inside `.git`.
/// `root` must be canonical.
std::expected<std::string, std::string> project_path(const std::filesystem::path& root, const std::string& path);

/// `message` without lines of its own that name a plan, task, spec or redo marker, then `trailers`
/// after a blank line. An empty message gets `fallback_subject`.
std::string message_with_trailers(const std::string& message, const std::string& trailers,
                                  const std::string& fallback_subject);

/// Commits the request's files under `.orchestration/git.lock` with the plan's trailers. Refuses
/// a task that is not an execute, paths outside the project, harness's state and the spec
/// directory's documents (harness commits those) but for the plan's own SUMMARY, and a task
/// number the plan does not have. Paths outside files_modified are committed and listed in
/// `undeclared` (a worker may have to touch them; its SUMMARY says why). The repository's hooks
/// run, except for a commit of the SUMMARY alone (harness's bookkeeping skips them too). Errors
/// carry git's message: a hook's refusal reaches the worker.
std::expected<WorkerCommit, std::string> commit_worker_files(const WorkerCommitRequest& req);

} // namespace harness::worker
