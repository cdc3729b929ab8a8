#pragma once
// The scheduler: a pure, deterministic state machine. It never reads a file, starts a process,
// looks at a clock or draws a random number; everything arrives as an Event and everything it
// wants done leaves as an Action. Feeding the same Workload, Config and event log to a fresh
// Scheduler reproduces the same actions and the same snapshot (that is how a run is replayed).
//
// Driving it (the orchestrator's loop):
//   Scheduler s(workload, config);
//   for (auto& a : s.handle({.type = EventType::begin})) apply(a);
//   on worker exit:     s.handle({succeeded|failed, task, ...})
//   on a checkpoint:    s.handle({checkpoint, task, worker_alive}) -> ask_human
//   on a human answer:  s.handle({answered, task, approved|refused})
//   on a backoff timer: s.handle({retry_due, task})   (after a `defer` action)
// until an Action{finished} arrives. Invalid events (unknown task, wrong state) are ignored and
// answered with Action{rejected}; they change nothing.
//
// Rules (issue 3): slots run any kind; a slot frees -> the ready task of the most urgent class
// (verify > reconcile > execute > plan/research > admin), longest remaining critical path first,
// ties by id. execute(p) is ready when p's dependencies are plan-verified, its phase's plans are
// checked, its reconcile (if a predecessor deviated) is done, every phase its phase depends on
// (ROADMAP's `Depends on`) has all its plans checked and plan-verified, and the phase gate allows
// it; it starts only when no running or checkpoint-waiting execute writes an overlapping path.

#include "harness/sched/types.hpp"

#include <boost/json/value.hpp>

#include <array>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace harness::sched {

/// Where a task is in its life.
enum class TaskState {
  pending,  ///< prerequisites not met (or parked behind a gate)
  ready,    ///< may start when a slot frees and no conflict or cap holds it
  running,  ///< holds a slot
  waiting,  ///< at a checkpoint; holds a slot only when `slot >= 0`
  deferred, ///< rate-limited; waits for retry_due, no slot
  human,    ///< escalated to a human (revision limit, gap limit, human_needed); no slot
  done,
  blocked,  ///< will not run; `reason` says why
  dropped,  ///< removed from the graph (a revision dropped its plan); counts as satisfied
};
std::string_view to_string(TaskState s);

/// One schedulable task. `id` is "<kind>:<subject>" ("execute:03-02", "verify-phase:03"),
/// "final" for the final verification and "admin:<name>" for admin tasks.
struct Task {
  std::string id;
  TaskKind kind = TaskKind::admin;
  std::string subject;
  int phase = -1; ///< phase index (sorted order), -1 for final/admin
  int plan = -1;  ///< plan index for plan kinds
  TaskState state = TaskState::pending;
  int failures = 0; ///< attempts spent (rate-limited ones excluded)
  int slot = -1;
  bool continuation = false;
  bool parked = false; ///< sits in a gate/window/barrier list
  bool requested = false; ///< asked for by a `requested` event: first within its kind
  std::string escalated;  ///< an `escalated` event's reason: asks a human once ready, runs nothing
  std::string reason;
};

/// What an edit of a plan's PLAN file during the run does (EventType::plans_edited), decided by
/// the state of the plan's execute and of its phase.
enum class EditFate {
  applies,        ///< not started (or blocked): the plan is taken as it is now written
  next_attempt,   ///< running, at a checkpoint or waiting for a retry: it goes on as it started;
                  ///< the edit applies when it runs again (a retry, a continuation)
  has_run,        ///< executed: kept as it ran; the edit applies if it executes again in this run
  joins,          ///< a plan new to the run, in a planned phase not verified yet: it joins the graph
  phase_verified, ///< a plan new to the run, in a phase verified (or being verified): not taken
  phase_not_open, ///< a plan new to the run, in a phase being planned or unknown to the run: not
                  ///< taken (a planner's result brings the plans of its phase)
};
std::string_view to_string(EditFate f);

class Scheduler {
public:
  /// Builds the task graph of `workload` (nothing is started until the `begin` event).
  Scheduler(Workload workload, Config config);

  /// Applies one event and returns the actions it causes, in order. Deterministic.
  std::vector<Action> handle(const Event& event);

  /// The whole state as JSON (tasks with state/attempts/slot/reason, slots, phase counters);
  /// two schedulers fed the same log have byte-identical snapshots.
  boost::json::object snapshot() const;

  const std::vector<Task>& tasks() const { return m_tasks; }
  /// The task with `id`, or nullptr.
  const Task* find_task(std::string_view id) const;
  const Config& config() const { return m_config; }
  /// The plans known now (the workload's plus those added by plan and plan-gaps tasks).
  const std::vector<WorkPlan>& plans() const { return m_plans; }
  /// Remaining critical path (minutes) from a plan, own execute + verify included.
  double plan_rank(int plan) const { return m_rank[static_cast<std::size_t>(plan)]; }
  /// Resolved dependencies of a plan (indices into plans()).
  const std::vector<int>& plan_deps(int plan) const { return m_plan_info[static_cast<std::size_t>(plan)].deps; }
  /// Earlier phases (indices, as Task::phase) that phase `phase` depends on in ROADMAP.md.
  const std::vector<int>& phase_depends(int phase) const { return m_phases[static_cast<std::size_t>(phase)].depends; }
  /// Index of the lowest phase not yet verified (== phase count when all are).
  int current_phase() const { return m_current; }
  /// True once Action{finished} was emitted.
  bool finished() const { return m_finished; }
  /// Number of tasks holding a slot.
  int busy_slots() const;
  /// True when the run has nothing left to do but wait for people: some task waits at a
  /// checkpoint or escalation without holding a slot, none runs, waits for a retry or holds a
  /// slot at a checkpoint (a live worker waiting for its answer), and whatever else is not done
  /// cannot start before those answers (it depends on them or conflicts with their files).
  bool waits_only_for_humans() const;
  /// The rounds phase `phase` has spent (WorkPhase::revisions, gap_rounds), counting earlier runs'
  /// as the workload gave them: {0, 0} for an unknown phase.
  std::pair<int, int> loop_rounds(const spec::PhaseNumber& phase) const;
  /// What an edit of plan `id` of `phase` would do now (see EditFate).
  EditFate edit_fate(std::string_view id, const spec::PhaseNumber& phase) const;
  /// Why a pending task does not start ("waits on execute:01-02 (running)", "phase gate: ..."),
  /// or "ready: waits for a free slot"; empty for an unknown task.
  std::string why_waiting(std::string_view id) const;

private:
  struct PhaseInfo {
    spec::PhaseNumber number;
    bool planned = false;
    std::vector<int> plans; ///< plan indices in id order (dropped ones included)
    int research = -1, plan = -1, check = -1, verify = -1, gaps = -1;
    int revisions = 0;
    int gap_rounds = 0;
    std::vector<int> depends;    ///< earlier phases (indices) its ROADMAP entry depends on
    std::vector<int> dependents; ///< later phases whose ROADMAP entry names this one
  };
  struct PlanInfo {
    int execute = -1, verify = -1, reconcile = -1;
    bool needs_reconcile = false;
    std::vector<int> deps;       ///< resolved depends_on (plan indices)
    std::vector<int> dependents; ///< plans whose deps name this one
    int unresolved = 0;          ///< depends_on ids not known yet
    bool dropped = false;
    bool held = false; ///< its PLAN file no longer validates: its execute does not start
    int level = 0; ///< dependency depth inside its phase (waves policy)
  };
  /// An edit of a PLAN file waiting for the plan's execute to stop running (EditFate next_attempt
  /// or has_run): the plan goes on as it started, and runs again as it is now written.
  struct PlanEdit {
    enum class What { replace, remove, hold } what = What::replace;
    WorkPlan plan; ///< for replace
  };
  struct ReadyKey {
    int cls;
    bool later; ///< false for a requested task: it sorts first within its class
    double neg_rank;
    std::string id;
    int task;
    bool operator<(const ReadyKey& o) const;
  };
  /// What keeps a pending task from being ready.
  struct Blocker {
    enum class Kind { none, task, unresolved, gate, barrier, phase, held } kind = Kind::none;
    int task = -1;      ///< for Kind::task; for Kind::phase the first unfinished task of that phase
    int required = 0;   ///< for Kind::gate: the current phase index that releases it; for
                        ///< Kind::phase: the phase (index) it depends on whose plans are not done
  };

  // construction (scheduler.cpp / graph_build.cpp)
  int add_task(TaskKind kind, std::string subject, int phase, int plan);
  int add_plan(WorkPlan plan, int phase);
  void link_plan(int plan);
  void build_phase(int phase_index, const WorkPhase& phase);
  void link_phases(const std::vector<WorkPhase>& phases);
  void apply_initial_state(const Workload& workload);

  // readiness (ready_rules.cpp)
  Blocker blocker(int t) const;
  Blocker execute_blocker(const Task& t) const;
  Blocker verify_phase_blocker(const Task& t) const;
  Blocker phase_work_blocker(int phase) const;
  void release_phase_parked(int phase);
  void hold_phase_dependents(int phase);
  bool satisfied(int t) const;
  void refresh(int t);
  void refresh_dependents(int t);
  void recompute_current();
  bool any_phase_unplanned() const;

  // priority and dispatch (priority.cpp)
  void compute_ranks();
  double task_rank(const Task& t) const;
  ReadyKey key_of(int t) const;
  void make_ready(int t);
  void unready(int t);
  void dispatch(std::vector<Action>& out);
  bool conflicts(int t) const;
  bool cap_reached(TaskKind kind) const;
  void start(int t, int slot, std::vector<Action>& out);
  void release_slot(Task& t);

  // outcomes and loops (loops.cpp)
  void on_succeeded(const Event& e, int t, std::vector<Action>& out);
  void on_failed(const Event& e, int t, std::vector<Action>& out);
  void on_checkpoint(const Event& e, int t, std::vector<Action>& out);
  void on_answered(const Event& e, int t, std::vector<Action>& out);
  std::string on_requested(int t); ///< empty, or why the request is refused
  void on_plans_written(int phase, const std::vector<WorkPlan>& plans, bool replace);
  /// Reconciles the successors of `plan`, whose SUMMARY reports deviations; `earlier_run`: it
  /// executed in an earlier run, and a successor that run reconciled already is left alone.
  void on_deviations(int plan, bool earlier_run = false);
  // edits of PLAN files during the run (plan_edits.cpp)
  void on_plans_edited(const Event& e);
  void apply_edit(int plan, const PlanEdit& edit);
  void apply_stored_edits();
  void take_frontmatter(int plan, const WorkPlan& wp);
  void drop_plan(int plan, const std::string& reason);
  void on_verify_phase(const Event& e, int t, std::vector<Action>& out);
  void escalate(int t, std::string reason, std::vector<Action>& out);
  void block(int t, std::string reason, std::vector<Action>& out);
  void reopen(int t);
  void mark_done(int t);
  void set_state(Task& t, TaskState s);
  void check_quiescent(std::vector<Action>& out);
  std::string stall_reason(int t) const;

  Config m_config;
  std::vector<WorkPlan> m_plans;
  std::vector<PlanInfo> m_plan_info;
  std::vector<PhaseInfo> m_phases;
  std::vector<Task> m_tasks;
  std::unordered_map<std::string, int> m_task_index; ///< lookup only, never iterated
  std::unordered_map<std::string, int> m_plan_index;
  std::unordered_map<std::string, std::vector<int>> m_waiting_for; ///< unknown dep id -> plans naming it
  std::vector<double> m_rank;
  std::vector<int> m_slots; ///< slot -> task or -1
  std::set<ReadyKey> m_ready;
  std::vector<std::vector<int>> m_gate_parked; ///< by required current phase index
  std::vector<std::vector<int>> m_phase_parked; ///< by the phase (index) they depend on (ROADMAP)
  std::vector<int> m_barrier_parked;           ///< waves policy
  std::vector<int> m_unresolved;               ///< executes naming a plan not yet known
  std::vector<int> m_holding;                  ///< executes running or waiting: they hold files
  std::map<int, PlanEdit> m_stored_edits;      ///< plan -> its PLAN file's edit, until its execute stops
  std::array<int, task_kind_count> m_running_by_kind{};
  int m_final = -1;
  int m_current = 0;
  int m_open = 0; ///< tasks running, waiting, deferred or escalated
  bool m_begun = false;
  bool m_finished = false;
};

} // namespace harness::sched
