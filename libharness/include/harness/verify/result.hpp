#pragma once
// Structured verification results and reports.

#include "harness/spec/documents.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace harness::verify {

enum class CheckStatus { passed, failed, error, skipped, human };
std::string_view to_string(CheckStatus s);

/// One check's outcome. `evidence` is what was observed (capped command output, counts, the
/// HTTP status); `message` says in one line why it failed or what a human must look at.
struct CheckResult {
  std::string plan;   ///< plan id, empty for phase-level items
  std::string id;
  std::string type;   ///< must_pass type, "artifact", "key_link", "commits", "criterion"
  CheckStatus status = CheckStatus::passed;
  double seconds = 0;
  std::string evidence;
  std::string message;
  int line = 0;       ///< line in the PLAN file, when it comes from one
  std::string file;   ///< PLAN file relative to the spec directory
  /// The `commits` check: the committed paths the plan's files_modified does not cover, all of
  /// them (its message names the first few after outside_files_label).
  std::vector<std::string> outside_files = {};
  /// The `commits` check in a shallow clone that holds none of the plan's commits: they may lie
  /// beyond its boundary, so it is no finding about the plan (status `error`, the message says
  /// to fetch the whole history), and no VERIFICATION file is written on it.
  bool history_cut = false;
};

/// What a `commits` message says before the files changed outside files_modified.
inline constexpr std::string_view outside_files_label = "changed outside files_modified: ";

/// A plan, phase or final verification.
struct Report {
  std::string level;   ///< "plan 02-01", "phase 02", "final"
  std::string spec_name;
  spec::VerificationStatus status = spec::VerificationStatus::passed;
  std::vector<CheckResult> results;
  /// Phase and final: the plans verified, written as frontmatter `plans` so that a later reader
  /// sees when plans were added or removed since (spec::read_done_state).
  std::vector<std::string> plans;
  /// Phase and final: work_hash of those plans' files, written as frontmatter `work_hash` so
  /// that a person's approval of the report holds only while the work is the same.
  std::string work_hash;
  int passed() const;
  int total() const;
};

/// Whether any of `report`'s results is a `commits` check a shallow clone could not answer.
bool history_cut(const Report& report);

/// gaps_found when any check failed or errored, else human_needed when any needs a human,
/// else passed. Skipped and informational items do not change the status.
spec::VerificationStatus overall_status(const std::vector<CheckResult>& results);

/// VERIFICATION.md: frontmatter (status, level, score, verified_at, plans), a table, the gaps listed with
/// where they come from so a gap-closure planner can act on them, and what needs a human.
std::string render_verification_md(const Report& report, std::string_view when);
/// A person's approval of a VERIFICATION file's previous version that write_report did not carry
/// over: the file is written without it and the next run asks again.
struct DroppedApproval {
  spec::HumanAnswer answer;
  std::string reason;              ///< why it no longer holds, for the person
  std::string approved_work_hash;  ///< the work it approved ("" when the file did not record it)
};

/// With `kept_approval` (write_report carried a person's approval over), the object also has
/// "kept_approval": {"by", "at", "note"}: the file says passed, whatever "status" the checks found.
/// With `dropped_approval`, "dropped_approval": {"by", "at", "note", "reason", "approved_work_hash",
/// "work_hash"} (the work it approved, the work now).
std::string report_json(const Report& report, const std::optional<spec::HumanAnswer>& kept_approval = std::nullopt,
                        const std::optional<DroppedApproval>& dropped_approval = std::nullopt);

} // namespace harness::verify
