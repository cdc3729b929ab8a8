#pragma once
// Building the scheduler's Workload from a loaded spec directory.

#include "harness/sched/types.hpp"
#include "harness/spec/spec.hpp"

#include <optional>
#include <string>

namespace harness::sched {

/// Phases from the spec's phase directories and its roadmap; a phase with PLAN files has
/// plans_exist; depends_on is its ROADMAP entry's `Depends on`; research_exists when
/// `planning/research/phase-NN-research.md` is on disk (the
/// one file-system look-up, done here so the Scheduler itself never touches files); executed,
/// deviations and verified from the SUMMARY and VERIFICATION documents, read by
/// spec::read_done_state as `status` reads them: a phase or final verification that no longer
/// covers the plans there are (one added, one without a SUMMARY) is not verified, and runs again.
Workload workload_from_spec(const spec::Spec& spec);

/// Why `spec` gives the scheduler nothing to do (no phase in its ROADMAP.md, no PLAN file), for
/// `orchestrate` and `simulate` to refuse it with; nullopt when there is something.
std::optional<std::string> nothing_to_schedule(const spec::Spec& spec, const Workload& workload);

/// A plan as its frontmatter says (id, phase, dependencies, files, estimate, checkpoints,
/// autonomous), nothing of its execution: what a plan edited on disk hands the scheduler.
WorkPlan work_plan_of(const spec::Plan& plan);

} // namespace harness::sched
