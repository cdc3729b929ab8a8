// Construction of the task graph, the event entry point and the snapshot.
#include "harness/sched/scheduler.hpp"

#include <algorithm>
#include <ranges>
#include <set>

namespace harness::sched {
namespace {

constexpr std::array<std::string_view, 9> state_names{
    "pending", "ready", "running", "waiting", "deferred", "human", "done", "blocked", "dropped"};

bool is_open(TaskState s) {
  return s == TaskState::running || s == TaskState::waiting || s == TaskState::deferred ||
         s == TaskState::human;
}

Action rejected(const Event& e, std::string why) {
  Action a;
  a.type = ActionType::rejected;
  a.task = e.task;
  a.reason = std::string(to_string(e.type)) + ": " + std::move(why);
  return a;
}

/// The effective config: the serial baseline is the graph scheduler with one execute at a time.
Config effective(Config c) {
  if (c.slots < 1) c.slots = 1;
  if (c.policy == Policy::serial) c.caps[TaskKind::execute] = 1;
  if (c.policy == Policy::waves) c.gate_lookahead = 0;
  return c;
}

} // namespace

std::string_view to_string(TaskState s) { return state_names[static_cast<std::size_t>(s)]; }

Scheduler::Scheduler(Workload workload, Config config) : m_config(effective(std::move(config))) {
  m_slots.assign(static_cast<std::size_t>(m_config.slots), -1);
  auto phases = workload.phases;
  std::ranges::stable_sort(phases, {}, &WorkPhase::number);
  // Plans of a phase the workload does not list get an implicit, already planned phase.
  std::set<spec::PhaseNumber> listed;
  for (const auto& ph : phases) listed.insert(ph.number);
  for (const auto& p : workload.plans)
    if (listed.insert(p.phase).second)
      phases.push_back(WorkPhase{.number = p.phase, .research_exists = true, .plans_exist = true});
  std::ranges::stable_sort(phases, {}, &WorkPhase::number);
  phases.erase(std::unique(phases.begin(), phases.end(),
                           [](const auto& a, const auto& b) { return a.number == b.number; }),
               phases.end());
  const std::size_t n = workload.plans.size();
  m_task_index.reserve(2 * n + 5 * phases.size() + 16);
  m_plan_index.reserve(n);
  m_tasks.reserve(2 * n + 5 * phases.size() + 16);
  m_plans.reserve(n);
  m_plan_info.reserve(n);
  for (std::size_t i = 0; i < phases.size(); ++i) build_phase(static_cast<int>(i), phases[i]);
  link_phases(phases);
  // Sort indices, not plans: the workload is moved into the scheduler, never copied.
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::ranges::stable_sort(order, [&](std::size_t a, std::size_t b) {
    const auto& x = workload.plans[a];
    const auto& y = workload.plans[b];
    return x.phase != y.phase ? x.phase < y.phase : x.id < y.id;
  });
  for (std::size_t i : order) {
    auto& p = workload.plans[i];
    auto it = std::ranges::lower_bound(phases, p.phase, {}, &WorkPhase::number);
    const int ph = static_cast<int>(it - phases.begin());
    if (!it->plans_exist || m_plan_index.contains(p.id)) continue;
    add_plan(std::move(p), ph);
  }
  m_final = add_task(TaskKind::verify_final, "", -1, -1);
  m_gate_parked.resize(m_phases.size() + 1);
  m_phase_parked.resize(m_phases.size());
  apply_initial_state(workload);
  compute_ranks();
  recompute_current();
}

int Scheduler::add_task(TaskKind kind, std::string subject, int phase, int plan) {
  Task t;
  t.kind = kind;
  t.id = kind == TaskKind::verify_final ? std::string("final")
                                          : std::string(to_string(kind)) + ":" + subject;
  t.subject = std::move(subject);
  t.phase = phase;
  t.plan = plan;
  const int index = static_cast<int>(m_tasks.size());
  m_task_index.emplace(t.id, index);
  m_tasks.push_back(std::move(t));
  return index;
}

int Scheduler::add_plan(WorkPlan plan_in, int phase) {
  const int p = static_cast<int>(m_plans.size());
  m_plans.push_back(std::move(plan_in));
  m_plans.back().phase = m_phases[static_cast<std::size_t>(phase)].number;
  const auto& plan = m_plans.back();
  m_plan_info.emplace_back();
  m_rank.push_back(0);
  m_plan_index.emplace(plan.id, p);
  link_plan(p);
  if (auto waiting = m_waiting_for.extract(plan.id))
    for (int w : waiting.mapped()) link_plan(w);
  auto& info = m_plan_info.back();
  info.execute = add_task(TaskKind::execute, plan.id, phase, p);
  info.verify = add_task(TaskKind::verify_plan, plan.id, phase, p);
  auto& list = m_phases[static_cast<std::size_t>(phase)].plans;
  auto pos = std::ranges::lower_bound(list, plan.id, {}, [&](int i) { return m_plans[static_cast<std::size_t>(i)].id; });
  list.insert(pos, p);
  return p;
}

void Scheduler::link_plan(int p) {
  auto& info = m_plan_info[static_cast<std::size_t>(p)];
  for (int d : info.deps) std::erase(m_plan_info[static_cast<std::size_t>(d)].dependents, p);
  info.deps.clear();
  info.unresolved = 0;
  const auto& plan = m_plans[static_cast<std::size_t>(p)];
  for (const auto& id : plan.depends_on) {
    if (id == plan.id) continue;
    auto it = m_plan_index.find(id);
    if (it == m_plan_index.end()) {
      ++info.unresolved;
      auto& list = m_waiting_for[id];
      if (std::ranges::find(list, p) == list.end()) list.push_back(p);
      continue;
    }
    if (std::ranges::find(info.deps, it->second) != info.deps.end()) continue;
    info.deps.push_back(it->second);
    m_plan_info[static_cast<std::size_t>(it->second)].dependents.push_back(p);
  }
}

void Scheduler::build_phase(int index, const WorkPhase& phase) {
  PhaseInfo info;
  info.number = phase.number;
  const bool plan_again = !phase.plans_exist || phase.planning_unfinished;
  const bool check_again = plan_again || phase.plans_unchecked;
  info.planned = !plan_again;
  info.revisions = std::max(phase.revisions, 0);
  info.gap_rounds = std::max(phase.gap_rounds, 0);
  const auto name = spec::to_string(phase.number);
  m_phases.push_back(info);
  auto& ph = m_phases.back();
  if (!phase.plans_exist && !phase.research_exists) ph.research = add_task(TaskKind::research, name, index, -1);
  if (check_again) { // the plan task too: a checker's "revise" sends the plans back to it
    m_phases.back().plan = add_task(TaskKind::plan, name, index, -1);
    m_phases.back().check = add_task(TaskKind::check_plans, name, index, -1);
  }
  m_phases.back().verify = add_task(TaskKind::verify_phase, name, index, -1);
}

void Scheduler::link_phases(const std::vector<WorkPhase>& phases) {
  // `phases` is m_phases' order. Only earlier phases count: a dependency on the phase itself or a
  // later one could only deadlock against the gate, and validate reports it.
  for (std::size_t i = 0; i < phases.size(); ++i)
    for (const auto& n : phases[i].depends_on) {
      auto it = std::ranges::lower_bound(phases, n, {}, &WorkPhase::number);
      if (it == phases.end() || it->number != n) continue;
      const int d = static_cast<int>(it - phases.begin());
      auto& deps = m_phases[i].depends;
      if (d >= static_cast<int>(i) || std::ranges::find(deps, d) != deps.end()) continue;
      deps.push_back(d);
      m_phases[static_cast<std::size_t>(d)].dependents.push_back(static_cast<int>(i));
    }
}

void Scheduler::apply_initial_state(const Workload& workload) {
  auto done = [&](int t) { m_tasks[static_cast<std::size_t>(t)].state = TaskState::done; };
  auto executed = [&](auto p) { return m_plans[static_cast<std::size_t>(p)].executed || m_plans[static_cast<std::size_t>(p)].verified; };
  for (std::size_t p = 0; p < m_plans.size(); ++p) {
    if (m_plans[p].executed || m_plans[p].verified) done(m_plan_info[p].execute);
    if (m_plans[p].verified) done(m_plan_info[p].verify);
  }
  const auto sorted = [&] {
    auto v = workload.phases;
    std::ranges::stable_sort(v, {}, &WorkPhase::number);
    return v;
  }();
  for (auto& ph : m_phases) {
    auto it = std::ranges::find(sorted, ph.number, &WorkPhase::number);
    if (it != sorted.end() && it->plans_exist && it->plans_unchecked && !it->planning_unfinished && ph.plan >= 0)
      done(ph.plan); // written by a planner that finished: only the check is outstanding
    // A verification is of executed work: a plan without a SUMMARY (added since, or its SUMMARY
    // removed to have it done again) runs, and the phase is verified again after it.
    if (it != sorted.end() && it->verified && std::ranges::all_of(ph.plans, executed)) {
      done(ph.verify);
      for (int p : ph.plans) done(m_plan_info[static_cast<std::size_t>(p)].verify);
    }
  }
  if (workload.final_verified && std::ranges::all_of(std::views::iota(std::size_t{0}, m_plans.size()), executed)) done(m_final);
  for (std::size_t p = 0; p < m_plans.size(); ++p)
    if (m_plans[p].executed && m_plans[p].has_deviations) on_deviations(static_cast<int>(p), true);
}

std::pair<int, int> Scheduler::loop_rounds(const spec::PhaseNumber& phase) const {
  const auto it = std::ranges::find(m_phases, phase, &PhaseInfo::number);
  return it == m_phases.end() ? std::pair{0, 0} : std::pair{it->revisions, it->gap_rounds};
}

const Task* Scheduler::find_task(std::string_view id) const {
  auto it = m_task_index.find(std::string(id));
  return it == m_task_index.end() ? nullptr : &m_tasks[static_cast<std::size_t>(it->second)];
}

int Scheduler::busy_slots() const {
  return static_cast<int>(std::ranges::count_if(m_slots, [](int t) { return t >= 0; }));
}

bool Scheduler::waits_only_for_humans() const {
  if (!m_begun || m_finished || m_open == 0) return false;
  // Ready tasks are not counted: one still ready after the dispatch that follows every event,
  // with no task running, is held by a checkpoint-waiting execute's files.
  return std::ranges::all_of(m_tasks, [](const Task& t) {
    return !is_open(t.state) || t.state == TaskState::human || (t.state == TaskState::waiting && t.slot < 0);
  });
}

void Scheduler::set_state(Task& t, TaskState s) {
  if (is_open(t.state)) --m_open;
  if (is_open(s)) ++m_open;
  t.state = s;
}

std::vector<Action> Scheduler::handle(const Event& e) {
  std::vector<Action> out;
  if (e.type == EventType::begin) {
    if (m_begun) return {rejected(e, "already begun")};
    m_begun = true;
    for (std::size_t t = 0; t < m_tasks.size(); ++t) refresh(static_cast<int>(t));
  } else if (m_finished) {
    return {rejected(e, "the run has finished")};
  } else if (e.type == EventType::admin_requested) {
    const auto name = e.task.starts_with("admin:") ? e.task.substr(6) : e.task;
    if (name.empty() || m_task_index.contains("admin:" + name)) return {rejected(e, "duplicate or empty admin task")};
    refresh(add_task(TaskKind::admin, name, -1, -1));
  } else if (e.type == EventType::plans_edited) {
    on_plans_edited(e);
  } else {
    int t = e.task_index;
    if (t < 0 || t >= static_cast<int>(m_tasks.size()) || m_tasks[static_cast<std::size_t>(t)].id != e.task) {
      auto it = m_task_index.find(e.task);
      if (it == m_task_index.end()) return {rejected(e, "unknown task")};
      t = it->second;
    }
    const auto state = m_tasks[static_cast<std::size_t>(t)].state;
    if (e.type == EventType::escalated) {
      // Only before the task has run in this run: afterwards its own outcome decides.
      if (state != TaskState::pending && state != TaskState::ready) return {rejected(e, "task is " + std::string(to_string(state)))};
      m_tasks[static_cast<std::size_t>(t)].escalated = e.detail.empty() ? "escalated by an earlier run" : e.detail;
      dispatch(out);
      check_quiescent(out);
      return out;
    }
    if (e.type == EventType::requested) {
      if (auto refused = on_requested(t); !refused.empty()) return {rejected(e, std::move(refused))};
      dispatch(out);
      check_quiescent(out);
      return out;
    }
    const auto& k = m_tasks[static_cast<std::size_t>(t)];
    // A worker that asked and then went on without the answer may finish while its question is
    // open: its task still holds the slot.
    const bool ok = (e.type == EventType::succeeded && (state == TaskState::running || (state == TaskState::waiting && k.slot >= 0))) ||
                    (e.type == EventType::failed && (state == TaskState::running || state == TaskState::waiting)) ||
                    (e.type == EventType::checkpoint && state == TaskState::running) ||
                    (e.type == EventType::answered && (state == TaskState::waiting || state == TaskState::human)) ||
                    (e.type == EventType::retry_due && state == TaskState::deferred);
    if (!ok) return {rejected(e, "task is " + std::string(to_string(state)))};
    switch (e.type) {
    case EventType::succeeded: on_succeeded(e, t, out); break;
    case EventType::failed: on_failed(e, t, out); break;
    case EventType::checkpoint: on_checkpoint(e, t, out); break;
    case EventType::answered: on_answered(e, t, out); break;
    case EventType::retry_due:
      set_state(m_tasks[static_cast<std::size_t>(t)], TaskState::pending);
      refresh(t);
      break;
    default: break;
    }
  }
  // An execute that stopped running (failed, reopened, continued) runs again as its PLAN file now says.
  apply_stored_edits();
  dispatch(out);
  check_quiescent(out);
  return out;
}

boost::json::object Scheduler::snapshot() const {
  boost::json::object o;
  o["current_phase"] = m_current;
  o["begun"] = m_begun;
  o["finished"] = m_finished;
  boost::json::array slots;
  for (int t : m_slots) slots.push_back(t < 0 ? boost::json::value(nullptr) : boost::json::value(m_tasks[static_cast<std::size_t>(t)].id));
  o["slots"] = std::move(slots);
  boost::json::array phases;
  for (const auto& ph : m_phases)
    phases.push_back({{"phase", spec::to_string(ph.number)}, {"planned", ph.planned},
                      {"revisions", ph.revisions}, {"gap_rounds", ph.gap_rounds}});
  o["phases"] = std::move(phases);
  boost::json::array tasks;
  for (const auto& t : m_tasks) {
    boost::json::object j{{"id", t.id}, {"state", to_string(t.state)}, {"failures", t.failures}, {"slot", t.slot}};
    if (t.continuation) j["continuation"] = true;
    if (t.requested) j["requested"] = true;
    if (!t.escalated.empty()) j["escalated"] = t.escalated;
    if (!t.reason.empty()) j["reason"] = t.reason;
    tasks.push_back(std::move(j));
  }
  o["tasks"] = std::move(tasks);
  boost::json::array ready;
  for (const auto& k : m_ready) ready.push_back(boost::json::value(k.id));
  o["ready"] = std::move(ready);
  return o;
}

} // namespace harness::sched
