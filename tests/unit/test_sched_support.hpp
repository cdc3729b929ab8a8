#pragma once
// Helpers for the scheduler tests: hand-built workloads and a driver that records actions.

#include "harness/sched/scheduler.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace sched_test {

using namespace harness::sched;
using harness::spec::PhaseNumber;

inline WorkPlan plan(std::string id, std::vector<std::string> deps = {}, std::vector<std::string> writes = {},
                     double estimate = 10) {
  WorkPlan p;
  p.phase = PhaseNumber{std::stoi(id.substr(0, 2)), 0};
  p.id = std::move(id);
  p.depends_on = std::move(deps);
  p.files_modified = std::move(writes);
  p.estimate = estimate;
  return p;
}

/// Phases 1..n, planned and researched, holding `plans`.
inline Workload workload(int phases, std::vector<WorkPlan> plans) {
  Workload w;
  for (int i = 1; i <= phases; ++i)
    w.phases.push_back(WorkPhase{.number = {i, 0}, .research_exists = true, .plans_exist = true, .verified = false});
  w.plans = std::move(plans);
  return w;
}

struct Driver {
  Scheduler s;
  std::vector<Action> log;
  std::vector<Event> events;

  Driver(Workload w, Config c = {}) : s(std::move(w), std::move(c)) {}

  std::vector<Action> send(const Event& e) {
    events.push_back(e);
    auto out = s.handle(e);
    log.insert(log.end(), out.begin(), out.end());
    return out;
  }
  std::vector<Action> begin() { return send(make_event(EventType::begin)); }
  std::vector<Action> succeed(const std::string& task, Verdict v = Verdict::passed) {
    auto e = make_event(EventType::succeeded, task);
    e.verdict = v;
    return send(e);
  }
  std::vector<Action> fail(const std::string& task, FailureClass f) {
    auto e = make_event(EventType::failed, task);
    e.failure = f;
    return send(e);
  }
  std::string state(const std::string& task) const {
    const auto* t = s.find_task(task);
    return t ? std::string(to_string(t->state)) : "missing";
  }
  std::vector<std::string> running() const {
    std::vector<std::string> ids;
    for (const auto& t : s.tasks())
      if (t.state == TaskState::running) ids.push_back(t.id);
    return ids;
  }
  bool is_running(const std::string& task) const { return state(task) == "running"; }
  /// Completes running tasks (lowest slot first) until `task` is running or nothing runs.
  void run_until_running(const std::string& task, int limit = 1000) {
    while (!is_running(task) && limit-- > 0) {
      auto r = running();
      if (r.empty()) return;
      succeed(r.front());
    }
  }
  /// Completes everything with `passed` verdicts.
  void run_all(int limit = 100000) {
    while (limit-- > 0) {
      auto r = running();
      if (r.empty()) return;
      succeed(r.front());
    }
  }
  bool finished_with(const std::string& reason) const {
    return std::ranges::any_of(log, [&](const Action& a) { return a.type == ActionType::finished && a.reason == reason; });
  }
  std::vector<std::string> started() const {
    std::vector<std::string> ids;
    for (const auto& a : log)
      if (a.type == ActionType::start) ids.push_back(a.task);
    return ids;
  }
  std::size_t start_index(const std::string& task) const {
    auto st = started();
    return static_cast<std::size_t>(std::ranges::find(st, task) - st.begin());
  }
};

} // namespace sched_test
