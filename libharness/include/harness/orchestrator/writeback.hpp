#pragma once
// Writing results back into the spec directory: the plan-level verification mark in a SUMMARY,
// STATUS.md, ROADMAP.md's frontmatter (position, progress, velocity; in place, other bytes kept),
// and execution/commits.log. Every file is written atomically.

#include "harness/graph/progress.hpp"
#include "harness/spec/spec.hpp"

#include <expected>
#include <string>
#include <vector>

namespace harness::orchestrator {

/// Sets `verification: <status>` in the SUMMARY's frontmatter.
std::expected<void, std::string> mark_summary_verification(const std::filesystem::path& summary, std::string_view status);

/// STATUS.md: frontmatter for tools (run state, the tasks this run blocked, which `status` reads
/// back), then Markdown for people: progress per phase and plan, ready work, blockers.
std::string render_status_md(const graph::Progress& progress, std::string_view run_state,
                             const std::vector<spec::BlockedTask>& blocked);

/// Updates ROADMAP.md's frontmatter from the progress; `run_minutes` of execution are added to
/// the velocity. A roadmap without frontmatter is left alone.
std::expected<void, std::string> update_roadmap(const spec::Spec& spec, const graph::Progress& progress,
                                                double run_minutes, bool running);

/// Appends lines to execution/commits.log (created if absent).
std::expected<void, std::string> append_commits_log(const std::filesystem::path& log, const std::vector<std::string>& lines);

/// The commits.log lines missing for `commits` (hash, plan): a run killed between a worker's
/// exit and its log line leaves them out, and a retry reports its predecessor's commits again.
/// Returns "<hash> <plan> <session>" for each hash the log does not mention yet, in order.
std::vector<std::string> missing_commit_lines(std::string_view existing_log,
                                              const std::vector<std::pair<std::string, std::string>>& commits,
                                              std::string_view session);

} // namespace harness::orchestrator
