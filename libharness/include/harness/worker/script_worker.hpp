#pragma once
// The `script` worker: runs a plan's `sh`/`bash` blocks task by task in the project root, commits
// each task's changes with Plan/Task/Spec trailers, writes the SUMMARY, and reports through the
// file transport of `.orchestration/sessions/<id>/` (status.json, result.json). Deterministic;
// used by the demo, the tests, and by users whose plans are plain shell.
//
// Exactly once per task: a task whose commit (by its trailers) is already in the history is
// skipped, and before a task runs, the plan's declared files are reset to HEAD, so a retry after
// a crash neither repeats nor half-applies a task.

#include "harness/protocol/message.hpp"
#include "harness/spec/spec.hpp"

#include "harness/worker/git.hpp"
#include "harness/worker/trailers.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace harness::worker {

struct ScriptWorkerRequest {
  std::filesystem::path spec_dir;
  std::string plan_id;
  std::filesystem::path session_dir; ///< empty: no status/result files (manual runs)
  std::string session_id;
  /// Tasks already committed (index, hash), when the caller knows them (the orchestrator keeps a
  /// trailer index); otherwise the worker reads the history itself.
  std::optional<std::vector<std::pair<int, std::string>>> done_tasks;
  /// The caller knows no attempt of this plan ever ran before (HARNESS_FIRST_ATTEMPT=1): nothing
  /// can have been left behind, so the declared files are not reset to HEAD first, and a user's
  /// uncommitted edits to them are kept. Otherwise (and for manual runs) they are reset.
  bool first_attempt = false;
  std::string token{}; ///< the session's HARNESS_TOKEN, written into its status and result files
  /// The commit the caller's history reached when it made `done_tasks` (HARNESS_DONE_TASKS_AT):
  /// a worker that cannot take the list as whole (it waited for an earlier worker of the plan)
  /// reads only the commits since, not the whole history. Empty: unknown.
  std::string done_tasks_at{};
};

struct ScriptWorkerResult {
  bool ok = false;
  std::string error;
  /// The failure is the request's: no such spec directory, no such plan, or a plan that does not
  /// validate (the CLI exits 2 for these, 1 for a task that failed).
  bool bad_input = false;
  /// `forbidden`: another attempt would fail the same way and do the work again (a hook removed
  /// the trailers of a task commit); result.json carries it as `"retry": "forbidden"`.
  protocol::Retry retry = protocol::Retry::allowed;
  std::vector<std::string> commits;
  std::vector<std::string> files_touched;
  std::filesystem::path summary;
  int tasks_run = 0;
  int tasks_skipped = 0; ///< already committed by an earlier attempt
};

/// Runs the plan. Output of the blocks goes to this process's stdout/stderr (the session log).
ScriptWorkerResult run_script_worker(const ScriptWorkerRequest& req);

/// Hashes of commits in HEAD's history whose message carries `Plan: <plan_id>, Task: i/n` and a
/// `Spec:` trailer `ours` recognises (plan ids repeat across specs), oldest first, but for tasks
/// a newer redo marker names (standing_tasks). Used to skip finished tasks.
std::vector<std::pair<int, std::string>> committed_tasks(const std::filesystem::path& project_root,
                                                         const std::string& plan_id, const SpecOwner& ours);

/// committed_tasks from `before`, the standing tasks of the history up to the commit `at`, and
/// the commits made since (`at..HEAD`: one short `git log`, where committed_tasks walks the whole
/// history), a newer redo marker among them taking a task back. `spec` is the spec's name, which
/// `ours` recognises. nullopt when `at` is no commit hash, or not in HEAD's history (a rewrite):
/// read it all with committed_tasks.
std::optional<std::vector<std::pair<int, std::string>>> committed_tasks_since(
    const std::filesystem::path& project_root, const std::string& plan_id, const SpecOwner& ours,
    const std::vector<std::pair<int, std::string>>& before, const std::string& at, const std::string& spec);

/// The HARNESS_DONE_TASKS value the orchestrator passes: "1=<hash>,2=<hash>" (empty: none).
std::string format_done_tasks(const std::vector<std::pair<int, std::string>>& done);
/// Parses it back; nullopt for a malformed value (the worker then reads the history itself).
std::optional<std::vector<std::pair<int, std::string>>> parse_done_tasks(std::string_view text);

} // namespace harness::worker
