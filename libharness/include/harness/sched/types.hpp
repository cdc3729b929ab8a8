#pragma once
// The scheduler's vocabulary: task kinds, the workload it schedules, its configuration, and the
// events it consumes and actions it emits. Plain structs; every one has a JSON codec (json.hpp) so
// that a run is a replayable log.

#include "harness/spec/phase_number.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace harness::sched {

/// What a task does. Priority classes when a slot frees (seed 001): the verify kinds, then
/// reconcile, then execute, then the planning kinds, then admin.
enum class TaskKind {
  research,     ///< research(phase): writes the phase RESEARCH file
  plan,         ///< plan(phase): writes the phase's PLAN files (also the revision pass)
  check_plans,  ///< check-plans(phase): critic; may send the plans back for revision
  reconcile,    ///< reconcile(plan): review a plan against a predecessor's deviations
  execute,      ///< execute(plan)
  verify_plan,  ///< verify-plan(plan): plan-level verification, after every execute
  verify_phase, ///< verify-phase(phase): once every plan of the phase is plan-verified
  plan_gaps,    ///< plan-gaps(phase): gap-closure planning after `gaps_found`
  admin,        ///< anything else the orchestrator asks for (tests, builds)
  verify_final, ///< the spec's final verification, after every phase is verified
};
inline constexpr int task_kind_count = 10;

std::string_view to_string(TaskKind k);
std::optional<TaskKind> parse_task_kind(std::string_view s);
/// 0 = most urgent. verify* 0, reconcile 1, execute 2, research/plan/check/plan-gaps 3, admin 4.
int priority_class(TaskKind k);

/// Why an attempt failed. Rate-limited retries later without spending an attempt; refused blocks.
/// `no_retry`: the worker itself said another attempt cannot help (`task_failed` with
/// `retry: forbidden`), or, for a verification, the orchestrator found that checking again cannot
/// (a plan's SUMMARY deleted under it): the task blocks at once, like a refusal, with its reason.
enum class FailureClass { crashed, timed_out, verification_failed, rate_limited, refused, no_retry };
std::string_view to_string(FailureClass f);
std::optional<FailureClass> parse_failure_class(std::string_view s);

/// Result a successful task reports. check-plans: passed | revise; verify-phase and the final
/// verification: passed | gaps_found | human_needed; every other kind: passed.
enum class Verdict { passed, revise, gaps_found, human_needed };
std::string_view to_string(Verdict v);
std::optional<Verdict> parse_verdict(std::string_view s);

/// A human's (or the orchestrator's) answer to a checkpoint or an escalation.
enum class Answer { approved, refused };
std::string_view to_string(Answer a);
std::optional<Answer> parse_answer(std::string_view s);

/// Dispatch policy. `graph` is the harness; `waves` (GSD's level barrier) and `serial` (seed
/// 002: one execute at a time, planning two phases ahead) exist only as baselines for simulate.
enum class Policy { graph, waves, serial };
std::string_view to_string(Policy p);
std::optional<Policy> parse_policy(std::string_view s);

/// A plan as the scheduler sees it.
struct WorkPlan {
  std::string id; ///< "03-02"
  spec::PhaseNumber phase;
  std::vector<std::string> depends_on;
  std::vector<std::string> files_modified; ///< globs; write/write overlap delays a start
  std::vector<std::string> files_read;     ///< never conflicts
  std::optional<double> estimate;          ///< minutes; drives the critical-path priority
  std::vector<std::string> checkpoints;
  bool autonomous = true;
  bool executed = false;       ///< a SUMMARY exists
  bool has_deviations = false; ///< that SUMMARY reports deviations
  bool verified = false;       ///< plan-level verification already passed
  /// An earlier run reconciled it after the deviations of a plan it follows, and it has not
  /// executed since: those deviations do not reconcile it again (an agent's edit is not
  /// idempotent, and twice could damage the plan: review SS M3).
  bool reconciled = false;
};

/// `edited` (a plan as its PLAN file now says, work_plan_of) with what `known` holds beyond its
/// frontmatter: its place (id, phase) and its execution (executed, has_deviations, verified).
/// Every other field is frontmatter and comes from `edited`, so the frontmatter keys are named
/// in one place only (work_plan_of); a new field that is not frontmatter belongs in here.
WorkPlan with_frontmatter(const WorkPlan& known, WorkPlan edited);

/// A phase as the scheduler sees it.
struct WorkPhase {
  spec::PhaseNumber number;
  bool research_exists = false; ///< research(phase) is skipped
  bool plans_exist = false;     ///< plan and check-plans are skipped; its plans are in the workload
  /// Its plans exist, but the planning pass that wrote them never finished (a run killed while
  /// planning): plan runs again over them and check-plans passes before any of them executes.
  bool planning_unfinished = false;
  /// Its plans exist and the planning pass that wrote them finished, but no check-plans passed
  /// them (a run killed while checking): check-plans runs before any of them executes; the
  /// planner only if the checker sends them back.
  bool plans_unchecked = false;
  /// The phase's VERIFICATION passed and still covers its plans. Counted only when every plan
  /// of the phase is executed: a plan without a SUMMARY runs, and the phase is verified again.
  bool verified = false;
  /// Rounds earlier runs spent on this phase (kept in the orchestrator's store): plans sent back by
  /// the checker in the current planning cycle, gap-closure rounds since the phase last passed.
  /// The bounds (max_revisions, max_gap_rounds) count per phase, not per run (review SS H3).
  int revisions = 0;
  int gap_rounds = 0;
  /// ROADMAP's `**Depends on**: Phase N`: no plan of this phase executes before each of these
  /// phases is planned and checked and all its plans are executed and plan-verified (its own
  /// phase verification is left to the gate). Numbers of this phase or later ones, or of phases
  /// the workload does not have, are ignored (validate reports them, H034).
  std::vector<spec::PhaseNumber> depends_on = {};
};

/// Everything the scheduler schedules. Phases in any order (sorted on load); plans of phases
/// without plans_exist are ignored (they arrive with the plan task's success).
struct Workload {
  std::vector<WorkPhase> phases;
  std::vector<WorkPlan> plans;
  bool final_verified = false; ///< likewise counted only when every plan is executed
};

/// Knobs. Defaults are the issue's.
struct Config {
  int slots = 4;
  std::map<TaskKind, int> caps;      ///< optional per-kind limits on running tasks
  std::optional<int> gate_lookahead = 1; ///< K: phase P executes while phases <= P-1-K are verified; nullopt = unlimited
  int research_depth = 2;            ///< research/plan phases up to current + depth
  int max_attempts = 2;              ///< attempts per task (rate-limited ones are not counted)
  int max_revisions = 3;             ///< check-plans revision rounds before a human decides
  int max_gap_rounds = 2;            ///< gap-closure rounds per phase before a human decides
  double default_estimate = 30;      ///< execute minutes assumed when a plan has no estimate
  double verify_estimate = 5;        ///< minutes of verify-plan, added to each plan's path weight
  double verify_phase_estimate = 10; ///< minutes of verify-phase, on the path through a phase gate
  Policy policy = Policy::graph;
};

/// Inputs of the state machine.
enum class EventType {
  begin,        ///< start scheduling (first event of a run)
  succeeded,    ///< task finished: verdict, deviations (execute), plans (plan, plan-gaps)
  failed,       ///< task attempt failed with `failure`
  checkpoint,   ///< running task waits for an answer; `worker_alive` false frees its slot
  answered,     ///< answer to a checkpoint or an escalation (ask_human)
  retry_due,    ///< a deferred (rate-limited) task may run again
  admin_requested, ///< add an admin task named `task` ("admin:<name>")
  requested,    ///< someone asked for `task` now (harness_start_session): it goes first within its
                ///< kind; a blocked task is reopened with fresh attempts
  escalated,    ///< an earlier run escalated `task` (a loop's bound, `detail` says which) and the
                ///< person's question is carried over: when the task is ready it asks at once
                ///< (ask_human) instead of running its loop again from round one
  plans_edited, ///< PLAN files changed on disk during the run, not by its own tasks (no `task`):
                ///< `plans` their new frontmatter and plans added, `removed` plans whose file is
                ///< gone, `held` plans whose file no longer validates (see Scheduler::edit_fate)
};
std::string_view to_string(EventType t);
std::optional<EventType> parse_event_type(std::string_view s);

struct Event {
  EventType type = EventType::begin;
  std::string task;                  ///< task id, e.g. "execute:03-02"
  Verdict verdict = Verdict::passed;
  bool has_deviations = false;       ///< execute: the SUMMARY reports deviations
  std::vector<WorkPlan> plans;       ///< plan: the phase's plans (replacing); plan-gaps: new plans;
                                     ///< reconcile: the plan as reconciled; plans_edited: see there
  std::vector<std::string> removed;  ///< plans_edited: ids of plans whose PLAN file is gone
  std::vector<std::string> held;     ///< plans_edited: ids of plans whose PLAN file has errors
  FailureClass failure = FailureClass::crashed;
  bool worker_alive = true;          ///< checkpoint: the worker process can hold its slot
  Answer answer = Answer::approved;
  std::string detail;                ///< free text (checkpoint kind, failure message)
  int task_index = -1;               ///< optional hint: Action::task_index of `task`; checked, not serialized
};

/// An event of `type` about `task` with every other field at its default.
Event make_event(EventType type, std::string task = {});

/// Outputs of the state machine.
enum class ActionType {
  start,     ///< launch `task` in `slot` (continuation after a slot-less checkpoint)
  resume,    ///< deliver the approval; the worker still holds `slot`
  ask_human, ///< a checkpoint or an escalation needs an answer (no slot held unless noted)
  defer,     ///< rate-limited: send retry_due for `task` after a backoff
  blocked,   ///< `task` will not run; `reason` says why
  finished,  ///< nothing more will happen; `reason` is "complete" or "blocked"
  rejected,  ///< the event was invalid and ignored; `reason` says why
};
std::string_view to_string(ActionType t);
std::optional<ActionType> parse_action_type(std::string_view s);

struct Action {
  ActionType type = ActionType::start;
  std::string task;
  TaskKind kind = TaskKind::admin;
  std::string subject; ///< plan id or phase number ("03"); empty for final/admin
  int slot = -1;
  int attempt = 0;     ///< 1-based for start
  bool continuation = false;
  std::string reason;
  int task_index = -1; ///< index into Scheduler::tasks() (a speed hint for Event::task_index; not serialized)
  bool operator==(const Action& o) const {
    return type == o.type && task == o.task && kind == o.kind && subject == o.subject && slot == o.slot &&
           attempt == o.attempt && continuation == o.continuation && reason == o.reason;
  }
};

} // namespace harness::sched
