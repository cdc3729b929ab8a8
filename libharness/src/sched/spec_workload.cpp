#include "harness/sched/spec_workload.hpp"

#include "harness/spec/done_state.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

namespace harness::sched {

std::optional<std::string> nothing_to_schedule(const spec::Spec& spec, const Workload& workload) {
  if (!workload.plans.empty() || !workload.phases.empty()) return std::nullopt;
  return fmt::format("{}: nothing to run: no phases in ROADMAP.md and no PLAN files; plan the spec first "
                     "(/harness:plan-spec {})",
                     spec.layout.spec_name, spec.layout.command_argument());
}

WorkPlan work_plan_of(const spec::Plan& p) {
  WorkPlan wp;
  wp.id = p.id;
  wp.phase = p.phase;
  wp.depends_on = p.depends_on;
  wp.files_modified = p.files_modified;
  wp.files_read = p.files_read;
  wp.estimate = p.estimate_minutes;
  wp.checkpoints = p.checkpoints;
  wp.autonomous = p.autonomous;
  return wp;
}

Workload workload_from_spec(const spec::Spec& spec) {
  Workload w;
  const auto done = spec::read_done_state(spec);
  std::set<spec::PhaseNumber> numbers;
  for (const auto& d : spec.layout.phases) numbers.insert(d.number);
  if (spec.roadmap)
    for (const auto& p : spec.roadmap->phases) numbers.insert(p.number);
  for (const auto& p : spec.plans) numbers.insert(p.phase);
  for (auto n : numbers) {
    WorkPhase ph;
    ph.number = n;
    ph.plans_exist = std::ranges::any_of(spec.plans, [&](const auto& p) { return p.phase == n; });
    std::error_code ec;
    ph.research_exists = std::filesystem::exists(spec.layout.research_file(n), ec);
    auto g = done.phases.find(n);
    ph.verified = g != done.phases.end() && g->second.passed();
    if (spec.roadmap)
      for (const auto& rp : spec.roadmap->phases)
        if (rp.number == n) ph.depends_on = rp.depends_on;
    w.phases.push_back(ph);
  }
  for (const auto& p : spec.plans) {
    WorkPlan wp = work_plan_of(p);
    const auto& d = done.plans.at(p.id);
    wp.executed = d.executed;
    wp.verified = d.verified;
    if (auto s = spec.summaries.find(p.id); s != spec.summaries.end() && d.executed) wp.has_deviations = s->second.has_deviations;
    w.plans.push_back(std::move(wp));
  }
  w.final_verified = done.final.passed();
  return w;
}

} // namespace harness::sched
