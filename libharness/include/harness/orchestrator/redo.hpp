#pragma once
// `harness-cli redo`: run a plan, or some of its tasks, again after its PLAN was fixed. A task
// with its trailer commit counts as done (that is what makes a killed run resume exactly once),
// so a fixed shell block would otherwise never run. Nothing is rewritten: the plan's SUMMARY is
// removed (the plan is not executed any more, and the verifications that covered it no longer
// hold) and one commit records a redo marker (`Redo: 01-02, Task: 2` trailers). Task commits
// older than the marker no longer count (worker::standing_tasks); they stay in history.

#include "harness/orchestrator/orchestrator.hpp"
#include "harness/spec/spec.hpp"

#include <expected>
#include <string>
#include <string_view>
#include <vector>

namespace harness::orchestrator {

/// What to run again: `01-02` (every task) or `01-02:2,3`.
struct RedoTarget {
  std::string plan;
  std::vector<int> tasks; ///< 1-based, sorted, unique; empty: every task
};

/// Parses "01-02" or "01-02:2,3"; the error says what is wrong with the text.
std::expected<RedoTarget, std::string> parse_redo_target(std::string_view text);

/// One target's outcome.
struct RedoPlan {
  std::string plan;
  std::vector<int> tasks;                         ///< as asked; empty: every task
  std::vector<std::pair<int, std::string>> undone; ///< committed tasks that will run again (task, hash)
  std::string summary;                            ///< the SUMMARY removed (relative to the project); empty: none
  /// No commit of the plan carries a `Task:` trailer (GSD executed it, before harness): with its
  /// SUMMARY gone every task runs again, whichever were asked.
  bool no_task_commits = false;
  /// The PLAN file (relative to the project) when it has changes no commit holds, as after "fix
  /// the PLAN, then redo": the next run executes it as it is, and history would hold work made
  /// from a plan no commit has (review PP F5). Said, not committed: the edit is the person's.
  std::string plan_file_uncommitted;
  /// Commits of other plans (or none) that changed the plan's files after its oldest redone
  /// commit: "plan 03-01 a379050 (wordstat/cli.py)". The tasks run on the files as they are now,
  /// that later work included, and may break it (review PP F6). At most five.
  std::vector<std::string> later_changes;
  /// Neither a SUMMARY nor a standing commit of the asked tasks: the plan runs anyway at the next
  /// orchestrate (or its tasks were marked before), so nothing was recorded for it.
  bool nothing_to_do() const { return undone.empty() && summary.empty(); }
};

struct RedoResult {
  std::string commit; ///< the marker commit; empty when no target had anything to undo
  std::vector<RedoPlan> plans;
  /// "execute:01-02 (pid 4242)": workers a killed run left running on these plans, stopped
  /// before the marker (they would have committed the old work after it).
  std::vector<std::string> stopped;
  /// Open checkpoints of these plans (a verification asked about the old work), expired: an
  /// answer to them must not approve the new work.
  std::vector<std::string> expired;
  /// STATUS.md / ROADMAP.md rewritten to say the plans are not executed any more, committed with
  /// the marker (relative to the project).
  std::vector<std::string> documents;
  /// Rewritten the same way but not committed: they held changes harness had not committed.
  std::vector<std::string> documents_uncommitted;
};

/// Checks the targets against the spec (every plan exists, every task is one of its tasks), then
/// removes the SUMMARYs, rewrites STATUS.md and ROADMAP.md's progress to match, and commits one
/// marker for all targets that have something to undo. The user's staged changes stay staged and
/// out of the commit. Workers a killed run left running on these plans are stopped first. Fails with exit_code 2 for an unknown plan or task, and 1 while
/// an orchestrate runs in the project or when git fails (a merge in progress, say: the SUMMARYs are
/// put back and git's message says why).
std::expected<RedoResult, RunError> redo(const spec::Spec& spec, const std::vector<RedoTarget>& targets,
                                         std::string_view note);

/// What a person said with a redo about `plan`, from its marker commit's message: the lines
/// between the subject and the trailers (`--note`, and the refusal the removed SUMMARY recorded,
/// "01-02 was refused by ...", this plan's only), "" when none. The plan's next worker is given it
/// (task input `person_notes`).
std::string redo_note_of(std::string_view marker_message, std::string_view plan);

/// "01-02: task 2 runs again at the next orchestrate ..." lines and the commit, for a person;
/// `spec_arg` is the spec directory as the user wrote it (for the next command to run).
std::string redo_text(const RedoResult& result, std::string_view spec_arg);
/// {"commit": ..., "plans": [{"plan", "tasks" ("all" or [2, 3]), "undone": [{"task", "commit"}],
/// "summary_removed", "nothing_to_do"}], "stopped_workers": [...], "expired_checkpoints": [...],
/// "documents_updated": [...], "documents_uncommitted": [...]}.
std::string redo_json(const RedoResult& result);

} // namespace harness::orchestrator
