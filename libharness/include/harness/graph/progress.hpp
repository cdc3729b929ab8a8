#pragma once
// Progress of a spec derived from the files present (no database needed): which plans are
// planned, executed, verified; what could start now; what blocks.

#include "harness/graph/plan_graph.hpp"
#include "harness/spec/spec.hpp"

#include <optional>
#include <string>
#include <vector>

namespace harness::graph {

enum class PlanState { planned, executed, failed, verified, gaps_found, human_needed };
std::string_view to_string(PlanState s);

struct PlanProgress {
  std::string id;
  std::string title;
  PlanState state = PlanState::planned;
  bool ready = false; ///< could start now: dependencies verified and the phase gate open
  bool running = false; ///< a task of it runs right now (mark_running)
  /// Its phase's plans wait on their plan check (mark_unchecked): a checker sent them back, or
  /// a run was killed before the checker passed them. Not ready whatever its dependencies say.
  bool unchecked = false;
  /// Why it is not ready although it might look so: its phase depends (ROADMAP `Depends on`) on
  /// phases whose plans are not all planned and verified yet, as the scheduler holds it
  /// ("phase 02's plans", "the plans of phases 02, 03"); empty when nothing of that kind holds it.
  std::string waits_for = {};
  /// Whose order that is: "ROADMAP Depends on", or "inserted before its phase" for phases GSD
  /// inserted (spec::RoadmapPhase::inserted_before), or both.
  std::string waits_why = {};
  /// The last run gave up on a task of it (STATUS.md `blocked`) and it is not done since: that
  /// task and why ("execute:01-02: crashed: ..."); empty otherwise.
  std::string blocked = {};
  spec::PhaseNumber phase{};
};

struct PhaseProgress {
  spec::PhaseNumber number;
  std::string name;
  /// not planned | planned | executing | executed | verified | gaps_found | human_needed.
  /// `verified` only by a VERIFICATION that covers the phase's plans now; a phase whose plans are
  /// all verified but whose own verification has not run (or no longer holds) is `executed`.
  std::string state;
  int plans = 0;
  int executed = 0;
  int verified = 0;
  /// Earlier phases its ROADMAP entry depends on (`Depends on`), as the scheduler counts them.
  std::vector<spec::PhaseNumber> depends_on = {};
  /// Of depends_on, the phases GSD inserted before it (no `Depends on` line names them).
  std::vector<spec::PhaseNumber> inserted_before = {};
  /// Verified, while phases of depends_on are not: its work was done without theirs (an older
  /// harness that did not hold it back, a `Depends on` added since). Nothing runs it again; a
  /// reader is told (review EE F4).
  std::vector<spec::PhaseNumber> verified_before = {};
};

struct Progress {
  std::string spec_name;
  std::vector<PhaseProgress> phases;
  std::vector<PlanProgress> plans;
  int plans_total = 0;
  int plans_executed = 0;
  int plans_verified = 0;
  double percent = 0;               ///< verified / total
  std::vector<std::string> ready;   ///< plan ids
  std::vector<std::string> blockers;///< human-readable, one cause each
  /// Tasks the last run held only because what they wait on is blocked: counted, not listed
  /// among the blockers (those name the causes).
  int tasks_waiting_on_blockers = 0;
  /// Phase and final verifications still to run, each with why: "phase 02: every plan is
  /// verified; ...", "final: again, its report no longer holds: 03-01 added since".
  std::vector<std::string> verifications_due;
  bool complete = false;            ///< every plan verified and a current final verification passed
  /// "pid 4242, docs/specs/SPC-002-x, since 2026-...": an orchestrate running in the project right
  /// now. Set by the caller (the graph module reads no run state); empty when none runs.
  std::string running;
  /// The same run as data, for `status --json`'s `running_orchestrate` (`running` stays text).
  struct RunningOrchestrate {
    long pid = 0;           ///< 0: the lock's holder is unknown
    std::string spec;       ///< the spec directory it runs, as given to it; empty when not recorded yet
    std::string started_at; ///< ISO 8601; empty when not recorded yet
  };
  std::optional<RunningOrchestrate> running_orchestrate;
  /// Why what the running orchestrate has under way could not be read (its store refused: an older
  /// harness's run, say): plans shown ready may be running. Set by the caller; empty otherwise.
  std::string running_tasks_unread;
  /// Why the run state (.orchestration/) cannot be read by this user (store::unreadable_state):
  /// what runs and what waits for an answer is not shown. Empty when it can.
  std::string state_unreadable;
  /// Workers a killed run left running (no orchestrate runs, their processes do): they go on and
  /// commit until the next run stops them. "execute:01-01 (pid 4242)"; set by the caller.
  std::vector<std::string> left_running;
  /// Checkpoints waiting for a person's answer, each with the command that answers it. Set by the
  /// caller, like `running`.
  std::vector<std::string> waiting;
};

/// `lookahead`: plans of phase P may start while every phase <= P-1-lookahead is verified;
/// nullopt ('unlimited'): no phase gate, only dependencies. As in the scheduler, a plan also waits
/// until every phase its phase depends on in ROADMAP.md has plans and all of them are verified.
Progress compute_progress(const spec::Spec& spec, const PlanGraph& graph, std::optional<int> lookahead = 1);

/// Marks the plans whose execute or verify-plan task is among `task_ids` (what a running
/// orchestrate has under way) as running: no longer "ready now", shown as running instead.
void mark_running(Progress& p, const std::vector<std::string>& task_ids);

/// Marks the plans of `phases` as waiting on their plan check (orchestrate's planning marks,
/// orchestrator::show_run_state): plans nobody approved do not run, so they are not
/// "ready now" either; nor are the plans of phases that depend on them (ROADMAP `Depends on`).
void mark_unchecked(Progress& p, const std::vector<spec::PhaseNumber>& phases);

/// Plans whose verify-plan checkpoint waits for a person (`verify-plan:ID` among `task_ids`, the
/// tasks of open checkpoints): their checks ran and passed, so the verification due says it waits
/// for that answer, not "its checks not run".
void mark_awaiting_answer(Progress& p, const std::vector<std::string>& task_ids);

std::string progress_text(const Progress& p);
/// "5 more tasks wait on these" below the blockers; empty when none waits.
std::string waiting_on_blockers_line(const Progress& p);
std::string progress_json(const Progress& p);

} // namespace harness::graph
