// When a task may become ready: prerequisites per kind, ROADMAP phase dependencies, the phase
// gate, the research-ahead window and the waves barrier; and which tasks to look at again when
// one changes.
#include "harness/sched/scheduler.hpp"

#include <algorithm>

namespace harness::sched {

bool Scheduler::satisfied(int t) const {
  if (t < 0) return true;
  const auto s = m_tasks[static_cast<std::size_t>(t)].state;
  return s == TaskState::done || s == TaskState::dropped;
}

bool Scheduler::any_phase_unplanned() const {
  for (const auto& ph : m_phases)
    if (!ph.planned) return true;
  return false;
}

Scheduler::Blocker Scheduler::blocker(int index) const {
  const Task& t = m_tasks[static_cast<std::size_t>(index)];
  const auto task_blocker = [](int x) { return Blocker{.kind = Blocker::Kind::task, .task = x}; };
  // research and plan run for phases up to current + depth (research-ahead).
  const auto window = [&]() -> Blocker {
    const int required = t.phase - m_config.research_depth;
    if (m_current < required) return Blocker{.kind = Blocker::Kind::gate, .required = required};
    return {};
  };
  switch (t.kind) {
  case TaskKind::research: return window();
  case TaskKind::plan: {
    const int r = m_phases[static_cast<std::size_t>(t.phase)].research;
    if (!satisfied(r)) return task_blocker(r);
    return window();
  }
  case TaskKind::check_plans: {
    const int p = m_phases[static_cast<std::size_t>(t.phase)].plan;
    return satisfied(p) ? Blocker{} : task_blocker(p);
  }
  case TaskKind::execute: return execute_blocker(t);
  case TaskKind::verify_plan: {
    const int x = m_plan_info[static_cast<std::size_t>(t.plan)].execute;
    return satisfied(x) ? Blocker{} : task_blocker(x);
  }
  case TaskKind::verify_phase: return verify_phase_blocker(t);
  case TaskKind::verify_final:
    for (const auto& ph : m_phases)
      if (!satisfied(ph.verify)) return task_blocker(ph.verify);
    return {};
  case TaskKind::reconcile:
  case TaskKind::plan_gaps:
  case TaskKind::admin: return {};
  }
  return {};
}

Scheduler::Blocker Scheduler::execute_blocker(const Task& t) const {
  const auto& ph = m_phases[static_cast<std::size_t>(t.phase)];
  const auto& info = m_plan_info[static_cast<std::size_t>(t.plan)];
  if (info.held) return Blocker{.kind = Blocker::Kind::held};
  if (!satisfied(ph.check)) return Blocker{.kind = Blocker::Kind::task, .task = ph.check};
  if (info.needs_reconcile && !satisfied(info.reconcile))
    return Blocker{.kind = Blocker::Kind::task, .task = info.reconcile};
  for (int d : info.deps) {
    const int v = m_plan_info[static_cast<std::size_t>(d)].verify;
    if (!satisfied(v)) return Blocker{.kind = Blocker::Kind::task, .task = v};
  }
  // A dependency on a plan not written yet (its phase is unplanned) waits; one that can never
  // appear was reported by validation and is ignored.
  if (info.unresolved > 0 && any_phase_unplanned()) return Blocker{.kind = Blocker::Kind::unresolved};
  for (int d : ph.depends)
    if (const auto b = phase_work_blocker(d); b.kind != Blocker::Kind::none)
      return Blocker{.kind = Blocker::Kind::phase, .task = b.task, .required = d};
  if (m_config.gate_lookahead) {
    const int required = t.phase - *m_config.gate_lookahead;
    if (m_current < required) return Blocker{.kind = Blocker::Kind::gate, .required = required};
  }
  if (m_config.policy == Policy::waves) {
    // GSD's barrier: a wave starts once every plan of the earlier waves of its phase is verified.
    for (int q : ph.plans) {
      const auto& qi = m_plan_info[static_cast<std::size_t>(q)];
      if (qi.level < info.level && !satisfied(qi.verify)) return Blocker{.kind = Blocker::Kind::barrier};
    }
  }
  return {};
}

Scheduler::Blocker Scheduler::verify_phase_blocker(const Task& t) const { return phase_work_blocker(t.phase); }

Scheduler::Blocker Scheduler::phase_work_blocker(int phase) const {
  const auto& ph = m_phases[static_cast<std::size_t>(phase)];
  const auto task_blocker = [](int x) { return Blocker{.kind = Blocker::Kind::task, .task = x}; };
  if (!satisfied(ph.plan)) return task_blocker(ph.plan);
  if (!satisfied(ph.check)) return task_blocker(ph.check);
  if (!satisfied(ph.gaps)) return task_blocker(ph.gaps);
  for (int p : ph.plans) {
    const int v = m_plan_info[static_cast<std::size_t>(p)].verify;
    if (!satisfied(v)) return task_blocker(v);
  }
  return {};
}

void Scheduler::refresh(int index) {
  if (index < 0) return;
  Task& t = m_tasks[static_cast<std::size_t>(index)];
  if (!m_begun || t.parked) return;
  if (t.state != TaskState::pending && t.state != TaskState::ready) return;
  const auto b = blocker(index);
  if (b.kind == Blocker::Kind::none) {
    make_ready(index);
    return;
  }
  if (t.state == TaskState::ready) unready(index);
  switch (b.kind) {
  case Blocker::Kind::gate:
    t.parked = true;
    m_gate_parked[static_cast<std::size_t>(b.required)].push_back(index);
    break;
  case Blocker::Kind::barrier:
    t.parked = true;
    m_barrier_parked.push_back(index);
    break;
  case Blocker::Kind::unresolved:
    t.parked = true;
    m_unresolved.push_back(index);
    break;
  case Blocker::Kind::phase:
    t.parked = true;
    m_phase_parked[static_cast<std::size_t>(b.required)].push_back(index);
    break;
  default: break; // refreshed again when that task changes
  }
}

void Scheduler::refresh_dependents(int index) {
  const Task& t = m_tasks[static_cast<std::size_t>(index)];
  const auto release = [this](std::vector<int>& list) {
    auto items = std::move(list);
    list.clear();
    for (int x : items) m_tasks[static_cast<std::size_t>(x)].parked = false;
    for (int x : items) refresh(x);
  };
  auto phase_plans = [&](auto fn) {
    for (int p : m_phases[static_cast<std::size_t>(t.phase)].plans) fn(m_plan_info[static_cast<std::size_t>(p)]);
  };
  switch (t.kind) {
  case TaskKind::research: refresh(m_phases[static_cast<std::size_t>(t.phase)].plan); break;
  case TaskKind::plan: refresh(m_phases[static_cast<std::size_t>(t.phase)].check); break;
  case TaskKind::check_plans:
    phase_plans([&](const PlanInfo& i) { refresh(i.execute); });
    refresh(m_phases[static_cast<std::size_t>(t.phase)].verify);
    release_phase_parked(t.phase);
    break;
  case TaskKind::reconcile: refresh(m_plan_info[static_cast<std::size_t>(t.plan)].execute); break;
  case TaskKind::execute: refresh(m_plan_info[static_cast<std::size_t>(t.plan)].verify); break;
  case TaskKind::verify_plan: {
    for (int p : m_plan_info[static_cast<std::size_t>(t.plan)].dependents) refresh(m_plan_info[static_cast<std::size_t>(p)].execute);
    refresh(m_phases[static_cast<std::size_t>(t.phase)].verify);
    release_phase_parked(t.phase);
    if (m_config.policy == Policy::waves) release(m_barrier_parked);
    break;
  }
  case TaskKind::verify_phase:
    recompute_current();
    refresh(m_final);
    if (m_config.policy == Policy::waves) release(m_barrier_parked);
    break;
  case TaskKind::plan_gaps:
    refresh(m_phases[static_cast<std::size_t>(t.phase)].verify);
    release_phase_parked(t.phase);
    break;
  case TaskKind::verify_final:
  case TaskKind::admin: break;
  }
}

void Scheduler::release_phase_parked(int phase) {
  // Checked only while something waits on the phase: without ROADMAP dependencies the lists stay
  // empty and this costs one comparison.
  auto& list = m_phase_parked[static_cast<std::size_t>(phase)];
  if (list.empty() || phase_work_blocker(phase).kind != Blocker::Kind::none) return;
  auto items = std::move(list);
  list.clear();
  for (int x : items) m_tasks[static_cast<std::size_t>(x)].parked = false;
  for (int x : items) refresh(x);
}

void Scheduler::hold_phase_dependents(int phase) {
  // The phase has work again (gaps found, gap plans written): executes of the phases that depend
  // on it that have not started wait for it once more; those running or done stay as they are.
  for (int dependent : m_phases[static_cast<std::size_t>(phase)].dependents)
    for (int p : m_phases[static_cast<std::size_t>(dependent)].plans) refresh(m_plan_info[static_cast<std::size_t>(p)].execute);
}

void Scheduler::recompute_current() {
  while (m_current < static_cast<int>(m_phases.size()) &&
         satisfied(m_phases[static_cast<std::size_t>(m_current)].verify))
    ++m_current;
  const auto limit = std::min<std::size_t>(static_cast<std::size_t>(m_current) + 1, m_gate_parked.size());
  for (std::size_t r = 0; r < limit; ++r) {
    if (m_gate_parked[r].empty()) continue;
    auto items = std::move(m_gate_parked[r]);
    m_gate_parked[r].clear();
    for (int x : items) m_tasks[static_cast<std::size_t>(x)].parked = false;
    for (int x : items) refresh(x);
  }
}

} // namespace harness::sched
