#pragma once
// Writing results back into the spec directory: the plan-level verification mark in a SUMMARY,
// STATUS.md, ROADMAP.md's frontmatter (position, progress, velocity; in place, other bytes kept),
// and execution/commits.log. Every file is written atomically. Which of these files the next
// write-back commit takes (only the orchestrator's own, kept across a killed run).

#include "harness/graph/progress.hpp"
#include "harness/orchestrator/run_event.hpp"
#include "harness/spec/spec.hpp"
#include "harness/worker/git.hpp"

#include <expected>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace harness::orchestrator {

/// Sets `verification: <status>` in the SUMMARY's frontmatter, and with `approval` (a person
/// approved the plan at its checkpoint) `approved_by`, `approved_at` and `approval_note`: the
/// sign-off is then in the project's history, not only in the run's ignored state.
std::expected<void, std::string> mark_summary_verification(const std::filesystem::path& summary, std::string_view status,
                                                           const std::optional<spec::HumanAnswer>& approval = {});

/// Records a person's refusal at the plan's verification checkpoint in its SUMMARY
/// (`refused_by`, `refused_at`, `refusal_note`): it lasts beyond the run, so a later run with
/// `--yes` does not approve the work the person refused, and the next question names it.
std::expected<void, std::string> record_summary_refusal(const std::filesystem::path& summary, const spec::HumanAnswer& refusal);

/// Sets `status: failed` in the SUMMARY a failed execute attempt left (a frontmatter is added to
/// one without): whatever the worker wrote there, the attempt did not succeed, so the SUMMARY is
/// no proof the plan was executed. The worker's text stays for a person to read. False when it
/// already said `status: failed`.
std::expected<bool, std::string> mark_summary_failed(const std::filesystem::path& summary);

/// STATUS.md: frontmatter for tools (run state, the tasks this run blocked, which `status` reads
/// back), then Markdown for people: progress per phase and plan, ready work, blockers.
std::string render_status_md(const graph::Progress& progress, std::string_view run_state,
                             const std::vector<spec::BlockedTask>& blocked);

/// A document of the user's as update_roadmap or update_requirements found it and as it left it
/// (equal when nothing changed; both empty without the document).
struct DocumentWrite {
  std::string before;
  std::string after;
  std::string write_error; ///< the progress was computed but could not be written: why (the file holds `before`)
};

/// ROADMAP.md's `text` with the progress written in, as update_roadmap writes it; the error is
/// the frontmatter's.
std::expected<std::string, std::string> roadmap_with_progress(const spec::Spec& spec, const std::string& text,
                                                              const graph::Progress& progress, double total_minutes,
                                                              bool running);

/// Updates ROADMAP.md's frontmatter from the progress (`total_minutes` of execution, every run's,
/// as the velocity's total; a roadmap without frontmatter gets none) and ticks its body's plan and
/// phase checkboxes and GSD's Progress table (tick_roadmap, dated today in UTC). The error: the file could not be read or its frontmatter not
/// updated; a failed write is DocumentWrite::write_error.
std::expected<DocumentWrite, std::string> update_roadmap(const spec::Spec& spec, const graph::Progress& progress,
                                                        double total_minutes, bool running);

/// Which requirements the plans meet: each id some plan names in `requirements:`, true when every
/// plan naming it is verified.
std::map<std::string, bool, std::less<>> requirements_met(const spec::Spec& spec, const graph::Progress& progress);

/// Marks REQUIREMENTS.md's checklist and traceability table as requirements_met says
/// (spec::tick_requirements). The error: the file could not be read; no file is nothing to do.
std::expected<DocumentWrite, std::string> update_requirements(const spec::Spec& spec, const graph::Progress& progress);

/// The execution minutes ROADMAP.md's velocity holds (0 without a roadmap or the key): what a run
/// adds its own to. Read once when the run starts, since the run rewrites that value.
double roadmap_minutes(const spec::Spec& spec);

/// Appends lines to execution/commits.log (created if absent).
std::expected<void, std::string> append_commits_log(const std::filesystem::path& log, const std::vector<std::string>& lines);

/// commits.log to write back when its text `now` no longer begins with `known`, what the run read
/// and appended (someone removed or cut the file): `known`, then the lines of `now` it lacks.
/// nullopt while nothing of `known` is lost.
std::optional<std::string> whole_commits_log(std::string_view known, std::string_view now);

/// The commits.log lines missing for `commits` (hash, plan): a run killed between a worker's
/// exit and its log line leaves them out, and a retry reports its predecessor's commits again.
/// Returns "<hash> <plan> <session>" for each hash the log does not mention yet, in order.
std::vector<std::string> missing_commit_lines(std::string_view existing_log,
                                              const std::vector<std::pair<std::string, std::string>>& commits,
                                              std::string_view session);

/// The store's key/value entry listing the files the orchestrator of `spec_name` wrote and has not
/// committed yet: a run killed between a write and its commit leaves them for the next run.
std::string uncommitted_writes_key(std::string_view spec_name);
/// The store's key/value entry listing the plans of `spec_name` whose executor asked a person
/// something (spec::needs_approval): a run killed before such a plan is verified leaves it for the
/// next, which must not ask for the approval the executor's question stood for. `redo` drops a plan
/// from it: the question was about its earlier work. Its value is encoded as below.
std::string executor_asked_key(std::string_view spec_name);
/// That entry's value: a JSON array of paths relative to the project root.
std::string encode_paths(const std::set<std::string>& paths);
/// The paths of such a value; an unreadable one (edited by hand) reads as none.
std::set<std::string> decode_paths(std::string_view json);

/// The first store schema whose every build keeps the list above. An older harness kept none and
/// committed every change under the spec directory at its next run instead: what its killed run
/// wrote is listed nowhere in a store upgraded from before this version (store::upgraded_from_key),
/// nor in the store a harness that kept none (only session directories) is followed by.
inline constexpr int first_schema_recording_writes = 6;

/// The store's key/value entry naming the specs whose run took over what an older harness left
/// unlisted (a JSON array of spec names): taken over once, not at every run.
std::string unrecorded_writes_taken_key();

/// The documents the orchestrator of `spec` writes, relative to the project root: STATUS.md,
/// ROADMAP.md, execution/commits.log, each plan's SUMMARY (the verification mark), each phase's
/// VERIFICATION and the final one.
std::vector<std::string> orchestrator_documents(const spec::Spec& spec);

/// Of the `changed` paths, the orchestrator documents an older harness's killed run may have
/// written and not committed, for the next run to commit as if they were listed. A SUMMARY not
/// in HEAD is not among them: a worker wrote it (commit_orphan_summaries commits it with its
/// trailers, or the plan runs again). Nor is a user's edit to SPEC.md or a PLAN.
std::set<std::string> unrecorded_writes(const spec::Spec& spec, const std::vector<worker::GitChange>& changed);

/// What a write-back commits: of the `changed` paths, those the orchestrator wrote (`own`), but
/// not those a live worker is writing (`live`: a SUMMARY it will commit with its trailers), nor
/// those gone from the work tree: the orchestrator writes its documents and never deletes one,
/// so a deletion is someone else's (a worker's that removed other plans' SUMMARYs), never to be
/// committed as the run's record. A user's edit elsewhere in the spec directory stays the user's
/// to commit.
std::vector<std::string> writeback_paths(const std::vector<worker::GitChange>& changed, const std::set<std::string>& own,
                                         const std::set<std::string>& live);

/// What run_finished adds when the run could not write or commit some of its documents: each
/// file with the reason (files failing alike are named together, the first few of them), and
/// what to do: fix the cause (free space, when a reason says the disk is full), then run `harness-cli orchestrate <spec_arg>` again,
/// which writes and commits them. `complete`: the spec itself is complete, and the message says
/// so, since the exit code (1) does not. Empty without such documents.
std::string unwritten_text(const std::vector<UnwrittenDocument>& unwritten, std::string_view spec_arg, bool complete);

} // namespace harness::orchestrator
