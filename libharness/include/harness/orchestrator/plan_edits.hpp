#pragma once
// PLAN files edited, added or removed by someone while a run goes on. The run compares the spec
// as it is now with the plans as it last read them, tells the scheduler (EventType::plans_edited)
// and says what each change does: a plan that has not started is taken as now written, one that
// runs goes on as it started, a removed one is dropped, an added one joins its phase, and one
// whose file does not validate any more is held until it does.

#include "harness/sched/scheduler.hpp"
#include "harness/spec/spec.hpp"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace harness::orchestrator {

/// A plan as the run last read it.
struct PlanSnapshot {
  std::string file; ///< PLAN path relative to the spec directory
  sched::WorkPlan frontmatter;
  std::size_t digest = 0; ///< of what a worker or verifier reads beyond the frontmatter
  bool held = false;      ///< its file had errors when last read (or it did not parse)
};
/// By plan id.
using PlanSnapshots = std::map<std::string, PlanSnapshot>;

/// The snapshot of one plan as `spec` holds it.
PlanSnapshot snapshot_plan(const spec::Plan& plan);
/// Every plan of `spec`.
PlanSnapshots snapshot_plans(const spec::Spec& spec);

/// One thing the run says about an edit: `task` is the plan's execute.
struct EditNote {
  std::string task;
  std::string message;
};

struct PlanEdits {
  sched::Event event; ///< plans_edited; nothing for the scheduler when its lists are empty
  std::vector<EditNote> notes;
  PlanSnapshots seen;   ///< the snapshots to compare with next time
  bool deferred = false; ///< a change the run's own task may be making was left for later
  bool empty() const { return event.plans.empty() && event.removed.empty() && event.held.empty(); }
};

/// Whether plan `id` of `phase` is being written by the run's own task (a planner of its phase,
/// its reconcile): such a change is that task's result, not an edit.
using OwnWriter = std::function<bool(const std::string& id, const spec::PhaseNumber& phase)>;

/// Compares `now` (the spec read again) with `seen`. `fate` is the scheduler's word on each plan
/// (Scheduler::edit_fate). A plan missing from `now` whose file still exists, or whose file has an
/// error diagnostic, is held, not removed: a file half-saved or mistyped must not drop the plan.
PlanEdits find_plan_edits(const PlanSnapshots& seen, const spec::Spec& now,
                          const std::function<sched::EditFate(const std::string&, const spec::PhaseNumber&)>& fate,
                          const OwnWriter& own);

} // namespace harness::orchestrator
