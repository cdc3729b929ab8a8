// PLAN files edited, added or removed while the run goes on (EventType::plans_edited): a plan
// that has not started is taken as it is now written; one that runs keeps what it started with
// until it stops, and runs again (if it does) as now written.
#include "harness/sched/scheduler.hpp"

#include <algorithm>
#include <array>

namespace harness::sched {
namespace {

constexpr std::array<std::string_view, 6> fate_names{"applies", "next_attempt", "has_run", "joins", "phase_verified",
                                                     "phase_not_open"};

/// An execute in these states has a worker (or will have one for the same attempt): its plan
/// stays as it started.
bool in_flight(TaskState s) {
  return s == TaskState::running || s == TaskState::waiting || s == TaskState::deferred || s == TaskState::human;
}

} // namespace

std::string_view to_string(EditFate f) { return fate_names[static_cast<std::size_t>(f)]; }

EditFate Scheduler::edit_fate(std::string_view id, const spec::PhaseNumber& phase) const {
  if (auto it = m_plan_index.find(std::string(id)); it != m_plan_index.end()) {
    const auto state = m_tasks[static_cast<std::size_t>(m_plan_info[static_cast<std::size_t>(it->second)].execute)].state;
    if (in_flight(state)) return EditFate::next_attempt;
    return state == TaskState::done ? EditFate::has_run : EditFate::applies;
  }
  auto ph = std::ranges::find(m_phases, phase, &PhaseInfo::number);
  if (ph == m_phases.end() || (ph->plan >= 0 && !satisfied(ph->plan))) return EditFate::phase_not_open;
  const auto verify = m_tasks[static_cast<std::size_t>(ph->verify)].state;
  return verify == TaskState::pending || verify == TaskState::ready ? EditFate::joins : EditFate::phase_verified;
}

void Scheduler::on_plans_edited(const Event& e) {
  auto edit_of = [&](const std::string& id, PlanEdit edit) {
    auto it = m_plan_index.find(id);
    if (it == m_plan_index.end()) return;
    const int p = it->second;
    // A phase being planned again (a revision) takes its plans from the planner's result.
    const auto& ph = m_phases[static_cast<std::size_t>(m_tasks[static_cast<std::size_t>(m_plan_info[static_cast<std::size_t>(p)].execute)].phase)];
    if (ph.plan >= 0 && !satisfied(ph.plan)) return;
    switch (edit_fate(id, m_plans[static_cast<std::size_t>(p)].phase)) {
    case EditFate::applies:
      m_stored_edits.erase(p);
      apply_edit(p, edit);
      break;
    case EditFate::next_attempt:
    case EditFate::has_run: m_stored_edits[p] = std::move(edit); break;
    default: break;
    }
  };
  for (const auto& wp : e.plans) {
    if (m_plan_index.contains(wp.id)) {
      edit_of(wp.id, PlanEdit{PlanEdit::What::replace, wp});
      continue;
    }
    if (edit_fate(wp.id, wp.phase) != EditFate::joins) continue;
    const auto ph = std::ranges::find(m_phases, wp.phase, &PhaseInfo::number);
    const int p = add_plan(wp, static_cast<int>(ph - m_phases.begin()));
    m_plans[static_cast<std::size_t>(p)].executed = m_plans[static_cast<std::size_t>(p)].verified = false;
    refresh(m_plan_info[static_cast<std::size_t>(p)].execute);
    refresh(ph->verify);
  }
  for (const auto& id : e.removed) edit_of(id, PlanEdit{PlanEdit::What::remove, {}});
  for (const auto& id : e.held) edit_of(id, PlanEdit{PlanEdit::What::hold, {}});
  compute_ranks();
  // A plan that named an unknown one may name a plan added now, or none any more.
  auto unresolved = std::move(m_unresolved);
  m_unresolved.clear();
  for (int x : unresolved) m_tasks[static_cast<std::size_t>(x)].parked = false;
  for (int x : unresolved) refresh(x);
}

void Scheduler::apply_stored_edits() {
  if (m_stored_edits.empty()) return;
  std::vector<int> due;
  for (const auto& [p, edit] : m_stored_edits) {
    const auto state = m_tasks[static_cast<std::size_t>(m_plan_info[static_cast<std::size_t>(p)].execute)].state;
    if (!in_flight(state) && state != TaskState::done) due.push_back(p);
  }
  if (due.empty()) return;
  for (int p : due) {
    auto edit = std::move(m_stored_edits.at(p));
    m_stored_edits.erase(p);
    apply_edit(p, edit);
  }
  compute_ranks();
}

void Scheduler::apply_edit(int p, const PlanEdit& edit) {
  auto& info = m_plan_info[static_cast<std::size_t>(p)];
  switch (edit.what) {
  case PlanEdit::What::remove: drop_plan(p, "its PLAN file was removed during the run"); break;
  case PlanEdit::What::hold:
    info.held = true;
    refresh(info.execute); // a ready execute is not any more
    break;
  case PlanEdit::What::replace: take_frontmatter(p, edit.plan); break;
  }
}

void Scheduler::take_frontmatter(int p, const WorkPlan& wp) {
  auto& plan = m_plans[static_cast<std::size_t>(p)];
  auto& info = m_plan_info[static_cast<std::size_t>(p)];
  plan = with_frontmatter(plan, wp); // what the run knows of its execution stays
  link_plan(p);
  info.held = false;
  if (info.dropped) { // removed, then written again
    info.dropped = false;
    for (int x : {info.execute, info.verify}) {
      set_state(m_tasks[static_cast<std::size_t>(x)], TaskState::pending);
      m_tasks[static_cast<std::size_t>(x)].reason.clear();
    }
    refresh(info.verify);
    refresh(m_phases[static_cast<std::size_t>(m_tasks[static_cast<std::size_t>(info.execute)].phase)].verify);
  }
  refresh(info.execute);
}

void Scheduler::drop_plan(int p, const std::string& reason) {
  auto& info = m_plan_info[static_cast<std::size_t>(p)];
  if (info.dropped) return;
  info.dropped = true;
  info.held = false;
  for (int x : {info.execute, info.verify, info.reconcile}) {
    if (x < 0) continue;
    Task& k = m_tasks[static_cast<std::size_t>(x)];
    if (in_flight(k.state)) continue; // a reconcile under way ends by itself; its execute then waits on nothing
    if (k.state == TaskState::ready) m_ready.erase(key_of(x));
    set_state(k, TaskState::dropped);
    k.reason = reason;
  }
  refresh_dependents(info.verify);
}

} // namespace harness::sched
