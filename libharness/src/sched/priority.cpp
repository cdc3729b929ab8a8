// Priority (class, then longest remaining critical path, then id) and dispatch into slots.
#include "harness/sched/scheduler.hpp"

#include "harness/util/glob.hpp"

#include <algorithm>
#include <tuple>

namespace harness::sched {

bool Scheduler::ReadyKey::operator<(const ReadyKey& o) const {
  return std::tie(cls, later, neg_rank, id) < std::tie(o.cls, o.later, o.neg_rank, o.id);
}

void Scheduler::compute_ranks() {
  const std::size_t n = m_plans.size();
  // Kahn over resolved dependencies, in plan index order so the result is stable; plans inside a
  // cycle never come out and keep their own weight as rank.
  std::vector<int> indegree(n, 0);
  auto deps = [&](std::size_t p) -> const std::vector<int>& { return m_plan_info[p].deps; };
  auto dependents = [&](std::size_t p) -> const std::vector<int>& { return m_plan_info[p].dependents; };
  for (std::size_t p = 0; p < n; ++p) indegree[p] = static_cast<int>(deps(p).size());
  std::vector<int> order;
  order.reserve(n);
  for (std::size_t p = 0; p < n; ++p)
    if (indegree[p] == 0) order.push_back(static_cast<int>(p));
  for (std::size_t i = 0; i < order.size(); ++i)
    for (int q : dependents(static_cast<std::size_t>(order[i])))
      if (--indegree[static_cast<std::size_t>(q)] == 0) order.push_back(q);
  for (std::size_t p = 0; p < n; ++p) {
    m_rank[p] = m_plans[p].estimate.value_or(m_config.default_estimate) + m_config.verify_estimate;
    m_plan_info[p].level = 0;
  }
  for (int p : order)
    for (int d : deps(static_cast<std::size_t>(p)))
      if (m_plans[static_cast<std::size_t>(d)].phase == m_plans[static_cast<std::size_t>(p)].phase)
        m_plan_info[static_cast<std::size_t>(p)].level =
            std::max(m_plan_info[static_cast<std::size_t>(p)].level, m_plan_info[static_cast<std::size_t>(d)].level + 1);
  // Remaining path in the constraint graph that is really enforced: dependency edges, and with a
  // finite gate K the implicit edge "phase P verified -> plans of phases >= P+1+K". So a plan's
  // rank also counts the work its phase's verification unlocks; without it the scheduler starves
  // the phase the gate waits on. ROADMAP phase dependencies add "every plan of phase D verified ->
  // plans of the phases that depend on D" (no phase verification on that path). Phases are
  // processed from the last, reverse-topologically inside.
  std::vector<int> reverse(order.rbegin(), order.rend());
  auto phase_of = [&](int p) { return m_tasks[static_cast<std::size_t>(m_plan_info[static_cast<std::size_t>(p)].execute)].phase; };
  std::ranges::stable_sort(reverse, std::greater<>{}, phase_of);
  const int phases = static_cast<int>(m_phases.size());
  std::vector<double> suffix_max(static_cast<std::size_t>(phases) + 2, 0); // max rank in phases >= i
  std::vector<double> phase_max(static_cast<std::size_t>(phases), 0);      // max rank in phase i
  double gate_rank = 0;
  int current = phases;
  for (int p : reverse) {
    const int ph = phase_of(p);
    if (ph != current) {
      for (int i = current - 1; i >= ph; --i) suffix_max[static_cast<std::size_t>(i)] = std::max(suffix_max[static_cast<std::size_t>(i)], suffix_max[static_cast<std::size_t>(i) + 1]);
      current = ph;
      gate_rank = 0;
      if (m_config.gate_lookahead) {
        const auto unlocked = static_cast<std::size_t>(std::clamp(ph + 1 + *m_config.gate_lookahead, 0, phases));
        gate_rank = m_config.verify_phase_estimate + suffix_max[unlocked];
      }
      // Dependents are later phases: their plans are ranked already.
      for (int q : m_phases[static_cast<std::size_t>(ph)].dependents) gate_rank = std::max(gate_rank, phase_max[static_cast<std::size_t>(q)]);
    }
    const auto u = static_cast<std::size_t>(p);
    double best = gate_rank;
    for (int q : dependents(u)) best = std::max(best, m_rank[static_cast<std::size_t>(q)]);
    m_rank[u] += best;
    suffix_max[static_cast<std::size_t>(ph)] = std::max(suffix_max[static_cast<std::size_t>(ph)], m_rank[u]);
    phase_max[static_cast<std::size_t>(ph)] = std::max(phase_max[static_cast<std::size_t>(ph)], m_rank[u]);
  }
  // Keys of ready tasks may have changed.
  std::vector<int> ready;
  for (const auto& k : m_ready) ready.push_back(k.task);
  m_ready.clear();
  for (int t : ready) m_ready.insert(key_of(t));
}

double Scheduler::task_rank(const Task& t) const {
  if (t.plan >= 0) return m_rank[static_cast<std::size_t>(t.plan)];
  if (t.phase >= 0) {
    // A phase task leads to every plan of its phase: its remaining path is the longest of theirs.
    double best = 0;
    for (int p : m_phases[static_cast<std::size_t>(t.phase)].plans) best = std::max(best, m_rank[static_cast<std::size_t>(p)]);
    return best;
  }
  return 0;
}

Scheduler::ReadyKey Scheduler::key_of(int t) const {
  const Task& k = m_tasks[static_cast<std::size_t>(t)];
  return ReadyKey{priority_class(k.kind), !k.requested, -task_rank(k), k.id, t};
}

void Scheduler::make_ready(int t) {
  Task& k = m_tasks[static_cast<std::size_t>(t)];
  if (k.state == TaskState::ready) return;
  set_state(k, TaskState::ready);
  m_ready.insert(key_of(t));
}

void Scheduler::unready(int t) {
  Task& k = m_tasks[static_cast<std::size_t>(t)];
  if (k.state != TaskState::ready) return;
  m_ready.erase(key_of(t));
  set_state(k, TaskState::pending);
}

bool Scheduler::cap_reached(TaskKind kind) const {
  auto it = m_config.caps.find(kind);
  return it != m_config.caps.end() && m_running_by_kind[static_cast<std::size_t>(kind)] >= it->second;
}

bool Scheduler::conflicts(int t) const {
  const auto& mine = m_plans[static_cast<std::size_t>(m_tasks[static_cast<std::size_t>(t)].plan)].files_modified;
  for (int h : m_holding) {
    if (h == t) continue;
    const auto& theirs = m_plans[static_cast<std::size_t>(m_tasks[static_cast<std::size_t>(h)].plan)].files_modified;
    for (const auto& a : mine)
      for (const auto& b : theirs)
        if (util::globs_overlap(a, b)) return true;
  }
  return false;
}

void Scheduler::dispatch(std::vector<Action>& out) {
  if (!m_begun || m_finished) return;
  // A task an earlier run escalated asks its person as soon as it is ready; it takes no slot.
  std::vector<int> ask;
  for (const auto& key : m_ready)
    if (!m_tasks[static_cast<std::size_t>(key.task)].escalated.empty()) ask.push_back(key.task);
  for (int t : ask) {
    Task& k = m_tasks[static_cast<std::size_t>(t)];
    m_ready.erase(key_of(t));
    std::string why = std::move(k.escalated);
    k.escalated.clear();
    escalate(t, std::move(why), out);
  }
  for (std::size_t slot = 0; slot < m_slots.size() && !m_ready.empty(); ++slot) {
    if (m_slots[slot] >= 0) continue;
    int pick = -1;
    for (const auto& key : m_ready) {
      const Task& k = m_tasks[static_cast<std::size_t>(key.task)];
      if (cap_reached(k.kind)) continue;
      if (k.kind == TaskKind::execute && conflicts(key.task)) continue;
      pick = key.task;
      break;
    }
    if (pick < 0) return;
    start(pick, static_cast<int>(slot), out);
  }
}

void Scheduler::start(int t, int slot, std::vector<Action>& out) {
  Task& k = m_tasks[static_cast<std::size_t>(t)];
  m_ready.erase(key_of(t));
  set_state(k, TaskState::running);
  k.slot = slot;
  m_slots[static_cast<std::size_t>(slot)] = t;
  ++m_running_by_kind[static_cast<std::size_t>(k.kind)];
  if (k.kind == TaskKind::execute && std::ranges::find(m_holding, t) == m_holding.end()) m_holding.push_back(t);
  Action a;
  a.type = ActionType::start;
  a.task = k.id;
  a.task_index = t;
  a.kind = k.kind;
  a.subject = k.subject;
  a.slot = slot;
  a.attempt = k.failures + 1;
  a.continuation = k.continuation;
  out.push_back(std::move(a));
  k.continuation = false;
}

void Scheduler::release_slot(Task& t) {
  if (t.slot < 0) return;
  m_slots[static_cast<std::size_t>(t.slot)] = -1;
  --m_running_by_kind[static_cast<std::size_t>(t.kind)];
  t.slot = -1;
}

} // namespace harness::sched
