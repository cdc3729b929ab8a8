#pragma once
// Planning tasks in a run: what a worker is told to produce for research, plan, check-plans,
// reconcile and plan-gaps, and what the spec directory must show afterwards before the scheduler
// hears "succeeded". A planner's word that it planned is not enough, as an executor's is not: the
// plans on disk are the result, and they join the live graph from there.

#include "harness/sched/types.hpp"
#include "harness/spec/spec.hpp"

#include <boost/json/object.hpp>

#include <expected>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace harness::orchestrator {

/// What a planning worker said in its task_completed (check-plans: verdict and findings).
struct PlanningReport {
  std::optional<std::string> verdict; ///< "pass" | "revise"
  std::vector<std::string> findings;
};

/// The event for the scheduler, and the findings a revision pass of the planner is given.
struct PlanningResult {
  sched::Event event;
  std::vector<std::string> findings;
};

/// Who judges a phase's plans in check-plans: a checker worker, whose task_completed must carry
/// a verdict, or the engine alone (the script worker checks nothing itself).
enum class VerdictFrom { worker, engine };

/// After a plan, plan-gaps or check-plans task of phase `a.subject` ended cleanly, with `spec`
/// reloaded from disk:
/// - plan: every plan of the phase, at least one, none with an error diagnostic;
/// - plan-gaps: the plans of the phase the scheduler does not know yet (`known(id)` false), at
///   least one, none with an error;
/// - check-plans: passed, or revise when the checker said so or a plan of the phase has an error
///   (the diagnostics join the findings). From a worker, a verdict other than "pass" or "revise"
///   (none at all included) fails the attempt: plans nobody approved must not run.
/// The error is the failed attempt's reason, naming where the plans were expected.
std::expected<PlanningResult, std::string> planning_event(const spec::Spec& spec, const sched::Action& a,
                                                          const std::function<bool(const std::string&)>& known,
                                                          const PlanningReport& report,
                                                          VerdictFrom from = VerdictFrom::worker);

/// After a reconcile of plan `a.subject` ended cleanly, with `spec` reloaded from disk: the
/// succeeded event carrying the plan as reconciled (a deviation may change what it writes or
/// waits for, and the scheduler must hold conflicts on the new files). The error fails the
/// attempt: the plan is gone (renamed, its plan_id changed) or no longer validates.
std::expected<sched::Event, std::string> reconcile_event(const spec::Spec& spec, const sched::Action& a);

/// Why a research attempt that ended cleanly failed: it wrote no research file for phase
/// `a.subject` (missing, or nothing but white space). Empty when the file is there.
std::string research_missing(const spec::Spec& spec, const sched::Action& a);

/// The task input of `a` beyond its id: for every kind the spec directory and, by kind, the phase
/// (number, name, goal, success criteria), the files to write and where (research file, plans
/// directory and id pattern), the template to start from in `templates_dir`, the plans to check,
/// the deviations to reconcile, the verification whose gaps to close, and `revision_findings`
/// for a planner sent back by the checker, and for an execute the plan's tasks whose commits
/// stand (`committed_tasks`, (task, hash) as worker::standing_tasks gives them: an earlier
/// attempt's work, which the worker must not do twice), and `person_notes`: what a person said
/// about the task's earlier work (a redo's note and refusal, an end-session reason), and
/// `earlier_attempt_failed`: why this task's previous attempt in the run failed (a planner whose
/// plans had errors is told them, not that its pass "was interrupted": review SS M1). Absolute
/// paths: a worker may run anywhere.
boost::json::object task_brief(const spec::Spec& spec, const sched::Action& a, const std::filesystem::path& templates_dir,
                               const std::vector<std::string>& revision_findings = {},
                               const std::vector<std::pair<int, std::string>>& committed_tasks = {},
                               const std::vector<std::string>& person_notes = {}, const std::string& earlier_failure = {});

/// The key/value store entry that says phase `phase` of `spec_name` is being planned: set when a
/// planner starts, removed when the phase's check-plans is done. Left behind by a killed run, it
/// makes the next run plan that phase again over the plans already written (see
/// sched::WorkPhase::planning_unfinished).
std::string planning_mark_key(std::string_view spec_name, std::string_view phase);
/// How far the marked planning got: a planner is writing the plans (or was, when the run was
/// killed), or it finished and only the check is outstanding.
enum class PlanningStage { planning, written };
/// The mark's value in the store (JSON text).
std::string planning_mark_value(PlanningStage stage);
struct UnfinishedPlanning {
  std::string phase;
  PlanningStage stage = PlanningStage::planning;
  bool operator==(const UnfinishedPlanning&) const = default;
};
/// The phases of `spec_name` with a planning mark among the store's key/value `entries`. A value
/// other than "written" (an older run's `true` too) reads as planning: the safe side.
std::vector<UnfinishedPlanning> unfinished_planning(const std::vector<std::pair<std::string, std::string>>& entries,
                                                    std::string_view spec_name);

/// The store entry listing the plans of `spec_name` a reconcile changed that have not executed
/// since (sched::WorkPlan::reconciled): a run stopped between the two does not reconcile again.
std::string reconciled_key(std::string_view spec_name);

/// The store entry holding the rounds phase `phase` of `spec_name` spent in the loops that end
/// with a person's decision (sched::WorkPhase::revisions, gap_rounds), so that a killed or
/// blocked run does not buy the next one a fresh budget of agent rounds (review SS H3).
std::string loop_rounds_key(std::string_view spec_name, std::string_view phase);
/// Its value: `[revisions, gap_rounds]`.
std::string loop_rounds_value(std::pair<int, int> rounds);
/// phase -> {revisions, gap_rounds} of `spec_name` among the store's key/value `entries`; an
/// unreadable value is left out (counts from zero).
std::map<std::string, std::pair<int, int>> stored_loop_rounds(const std::vector<std::pair<std::string, std::string>>& entries,
                                                              std::string_view spec_name);

/// `planning/plans/03-auth` for phase 3: the phase's directory when it has one, else a new one
/// named after the roadmap phase.
std::filesystem::path phase_plans_dir(const spec::Spec& spec, spec::PhaseNumber phase);

} // namespace harness::orchestrator
