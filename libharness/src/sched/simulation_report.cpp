// Rendering a simulation: JSON for tools, text (figures + Gantt chart) for people.
#include "harness/sched/simulator.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace harness::sched {

boost::json::object to_json(const SimResult& r) {
  boost::json::array util, tasks, blocked;
  for (double u : r.utilization) util.push_back(u);
  // Slots count from 1, as in the text's chart and in orchestrate's events and tables.
  for (const auto& t : r.tasks)
    tasks.push_back({{"id", t.id}, {"kind", to_string(t.kind)}, {"slot", t.slot + 1}, {"start", t.start}, {"end", t.end}});
  for (const auto& b : r.blocked) blocked.push_back(boost::json::value(b));
  boost::json::array unplanned;
  for (auto n : r.unplanned_phases) unplanned.push_back(boost::json::value(spec::to_string(n)));
  return {{"policy", to_string(r.policy)}, {"slots", r.slots}, {"makespan", r.makespan},
          {"lower_bound", r.lower_bound}, {"critical_path", r.critical_path},
          {"gated_critical_path", r.gated_critical_path}, {"total_work", r.total_work},
          {"utilization", std::move(util)}, {"complete", r.complete}, {"blocked", std::move(blocked)},
          {"unplanned_phases", std::move(unplanned)},
          {"tasks", std::move(tasks)}};
}

std::string render_simulation(const SimResult& r, int width, std::size_t max_rows) {
  std::string out;
  out += fmt::format("policy {}  slots {}  {}\n", to_string(r.policy), r.slots, r.complete ? "complete" : "BLOCKED");
  if (!r.unplanned_phases.empty()) {
    std::vector<std::string> names;
    for (auto n : r.unplanned_phases) names.push_back(spec::to_string(n));
    out += fmt::format("note: phase{} {} {} no plans yet: {} execution cannot be predicted; the figures "
                       "include {} research and planning only\n",
                       names.size() > 1 ? "s" : "", fmt::join(names, ", "), names.size() > 1 ? "have" : "has",
                       names.size() > 1 ? "their" : "its", names.size() > 1 ? "their" : "its");
  }
  // A finished spec (or one whose every task is done) leaves the scheduler nothing to start: a bare
  // 0.0 would read as a prediction of the run that already happened.
  if (r.complete && r.tasks.empty())
    out += "note: nothing is left to run: every plan is executed and verified, so the figures are 0 "
           "(simulate predicts the work still to do, not a run that is over)\n";
  out += fmt::format("makespan     {:10.1f} min\n", r.makespan);
  out += fmt::format("lower bound  {:10.1f} min  (critical path {:.1f}, total work {:.1f} / {} slots)\n",
                     r.lower_bound, r.critical_path, r.total_work, r.slots);
  if (r.lower_bound > 0) out += fmt::format("ratio        {:10.3f}\n", r.makespan / r.lower_bound);
  if (r.gated_critical_path > r.critical_path)
    out += fmt::format("gated path   {:10.1f} min  (critical path with the phase gate's edges)\n", r.gated_critical_path);
  for (std::size_t i = 0; i < r.utilization.size(); ++i)
    out += fmt::format("slot {} busy  {:5.1f}%\n", i + 1, 100 * r.utilization[i]);
  for (const auto& b : r.blocked) out += "blocked: " + b + "\n";
  if (r.tasks.empty() || r.makespan <= 0) return out;
  std::size_t name_width = 4;
  for (std::size_t i = 0; i < std::min(max_rows, r.tasks.size()); ++i) name_width = std::max(name_width, r.tasks[i].id.size());
  out += "\n";
  const double scale = width / r.makespan;
  for (std::size_t i = 0; i < std::min(max_rows, r.tasks.size()); ++i) {
    const auto& t = r.tasks[i];
    auto from = static_cast<int>(t.start * scale);
    auto to = std::max(from + 1, static_cast<int>(t.end * scale));
    to = std::min(to, width);
    from = std::min(from, width - 1);
    std::string bar(static_cast<std::size_t>(width), ' ');
    for (int c = from; c < to; ++c) bar[static_cast<std::size_t>(c)] = '#';
    out += fmt::format("{:<{}} s{} |{}| {:.0f}-{:.0f}\n", t.id, name_width, t.slot + 1, bar, t.start, t.end);
  }
  if (r.tasks.size() > max_rows) out += fmt::format("... {} more tasks\n", r.tasks.size() - max_rows);
  return out;
}

} // namespace harness::sched
