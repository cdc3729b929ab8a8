#pragma once
// Loading a whole spec directory into typed documents plus diagnostics.

#include "harness/spec/diagnostic.hpp"
#include "harness/spec/documents.hpp"
#include "harness/spec/layout.hpp"
#include "harness/spec/plan.hpp"

#include <expected>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace harness::spec {

/// A loaded spec directory. Plans are sorted by id (phase, then number); diagnostics in file order.
struct Spec {
  Layout layout;
  std::optional<Roadmap> roadmap;
  std::vector<Plan> plans;
  std::map<std::string, Summary> summaries;            ///< by plan id, for SUMMARY files present
  std::map<PhaseNumber, Verification> verifications;   ///< by phase, for VERIFICATION files present
  std::optional<Verification> final_verification;
  std::optional<StatusDocument> status;                ///< STATUS.md, when present
  std::vector<Diagnostic> diagnostics;

  bool valid() const { return !has_errors(diagnostics); }
  const Plan* find_plan(std::string_view id) const;
};

/// Loads and validates the spec directory. Fails only when the directory cannot be used at all
/// (does not exist, not a directory); every problem inside it becomes a diagnostic.
std::expected<Spec, std::string> load_spec(const std::filesystem::path& spec_dir,
                                           const std::filesystem::path& cwd = std::filesystem::current_path());

/// Reads the SUMMARYs of the plans `plan_ids` again (one whose file is gone is dropped), with
/// their diagnostics, as load_spec reads them: what a whole load would now hold of them, for a
/// caller that knows which SUMMARYs were written since it loaded the spec (a run refreshing
/// STATUS.md after its tasks end) and need not parse every document again. Ids of no plan, or of
/// a plan without a phase directory, are passed over, as load_spec passes over their SUMMARYs.
void reload_summaries(Spec& spec, const std::set<std::string>& plan_ids);

/// Finds and parses one plan, `<plans>/<NN-slug>/<id>-PLAN.md`, without loading the rest of the
/// spec (a worker of a 2,000-plan spec reads its own plan only). Fails when the plan is missing or
/// does not validate, with the diagnostics rendered.
std::expected<Plan, std::string> load_one_plan(const Layout& layout, const std::string& plan_id);
/// The same from the file's `text` as read before (a run keeps a plan's text as its execute started).
std::expected<Plan, std::string> plan_from_text(const Layout& layout, const std::string& plan_id, std::string_view text);
/// The PLAN file of `plan_id` in `layout` (its phase directory found by the id); empty when none.
std::filesystem::path plan_path(const Layout& layout, const std::string& plan_id);

/// The spec's files the orchestrator writes as a run goes: STATUS.md, ROADMAP.md, REQUIREMENTS.md,
/// FINAL-VERIFICATION.md, commits.log, each phase's VERIFICATION and each plan's SUMMARY. They are
/// no plan's work, even where a plan's `files_modified` (`docs/**`) covers them: what was verified
/// or asked about (work_hash, a checkpoint's answer) is compared without them.
std::vector<std::filesystem::path> harness_written_files(const Spec& spec);

/// The plans whose `files_modified` covers `file` (relative to the project root), in the spec's
/// order: whose work a change to it is.
std::vector<std::string> plans_declaring(const Spec& spec, std::string_view file);

} // namespace harness::spec
