// Outcomes: success per kind, the revision and gap-closure loops, reconcile after deviations,
// failures and retries, checkpoints and human answers, and the end of the run.
#include "harness/sched/scheduler.hpp"

#include <algorithm>
#include <set>

namespace harness::sched {
namespace {

Action make_action(ActionType type, const Task& t, std::string reason) {
  Action a;
  a.type = type;
  a.task = t.id;
  a.kind = t.kind;
  a.subject = t.subject;
  a.slot = t.slot;
  a.reason = std::move(reason);
  return a;
}

/// "1 attempt", "2 attempts".
std::string attempts(int n) { return std::to_string(n) + (n == 1 ? " attempt" : " attempts"); }

} // namespace

void Scheduler::mark_done(int t) {
  Task& k = m_tasks[static_cast<std::size_t>(t)];
  set_state(k, TaskState::done);
  k.reason.clear();
  refresh_dependents(t);
}

void Scheduler::reopen(int t) {
  if (t < 0) return;
  Task& k = m_tasks[static_cast<std::size_t>(t)];
  if (k.state == TaskState::ready) m_ready.erase(key_of(t));
  set_state(k, TaskState::pending);
  k.parked = false;
  refresh_dependents(t); // dependents that were ready are not any more
  refresh(t);
}

void Scheduler::block(int t, std::string reason, std::vector<Action>& out) {
  Task& k = m_tasks[static_cast<std::size_t>(t)];
  if (k.state == TaskState::ready) m_ready.erase(key_of(t));
  release_slot(k);
  std::erase(m_holding, t);
  set_state(k, TaskState::blocked);
  k.reason = std::move(reason);
  out.push_back(make_action(ActionType::blocked, k, k.reason));
}

void Scheduler::escalate(int t, std::string reason, std::vector<Action>& out) {
  Task& k = m_tasks[static_cast<std::size_t>(t)];
  release_slot(k);
  set_state(k, TaskState::human);
  k.reason = std::move(reason);
  out.push_back(make_action(ActionType::ask_human, k, k.reason));
}

void Scheduler::on_succeeded(const Event& e, int t, std::vector<Action>& out) {
  Task& k = m_tasks[static_cast<std::size_t>(t)];
  release_slot(k);
  std::erase(m_holding, t);
  auto& ph = m_phases[static_cast<std::size_t>(std::max(k.phase, 0))];
  switch (k.kind) {
  case TaskKind::plan:
    ph.planned = true;
    mark_done(t);
    on_plans_written(k.phase, e.plans, true);
    break;
  case TaskKind::plan_gaps:
    mark_done(t);
    on_plans_written(k.phase, e.plans, false);
    break;
  case TaskKind::check_plans:
    if (e.verdict != Verdict::revise) {
      ph.revisions = 0; // the cycle ended: plans a later pass writes get their own rounds
      mark_done(t);
    } else if (++ph.revisions > m_config.max_revisions) {
      // The rounds an earlier run spent count too: the plans went back this many times in all.
      escalate(t, "plans sent back for revision " + std::to_string(ph.revisions - 1) + " times; a human decides", out);
    } else {
      set_state(k, TaskState::pending);
      reopen(ph.plan); // the planner runs again in revision mode, then the checker again
    }
    break;
  case TaskKind::execute:
    m_plans[static_cast<std::size_t>(k.plan)].executed = true;
    mark_done(t);
    if (e.has_deviations) {
      m_plans[static_cast<std::size_t>(k.plan)].has_deviations = true;
      on_deviations(k.plan);
    }
    break;
  case TaskKind::reconcile:
    mark_done(t);
    // The plan as reconciled: its new frontmatter (what it writes, what it waits for) replaces
    // the old before its execute is ready.
    if (!e.plans.empty()) on_plans_written(k.phase, e.plans, false);
    break;
  case TaskKind::verify_phase:
  case TaskKind::verify_final: on_verify_phase(e, t, out); break;
  default: mark_done(t); break;
  }
}

void Scheduler::on_verify_phase(const Event& e, int t, std::vector<Action>& out) {
  Task& k = m_tasks[static_cast<std::size_t>(t)];
  if (e.verdict == Verdict::passed || e.verdict == Verdict::revise) {
    if (k.kind == TaskKind::verify_phase) m_phases[static_cast<std::size_t>(k.phase)].gap_rounds = 0;
    mark_done(t);
    return;
  }
  if (e.verdict == Verdict::human_needed || k.kind == TaskKind::verify_final) {
    escalate(t, std::string(to_string(e.verdict)) + (e.detail.empty() ? "" : ": " + e.detail), out);
    return;
  }
  auto& ph = m_phases[static_cast<std::size_t>(k.phase)];
  if (ph.gap_rounds >= m_config.max_gap_rounds) {
    escalate(t, "gaps remain after " + std::to_string(ph.gap_rounds) + " gap-closure rounds", out);
    return;
  }
  ++ph.gap_rounds;
  if (ph.gaps < 0) {
    ph.gaps = add_task(TaskKind::plan_gaps, k.subject, k.phase, -1);
  } else {
    Task& g = m_tasks[static_cast<std::size_t>(ph.gaps)];
    set_state(g, TaskState::pending);
    g.failures = 0;
  }
  set_state(m_tasks[static_cast<std::size_t>(t)], TaskState::pending);
  refresh(ph.gaps);
  refresh(t);
  hold_phase_dependents(m_tasks[static_cast<std::size_t>(t)].phase);
}

void Scheduler::on_plans_written(int phase, const std::vector<WorkPlan>& plans, bool replace) {
  auto& ph = m_phases[static_cast<std::size_t>(phase)];
  std::set<std::string> written;
  std::vector<int> touched;
  for (const auto& wp : plans) {
    written.insert(wp.id);
    auto it = m_plan_index.find(wp.id);
    if (it == m_plan_index.end()) {
      touched.push_back(add_plan(wp, phase));
      continue;
    }
    const int p = it->second;
    auto& info = m_plan_info[static_cast<std::size_t>(p)];
    if (m_plans[static_cast<std::size_t>(p)].phase != ph.number || (satisfied(info.execute) && !info.dropped)) continue;
    // A revision rewrote a plan that has not run: take the new frontmatter.
    m_plans[static_cast<std::size_t>(p)] = wp;
    m_plans[static_cast<std::size_t>(p)].phase = ph.number;
    link_plan(p);
    if (info.dropped) {
      info.dropped = false;
      set_state(m_tasks[static_cast<std::size_t>(info.execute)], TaskState::pending);
      set_state(m_tasks[static_cast<std::size_t>(info.verify)], TaskState::pending);
    }
    touched.push_back(p);
  }
  std::vector<int> dropped;
  if (replace)
    for (int p : ph.plans) {
      auto& info = m_plan_info[static_cast<std::size_t>(p)];
      if (written.contains(m_plans[static_cast<std::size_t>(p)].id) || info.dropped || satisfied(info.execute)) continue;
      info.dropped = true;
      for (int x : {info.execute, info.verify}) {
        Task& k = m_tasks[static_cast<std::size_t>(x)];
        if (k.state == TaskState::ready) m_ready.erase(key_of(x));
        set_state(k, TaskState::dropped);
        k.reason = "dropped by a revision of phase " + spec::to_string(ph.number);
      }
      dropped.push_back(p);
    }
  compute_ranks();
  for (int p : touched) refresh(m_plan_info[static_cast<std::size_t>(p)].execute);
  for (int p : dropped) refresh_dependents(m_plan_info[static_cast<std::size_t>(p)].verify);
  auto unresolved = std::move(m_unresolved);
  m_unresolved.clear();
  for (int x : unresolved) m_tasks[static_cast<std::size_t>(x)].parked = false;
  for (int x : unresolved) refresh(x);
  refresh(ph.verify);
  hold_phase_dependents(phase);
}

void Scheduler::on_deviations(int plan, bool earlier_run) {
  // Successors: plans that depend on it, and the next plan of its phase ("follows").
  std::vector<int> successors = m_plan_info[static_cast<std::size_t>(plan)].dependents;
  const auto& list = m_phases[static_cast<std::size_t>(m_tasks[static_cast<std::size_t>(m_plan_info[static_cast<std::size_t>(plan)].execute)].phase)].plans;
  if (auto pos = std::ranges::find(list, plan); pos != list.end() && pos + 1 != list.end()) successors.push_back(*(pos + 1));
  std::ranges::sort(successors);
  successors.erase(std::unique(successors.begin(), successors.end()), successors.end());
  for (int s : successors) {
    auto& info = m_plan_info[static_cast<std::size_t>(s)];
    const auto state = m_tasks[static_cast<std::size_t>(info.execute)].state;
    if (state != TaskState::pending && state != TaskState::ready) continue;
    if (earlier_run && m_plans[static_cast<std::size_t>(s)].reconciled) continue; // done by that run
    info.needs_reconcile = true;
    if (info.reconcile < 0) {
      info.reconcile = add_task(TaskKind::reconcile, m_plans[static_cast<std::size_t>(s)].id,
                                m_tasks[static_cast<std::size_t>(info.execute)].phase, s);
    } else if (satisfied(info.reconcile)) {
      set_state(m_tasks[static_cast<std::size_t>(info.reconcile)], TaskState::pending);
    }
    refresh(info.reconcile);
    refresh(info.execute);
  }
}

void Scheduler::on_failed(const Event& e, int t, std::vector<Action>& out) {
  Task& k = m_tasks[static_cast<std::size_t>(t)];
  release_slot(k);
  std::erase(m_holding, t);
  const auto what = std::string(to_string(e.failure)) + (e.detail.empty() ? "" : ": " + e.detail);
  if (e.failure == FailureClass::rate_limited) {
    set_state(k, TaskState::deferred);
    out.push_back(make_action(ActionType::defer, k, what));
    return;
  }
  if (e.failure == FailureClass::refused) {
    block(t, "refused by a human" + (e.detail.empty() ? std::string() : ": " + e.detail), out);
    return;
  }
  if (e.failure == FailureClass::no_retry) {
    ++k.failures;
    // A verification has no worker: its detail is the orchestrator's whole reason.
    const bool verify = k.kind == TaskKind::verify_plan || k.kind == TaskKind::verify_phase || k.kind == TaskKind::verify_final;
    block(t, (e.detail.empty() ? std::string("failed") : e.detail) +
                 (verify ? "" : " (not retried: a retry cannot help)"), out);
    return;
  }
  if (k.kind == TaskKind::verify_plan && e.failure == FailureClass::verification_failed) {
    // The plan's work did not pass: execute it again (spending an execute attempt).
    const int x = m_plan_info[static_cast<std::size_t>(k.plan)].execute;
    Task& xk = m_tasks[static_cast<std::size_t>(x)];
    if (++xk.failures >= m_config.max_attempts) {
      set_state(xk, TaskState::pending);
      block(x, "verification failed after " + attempts(xk.failures) + ": " + what, out);
      block(t, "its execute is blocked", out);
      return;
    }
    set_state(k, TaskState::pending);
    reopen(x);
    return;
  }
  if (++k.failures >= m_config.max_attempts) {
    block(t, what + " (after " + attempts(k.failures) + ")", out);
    return;
  }
  set_state(k, TaskState::pending);
  refresh(t);
}

void Scheduler::on_checkpoint(const Event& e, int t, std::vector<Action>& out) {
  Task& k = m_tasks[static_cast<std::size_t>(t)];
  set_state(k, TaskState::waiting);
  if (!e.worker_alive) release_slot(k); // an execute keeps holding its files meanwhile
  out.push_back(make_action(ActionType::ask_human, k, "checkpoint" + (e.detail.empty() ? "" : ": " + e.detail)));
}

void Scheduler::on_answered(const Event& e, int t, std::vector<Action>& out) {
  Task& k = m_tasks[static_cast<std::size_t>(t)];
  if (e.answer == Answer::refused) {
    block(t, "refused by a human" + (e.detail.empty() ? "" : ": " + e.detail), out);
    return;
  }
  if (k.state == TaskState::human) { // an escalation accepted as it stands
    // The person ended the loop: a later cycle (plans written again, a redo's new gaps) gets its
    // own rounds.
    if (k.kind == TaskKind::check_plans) m_phases[static_cast<std::size_t>(k.phase)].revisions = 0;
    if (k.kind == TaskKind::verify_phase) m_phases[static_cast<std::size_t>(k.phase)].gap_rounds = 0;
    mark_done(t);
    return;
  }
  if (k.slot >= 0) {
    set_state(k, TaskState::running);
    out.push_back(make_action(ActionType::resume, k, ""));
    return;
  }
  k.continuation = true;
  set_state(k, TaskState::pending);
  make_ready(t);
}

void Scheduler::check_quiescent(std::vector<Action>& out) {
  if (!m_begun || m_finished || m_open > 0 || !m_ready.empty()) return;
  m_finished = true;
  const bool complete = satisfied(m_final);
  for (std::size_t t = 0; t < m_tasks.size(); ++t) {
    Task& k = m_tasks[t];
    if (k.state != TaskState::pending) continue;
    k.reason = stall_reason(static_cast<int>(t));
    set_state(k, TaskState::blocked);
    out.push_back(make_action(ActionType::blocked, k, k.reason));
  }
  Action a;
  a.type = ActionType::finished;
  a.reason = complete ? "complete" : "blocked";
  out.push_back(std::move(a));
}

std::string Scheduler::on_requested(int t) {
  Task& k = m_tasks[static_cast<std::size_t>(t)];
  switch (k.state) {
  case TaskState::pending:
  case TaskState::ready:
    if (k.requested) return {};
    if (k.state == TaskState::ready) m_ready.erase(key_of(t));
    k.requested = true;
    if (k.state == TaskState::ready) m_ready.insert(key_of(t));
    return {};
  case TaskState::blocked:
    // A person asked again: the attempts spent before do not count against this try.
    k.requested = true;
    k.failures = 0;
    k.reason.clear();
    reopen(t);
    return {};
  default:
    return "task is " + std::string(to_string(k.state));
  }
}

std::string Scheduler::why_waiting(std::string_view id) const {
  auto it = m_task_index.find(std::string(id));
  if (it == m_task_index.end()) return {};
  const Task& k = m_tasks[static_cast<std::size_t>(it->second)];
  if (k.state == TaskState::ready) return "ready: waits for a free slot or for a running task that writes the same files";
  if (k.state != TaskState::pending) return std::string(to_string(k.state)) + (k.reason.empty() ? "" : ": " + k.reason);
  return stall_reason(it->second);
}

std::string Scheduler::stall_reason(int t) const {
  const auto b = blocker(t);
  switch (b.kind) {
  case Blocker::Kind::task: {
    const Task& x = m_tasks[static_cast<std::size_t>(b.task)];
    return "waits on " + x.id + " (" + std::string(to_string(x.state)) + ")";
  }
  case Blocker::Kind::unresolved: return "depends on a plan that was never written";
  case Blocker::Kind::phase: {
    // A plan not executed yet is named by its execute, not by the verification after it.
    int next = b.task;
    if (const Task& v = m_tasks[static_cast<std::size_t>(next)]; v.kind == TaskKind::verify_plan && v.state == TaskState::pending &&
                                                                 !satisfied(m_plan_info[static_cast<std::size_t>(v.plan)].execute))
      next = m_plan_info[static_cast<std::size_t>(v.plan)].execute;
    const Task& x = m_tasks[static_cast<std::size_t>(next)];
    // "waits on" like a task dependency: `status` counts such tasks behind their cause.
    return "waits on phase " + spec::to_string(m_phases[static_cast<std::size_t>(b.required)].number) +
           "'s plans (ROADMAP: Depends on): " + x.id + " (" + std::string(to_string(x.state)) + ")";
  }
  case Blocker::Kind::gate: return "phase gate: waits for phase verification";
  case Blocker::Kind::barrier: return "wave barrier";
  case Blocker::Kind::held: return "held: its PLAN file does not validate since the run read it (an edit of it, or of a plan it names)";
  case Blocker::Kind::none: break;
  }
  return "not reached";
}

} // namespace harness::sched
