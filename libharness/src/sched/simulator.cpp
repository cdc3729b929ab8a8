#include "harness/sched/simulator.hpp"

#include "harness/sched/scheduler.hpp"

#include "rng.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <queue>

namespace harness::sched {
namespace {

using detail::Rng;

struct Completion {
  double time;
  std::uint64_t seq;
  std::size_t task; ///< task index
  bool operator>(const Completion& o) const { return time != o.time ? time > o.time : seq > o.seq; }
};

/// Longest chain through the tasks that ran: per phase research -> plan -> check, then the plan
/// DAG (execute + verify-plan), verify-phase after its plans, final after every phase, and the
/// ROADMAP's phase dependencies: plans of phase P start after every plan of the phases P depends
/// on. With a gate K, also the gate's edges: plans of phase P start after phases <= P-1-K are
/// verified. Both order the plans by phase (a plan depending on one of a later phase, H015, is
/// then counted short: the bound stays a lower bound).
/// `dur` holds the minutes of each task's last run, by task index.
double critical_path(const Scheduler& s, const std::vector<double>& dur, std::optional<int> gate) {
  const auto& tasks = s.tasks();
  const std::size_t n = s.plans().size();
  const std::size_t phases = tasks.empty() ? 0 : static_cast<std::size_t>(std::ranges::max(tasks, {}, &Task::phase).phase + 1);
  std::vector<double> own(n, 0), planned(phases, 0), verify(phases, 0), phase_end(phases, 0);
  std::vector<int> phase(n, 0);
  double final_minutes = 0;
  for (std::size_t i = 0; i < tasks.size() && i < dur.size(); ++i) {
    const auto& t = tasks[i];
    if (t.plan >= 0 && (t.kind == TaskKind::execute || t.kind == TaskKind::verify_plan)) own[static_cast<std::size_t>(t.plan)] += dur[i];
    if (t.kind == TaskKind::research || t.kind == TaskKind::plan || t.kind == TaskKind::check_plans) planned[static_cast<std::size_t>(t.phase)] += dur[i];
    if (t.kind == TaskKind::verify_phase) verify[static_cast<std::size_t>(t.phase)] = dur[i];
    if (t.kind == TaskKind::verify_final) final_minutes = dur[i];
  }
  for (const auto& t : tasks)
    if (t.kind == TaskKind::execute) phase[static_cast<std::size_t>(t.plan)] = t.phase;
  std::vector<int> indegree(n, 0);
  std::vector<std::vector<int>> out(n);
  for (std::size_t i = 0; i < n; ++i)
    for (int d : s.plan_deps(static_cast<int>(i))) {
      out[static_cast<std::size_t>(d)].push_back(static_cast<int>(i));
      ++indegree[i];
    }
  std::vector<int> order;
  for (std::size_t i = 0; i < n; ++i)
    if (indegree[i] == 0) order.push_back(static_cast<int>(i));
  for (std::size_t k = 0; k < order.size(); ++k)
    for (int j : out[static_cast<std::size_t>(order[k])])
      if (--indegree[static_cast<std::size_t>(j)] == 0) order.push_back(j);
  bool roadmap = false;
  for (std::size_t i = 0; i < phases; ++i) roadmap = roadmap || !s.phase_depends(static_cast<int>(i)).empty();
  if (gate || roadmap) std::ranges::stable_sort(order, {}, [&](int p) { return phase[static_cast<std::size_t>(p)]; });
  std::vector<double> ready(n, 0), verified(phases, 0); // verified[P]: end of verify-phase P
  std::vector<double> prefix(phases, 0);                  // max of verified[0..P]
  std::size_t closed = 0;                                 // phases whose verification is known
  auto close_phases_before = [&](std::size_t upto) {
    for (; closed < upto; ++closed) {
      verified[closed] = std::max(phase_end[closed], planned[closed]) + verify[closed];
      prefix[closed] = std::max(verified[closed], closed > 0 ? prefix[closed - 1] : 0.0);
    }
  };
  for (int pi : order) {
    const auto p = static_cast<std::size_t>(pi);
    const auto ph = static_cast<std::size_t>(phase[p]);
    double start = std::max(ready[p], planned[ph]);
    for (int d : s.phase_depends(static_cast<int>(ph)))
      start = std::max({start, phase_end[static_cast<std::size_t>(d)], planned[static_cast<std::size_t>(d)]});
    if (gate) {
      close_phases_before(ph);
      const int last = std::min(static_cast<int>(ph) - 1 - *gate, static_cast<int>(closed) - 1);
      if (last >= 0) start = std::max(start, prefix[static_cast<std::size_t>(last)]);
    }
    const double finish = start + own[p];
    phase_end[ph] = std::max(phase_end[ph], finish);
    for (int j : out[p]) ready[static_cast<std::size_t>(j)] = std::max(ready[static_cast<std::size_t>(j)], finish);
  }
  close_phases_before(phases);
  double last = 0;
  for (std::size_t i = 0; i < phases; ++i) last = std::max(last, verified[i]);
  return last + final_minutes;
}

} // namespace

double DurationModel::of(TaskKind k) const {
  switch (k) {
  case TaskKind::research: return research;
  case TaskKind::plan: return plan;
  case TaskKind::check_plans: return check_plans;
  case TaskKind::reconcile: return reconcile;
  case TaskKind::execute: return execute;
  case TaskKind::verify_plan: return verify_plan;
  case TaskKind::verify_phase: return verify_phase;
  case TaskKind::plan_gaps: return plan_gaps;
  case TaskKind::admin: return admin;
  case TaskKind::verify_final: return verify_final;
  }
  return admin;
}

SimResult simulate(const Workload& workload, const SimOptions& options) {
  Scheduler s(workload, options.config);
  SimResult r;
  r.policy = options.config.policy;
  r.slots = s.config().slots;
  Rng rng{options.seed.value_or(0)};
  std::vector<double> dur; // task index -> minutes of its (last) run
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> queue;
  std::uint64_t seq = 0;
  double now = 0;

  auto duration = [&](const Action& a, const Task* t) {
    double m = options.model.of(a.kind);
    if (a.kind == TaskKind::execute) {
      if (auto it = options.durations.find(a.subject); it != options.durations.end()) m = it->second;
      else if (t && t->plan >= 0 && s.plans()[static_cast<std::size_t>(t->plan)].estimate)
        m = *s.plans()[static_cast<std::size_t>(t->plan)].estimate;
    }
    if (options.seed) m *= std::exp(options.sigma * rng.normal() - options.sigma * options.sigma / 2);
    return m;
  };
  auto apply = [&](const std::vector<Action>& actions) {
    ++r.decisions;
    for (const auto& a : actions) {
      if (a.type == ActionType::start) {
        const auto index = static_cast<std::size_t>(a.task_index);
        const auto* t = &s.tasks()[index];
        const double m = duration(a, t);
        if (dur.size() <= index) dur.resize(s.tasks().size(), 0);
        dur[index] = m;
        r.total_work += m;
        r.tasks.push_back(SimTask{a.task, a.kind, a.slot, now, now + m});
        queue.push(Completion{now + m, seq++, index});
      } else if (a.type == ActionType::blocked) {
        r.blocked.push_back(a.task + ": " + a.reason);
      } else if (a.type == ActionType::finished) {
        r.complete = a.reason == "complete";
      }
    }
  };
  apply(s.handle(make_event(EventType::begin)));
  while (!queue.empty()) {
    auto c = queue.top();
    queue.pop();
    now = c.time;
    const auto& t = s.tasks()[c.task];
    auto e = make_event(EventType::succeeded, t.id);
    e.task_index = static_cast<int>(c.task);
    if (t.kind == TaskKind::plan)
      if (auto it = options.unplanned.find(*spec::parse_phase_number(t.subject)); it != options.unplanned.end())
        e.plans = it->second;
    apply(s.handle(e));
  }
  r.utilization.assign(static_cast<std::size_t>(r.slots), 0);
  for (const auto& t : r.tasks) {
    r.makespan = std::max(r.makespan, t.end);
    r.utilization[static_cast<std::size_t>(t.slot)] += t.end - t.start;
  }
  for (auto& u : r.utilization) u = r.makespan > 0 ? u / r.makespan : 0;
  r.critical_path = critical_path(s, dur, std::nullopt);
  r.gated_critical_path = s.config().gate_lookahead ? critical_path(s, dur, s.config().gate_lookahead) : r.critical_path;
  r.lower_bound = std::max(r.critical_path, r.total_work / r.slots);
  for (const auto& ph : workload.phases)
    if (!ph.plans_exist && !options.unplanned.contains(ph.number)) r.unplanned_phases.push_back(ph.number);
  return r;
}

} // namespace harness::sched
