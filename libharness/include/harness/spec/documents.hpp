#pragma once
// ROADMAP.md, SUMMARY.md and VERIFICATION.md as typed documents.

#include "harness/spec/phase_number.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace harness::spec {

/// Seed 000 Phase 3: ROADMAP.md frontmatter (replaces STATE.md).
struct RoadmapFrontmatter {
  int version = 1;
  std::string project;
  std::string milestone;
  std::optional<std::string> current_phase;
  std::optional<int> current_plan;
  std::string status; ///< planning | executing | verifying | blocked | complete
  std::optional<int> total_phases;
  std::optional<int> completed_phases;
  std::optional<int> total_plans;
  std::optional<int> completed_plans;
  std::optional<int> velocity_total_plans_completed;
  std::optional<double> velocity_total_execution_minutes;
  std::optional<double> velocity_average_minutes_per_plan;
};

struct ChecklistItem {
  std::string text;
  bool checked = false;
  int line = 0;
};

/// A `## Phase N: Name` section of the roadmap.
struct RoadmapPhase {
  PhaseNumber number;
  std::string name;
  std::string goal;
  std::vector<PhaseNumber> depends_on;  ///< the phases its `Depends on` names (see docs/readme/spec.md)
  /// Of depends_on, the phases no `Depends on` names, ordered before this one because GSD inserted
  /// them there (02 after 01.1, 01.2 after 01.1; spec/inserted_phases.hpp): said so, not "ROADMAP".
  std::vector<PhaseNumber> inserted_before;
  std::string depends_on_text;           ///< that value as written, markup stripped
  std::vector<std::string> success_criteria;
  std::vector<ChecklistItem> checklist; ///< checkboxes in the section (plans, criteria)
  bool complete = false;                ///< heading or overview checkbox marked done
  int line = 0;
};

struct Roadmap {
  std::string file; ///< relative to the spec directory
  bool has_frontmatter = false;
  RoadmapFrontmatter frontmatter;
  std::vector<RoadmapPhase> phases;
};

enum class VerificationStatus { passed, gaps_found, human_needed };
std::string_view to_string(VerificationStatus s);
std::optional<VerificationStatus> parse_verification_status(std::string_view s);

/// A person's answer to a verification that needed one (`human_needed`, or gaps accepted), as
/// the orchestrator records it in the VERIFICATION file: an approval sets `status: passed` and
/// keeps the checks' verdict in `checks_status`; a refusal leaves the status as it was.
struct HumanAnswer {
  bool approved = false;
  std::string by;   ///< who, and how: "alice (harness-cli respond)"
  std::string at;   ///< ISO 8601
  std::string note; ///< the note given with the answer, if any
};

/// "alice (harness-cli respond) at 2026-...: too dark": who answered, when and why, as every
/// message that names an answer says it (the time and the note only when recorded).
std::string answered_by(const HumanAnswer& a);

/// SUMMARY.md: what an execution produced.
struct Summary {
  std::string file;
  std::string plan_id;
  std::string status;             ///< complete | partial | failed (anything else: H017)
  std::vector<std::string> deviations;
  bool has_deviations = false;    ///< frontmatter `deviations` non-empty or a "Deviations" section with content
  std::vector<std::string> commits;
  std::vector<std::string> files_touched;
  std::optional<VerificationStatus> verification; ///< plan-level verification written by the orchestrator
  /// A person's answer at the plan's verification checkpoint, as the orchestrator records it
  /// (`approved_by/at`, `approval_note`; `refused_by/at`, `refusal_note`): the latest of the two.
  std::optional<HumanAnswer> answer;
};

/// VERIFICATION.md: a phase (or final) verification result.
struct Verification {
  std::string file;
  std::optional<VerificationStatus> status;
  std::string phase;
  int score_passed = 0;
  int score_total = 0;
  /// The plans it verified: frontmatter `plans`, else the plan column of its results table (a
  /// file written before `plans` existed); nullopt when neither says (a hand-written file).
  std::optional<std::vector<std::string>> plans;
  /// The (plan, check id) of the results table's failed and error rows, as the checks found them
  /// (a person's approval leaves the table as it was); plan empty for a phase-level item.
  std::vector<std::pair<std::string, std::string>> gaps;
  /// A hash of what the plans' files held when it was written (frontmatter `work_hash`); empty
  /// in a file written before harness recorded it.
  std::string work_hash;
  /// What the automated checks found, when a person's approval turned `status` into passed.
  std::optional<VerificationStatus> checks_status;
  /// `approved_by/at`, `approval_note` or `refused_by/at`, `refusal_note`.
  std::optional<HumanAnswer> answer;
  /// Plans it covered that a run started executing again after it was written (frontmatter
  /// `executed_since`, written by the orchestrator): their new work is not what it verified.
  std::vector<std::string> executed_since;
};

/// A task the last `orchestrate` run gave up on (STATUS.md frontmatter `blocked:`).
struct BlockedTask {
  std::string task;   ///< "execute:01-02"
  std::string reason; ///< why the last attempt failed
};

/// STATUS.md as the orchestrator writes it: the body is for people, the frontmatter for tools.
/// Only `blocked` is read; a hand-written STATUS.md without it is fine.
struct StatusDocument {
  std::string file;
  std::vector<BlockedTask> blocked;
};

} // namespace harness::spec
