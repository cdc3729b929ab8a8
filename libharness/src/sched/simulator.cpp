#include "harness/sched/simulator.hpp"

#include "harness/sched/scheduler.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <queue>
#include <unordered_map>

namespace harness::sched {
namespace {

/// splitmix64: tiny, portable, same stream on every platform (std distributions are not).
struct Rng {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return (static_cast<double>(next() >> 11) + 0.5) / 9007199254740992.0; }
  double normal() { return std::sqrt(-2 * std::log(uniform())) * std::cos(2 * std::numbers::pi * uniform()); }
};

struct Completion {
  double time;
  std::uint64_t seq;
  std::string task;
  bool operator>(const Completion& o) const { return time != o.time ? time > o.time : seq > o.seq; }
};

/// Longest chain through the tasks that ran: per phase research -> plan -> check, then the plan
/// DAG (execute + verify-plan), verify-phase after its plans, final after every phase.
double critical_path(const Scheduler& s, const std::unordered_map<std::string, double>& dur) {
  auto d = [&](const std::string& id) {
    auto it = dur.find(id);
    return it == dur.end() ? 0.0 : it->second;
  };
  const auto& plans = s.plans();
  std::unordered_map<std::string, int> index;
  for (std::size_t i = 0; i < plans.size(); ++i) index.emplace(plans[i].id, static_cast<int>(i));
  std::map<spec::PhaseNumber, double> planned, phase_end;
  for (const auto& t : s.tasks()) {
    if (t.kind != TaskKind::research && t.kind != TaskKind::plan && t.kind != TaskKind::check_plans) continue;
    planned[*spec::parse_phase_number(t.subject)] += d(t.id);
  }
  std::vector<int> indegree(plans.size(), 0);
  std::vector<std::vector<int>> out(plans.size());
  for (std::size_t i = 0; i < plans.size(); ++i)
    for (const auto& dep : plans[i].depends_on)
      if (auto it = index.find(dep); it != index.end() && it->second != static_cast<int>(i)) {
        out[static_cast<std::size_t>(it->second)].push_back(static_cast<int>(i));
        ++indegree[i];
      }
  std::vector<double> finish(plans.size(), 0), ready(plans.size(), 0);
  for (std::size_t i = 0; i < plans.size(); ++i) ready[i] = planned[plans[i].phase];
  std::vector<int> order;
  for (std::size_t i = 0; i < plans.size(); ++i)
    if (indegree[i] == 0) order.push_back(static_cast<int>(i));
  for (std::size_t k = 0; k < order.size(); ++k) {
    const auto i = static_cast<std::size_t>(order[k]);
    finish[i] = ready[i] + d("execute:" + plans[i].id) + d("verify-plan:" + plans[i].id);
    auto& end = phase_end[plans[i].phase];
    end = std::max(end, finish[i]);
    for (int j : out[i]) {
      ready[static_cast<std::size_t>(j)] = std::max(ready[static_cast<std::size_t>(j)], finish[i]);
      if (--indegree[static_cast<std::size_t>(j)] == 0) order.push_back(j);
    }
  }
  double last = 0;
  for (const auto& t : s.tasks())
    if (t.kind == TaskKind::verify_phase) {
      const auto n = *spec::parse_phase_number(t.subject);
      last = std::max(last, std::max(phase_end[n], planned[n]) + d(t.id));
    }
  return last + d("final");
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
  std::unordered_map<std::string, double> dur; // task id -> minutes of its (last) run
  std::unordered_map<std::string, std::size_t> row;
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> queue;
  std::uint64_t seq = 0;
  double now = 0;

  auto duration = [&](const Action& a) {
    double m = options.model.of(a.kind);
    if (a.kind == TaskKind::execute) {
      if (auto it = options.durations.find(a.subject); it != options.durations.end()) m = it->second;
      else if (const auto* t = s.find_task(a.task); t && t->plan >= 0 && s.plans()[static_cast<std::size_t>(t->plan)].estimate)
        m = *s.plans()[static_cast<std::size_t>(t->plan)].estimate;
    }
    if (options.seed) m *= std::exp(options.sigma * rng.normal() - options.sigma * options.sigma / 2);
    return m;
  };
  auto apply = [&](const std::vector<Action>& actions) {
    ++r.decisions;
    for (const auto& a : actions) {
      if (a.type == ActionType::start) {
        const double m = duration(a);
        dur[a.task] = m;
        r.total_work += m;
        row[a.task] = r.tasks.size();
        r.tasks.push_back(SimTask{a.task, a.kind, a.slot, now, now + m});
        queue.push(Completion{now + m, seq++, a.task});
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
    auto e = make_event(EventType::succeeded, c.task);
    if (const auto* t = s.find_task(c.task); t && t->kind == TaskKind::plan)
      if (auto it = options.unplanned.find(*spec::parse_phase_number(t->subject)); it != options.unplanned.end())
        e.plans = it->second;
    apply(s.handle(e));
  }
  r.utilization.assign(static_cast<std::size_t>(r.slots), 0);
  for (const auto& t : r.tasks) {
    r.makespan = std::max(r.makespan, t.end);
    r.utilization[static_cast<std::size_t>(t.slot)] += t.end - t.start;
  }
  for (auto& u : r.utilization) u = r.makespan > 0 ? u / r.makespan : 0;
  r.critical_path = critical_path(s, dur);
  r.lower_bound = std::max(r.critical_path, r.total_work / r.slots);
  return r;
}

} // namespace harness::sched
