#pragma once
// The PLAN files a planning task may change. A gap planner that "closed" a gap by weakening the
// check of a plan that had run, or a plan checker that rewrote the plans it passed, had its edit
// run, committed and verified in silence (review SS H1, H2). Each planning kind has its own
// files: a planner its phase's plans, a gap planner new plans only, a reconcile its one plan, a
// checker none. Anything else it changed is put back as it was when the task started, the
// worker's version kept under .orchestration/discarded/, and the attempt fails.

#include "harness/sched/types.hpp"
#include "harness/spec/spec.hpp"

#include <expected>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace harness::orchestrator {

/// A PLAN file as a planning task found it when it started.
struct PlanFileBefore {
  std::string text;
  std::string plan;          ///< its plan id
  spec::PhaseNumber phase{}; ///< its plan's phase
};
/// By path relative to the project root.
using PlanFilesBefore = std::map<std::string, PlanFileBefore>;

/// Every parsed plan's PLAN file of `spec`, as it is on disk now.
PlanFilesBefore read_plan_files(const spec::Spec& spec);

/// Whether a task of `kind` about `subject` (a phase for plan, check-plans and plan-gaps, a plan
/// id for reconcile) may change the existing plan `plan` of `phase`.
bool may_change_plan(sched::TaskKind kind, const std::string& subject, const std::string& plan,
                     const spec::PhaseNumber& phase);

/// The files of `before` (read under `root`) that differ now, or are gone, and that the task may
/// not change; sorted.
std::vector<std::string> forbidden_plan_changes(sched::TaskKind kind, const std::string& subject,
                                                const PlanFilesBefore& before, const std::filesystem::path& root);

/// Puts `files` back as `before` holds them, each changed version moved first under
/// `.orchestration/discarded/<spec>/plan-edit-...`: returns that directory (relative to the
/// project root), or what failed (the files put back until then stay so).
std::expected<std::string, std::string> put_back_plans(const spec::Layout& layout, const std::vector<std::string>& files,
                                                       const PlanFilesBefore& before);

/// "(a plan checker judges the plans and changes none)": why `kind` may not change them.
std::string plan_change_rule(sched::TaskKind kind);

} // namespace harness::orchestrator
