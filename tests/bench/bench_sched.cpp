// Scheduler benchmark (Release): how close list scheduling by critical path comes to the lower
// bound on random workloads, how much worse GSD's waves and seed 002's serial policy are, and the
// cost of scheduling a 100,000-plan graph end to end.
//   build/<dir>/bench/bench_sched [workloads=500] [big_plans=100000]
#include "harness/sched/random_workload.hpp"
#include "harness/sched/scheduler.hpp"
#include "harness/sched/simulator.hpp"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <queue>
#include <chrono>
#include <ctime>
#include <cstdlib>
#include <string>
#include <vector>

using namespace harness::sched;

namespace {

struct Stats {
  double min, median, p95, max, mean;
};

Stats stats(std::vector<double> v) {
  std::ranges::sort(v);
  auto at = [&](double q) { return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))]; };
  double sum = 0;
  for (double x : v) sum += x;
  return {v.front(), at(0.5), at(0.95), v.back(), sum / static_cast<double>(v.size())};
}

void print(std::string_view name, const std::vector<double>& v) {
  const auto s = stats(v);
  fmt::print("  {:<28} min {:6.3f}  median {:6.3f}  p95 {:6.3f}  max {:6.3f}  mean {:6.3f}\n", name, s.min, s.median,
             s.p95, s.max, s.mean);
  // A small histogram so the shape of the distribution is visible, not just its quantiles.
  const double lo = s.min, hi = std::max(s.max, s.min + 1e-9);
  std::vector<int> bins(10, 0);
  for (double x : v) ++bins[std::min<std::size_t>(9, static_cast<std::size_t>((x - lo) / (hi - lo) * 10))];
  std::string line;
  for (int b : bins) line += fmt::format("{:4}", b);
  fmt::print("  {:<28} histogram {:.2f}..{:.2f}:{}\n", "", lo, hi, line);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Drives a Scheduler directly (every task succeeds after its estimate) and returns the time
/// spent inside construction and inside handle(), to separate the scheduler from the simulator.
struct PureCost {
  double construct = 0, handle = 0;
  std::size_t events = 0;
};
PureCost pure_scheduler_cost(const Workload& w) {
  using clock = std::chrono::steady_clock;
  PureCost c;
  auto t0 = clock::now();
  Scheduler s(w, Config{});
  c.construct = seconds_since(t0);
  using Item = std::pair<double, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
  auto push = [&](const std::vector<Action>& out, double now) {
    for (const auto& a : out)
      if (a.type == ActionType::start) {
        const auto& t = s.tasks()[static_cast<std::size_t>(a.task_index)];
        const double m = t.plan >= 0 && t.kind == TaskKind::execute ? *s.plans()[static_cast<std::size_t>(t.plan)].estimate : 5.0;
        queue.push({now + m, a.task_index});
      }
  };
  t0 = clock::now();
  auto out = s.handle(make_event(EventType::begin));
  c.handle += seconds_since(t0);
  push(out, 0);
  while (!queue.empty()) {
    const auto [now, task] = queue.top();
    queue.pop();
    auto e = make_event(EventType::succeeded, s.tasks()[static_cast<std::size_t>(task)].id);
    e.task_index = task;
    t0 = clock::now();
    out = s.handle(e);
    c.handle += seconds_since(t0);
    ++c.events;
    push(out, now);
  }
  return c;
}

/// The makespan ratios over `workloads` seeded random workloads; without `overlaps` no two plans
/// write the same path (a diagnostic: what the write conflicts cost under the phase gate).
struct Ratios {
  std::vector<double> graph_lb, graph_gated_lb, graph_open_lb, waves_graph, serial_graph;
  std::size_t plans = 0;
  double seconds = 0;
  bool complete = true;
};

Ratios run_workloads(int workloads, bool overlaps) {
  Ratios r;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < workloads; ++i) {
    RandomWorkloadOptions o;
    o.plans = 10 + static_cast<int>((static_cast<std::uint64_t>(i) * 2654435761ULL) % 291);
    if (!overlaps) {
      o.file_pool = 1 << 30; // distinct paths: no two plans share one
      o.glob_share = 0;
    }
    r.plans += static_cast<std::size_t>(o.plans);
    const auto rw = random_workload(static_cast<std::uint64_t>(i) + 1, o);
    SimOptions s;
    s.config.slots = 4;
    const auto graph = simulate(rw.workload, s);
    s.config.gate_lookahead.reset();
    const auto open = simulate(rw.workload, s);
    s.config.gate_lookahead = 1;
    s.config.policy = Policy::waves;
    const auto waves = simulate(rw.workload, s);
    s.config.policy = Policy::serial;
    const auto serial = simulate(rw.workload, s);
    if (!graph.complete || !waves.complete || !serial.complete) {
      fmt::print("workload {} did not complete\n", i);
      r.complete = false;
      return r;
    }
    r.graph_lb.push_back(graph.makespan / graph.lower_bound);
    r.graph_gated_lb.push_back(graph.makespan / std::max(graph.lower_bound, graph.gated_critical_path));
    r.graph_open_lb.push_back(open.makespan / open.lower_bound);
    r.waves_graph.push_back(waves.makespan / graph.makespan);
    r.serial_graph.push_back(serial.makespan / graph.makespan);
  }
  r.seconds = seconds_since(t0);
  return r;
}

} // namespace

int main(int argc, char** argv) {
  const int workloads = argc > 1 ? std::atoi(argv[1]) : 500;
  const int big = argc > 2 ? std::atoi(argv[2]) : 100000;

  const Ratios ratios = run_workloads(workloads, true);
  if (!ratios.complete) return 1;
  fmt::print("{} random workloads (10-300 plans, {} plans in all; log-normal estimates, median 30 min, sigma 0.6;\n"
             "random write overlaps; 4 slots; simulated durations = estimates) in {:.2f} s\n",
             workloads, ratios.plans, ratios.seconds);
  print("graph makespan / LB", ratios.graph_lb);
  print("graph / gate-aware LB", ratios.graph_gated_lb);
  print("graph (gate unlimited) / LB", ratios.graph_open_lb);
  print("waves / graph makespan", ratios.waves_graph);
  print("serial / graph makespan", ratios.serial_graph);
  // Neither bound knows the write conflicts: the same workloads without them show their share.
  const Ratios d = run_workloads(workloads, false);
  if (!d.complete) return 1;
  fmt::print("\nthe same workloads without write overlaps (diagnostic):\n");
  print("graph makespan / LB", d.graph_lb);
  print("graph / gate-aware LB", d.graph_gated_lb);
  print("graph (gate unlimited) / LB", d.graph_open_lb);

  RandomWorkloadOptions o;
  o.plans = big;
  o.plans_per_phase = 100;
  const auto g0 = std::chrono::steady_clock::now();
  const auto rw = random_workload(424242, o);
  const double gen = seconds_since(g0);
  SimOptions s;
  s.config.slots = 4;
  const auto s0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  const auto r = simulate(rw.workload, s);
  const double sim = seconds_since(s0);
  const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  fmt::print("\n{}-plan graph ({} phases): generated in {:.3f} s; simulated end to end in {:.3f} s wall, {:.3f} s CPU ({})\n",
             big, rw.workload.phases.size(), gen, sim, cpu, r.complete ? "complete" : "NOT complete");
  fmt::print("  {} tasks run, {} scheduler events, {:.2f} us per decision (event handled, simulator included)\n",
             r.tasks.size(), r.decisions, 1e6 * sim / static_cast<double>(r.decisions));
  fmt::print("  makespan / LB {:.3f}; peak RSS {:.1f} MB\n", r.makespan / r.lower_bound,
             static_cast<double>(ru.ru_maxrss) / 1024.0);
  const auto pure = pure_scheduler_cost(rw.workload);
  fmt::print("  scheduler alone: construction {:.3f} s, {} events in {:.3f} s = {:.2f} us per decision\n",
             pure.construct, pure.events, pure.handle, 1e6 * pure.handle / static_cast<double>(pure.events));
  return 0;
}
