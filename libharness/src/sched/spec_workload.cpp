#include "harness/sched/spec_workload.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

namespace harness::sched {

Workload workload_from_spec(const spec::Spec& spec) {
  Workload w;
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
    auto v = spec.verifications.find(n);
    ph.verified = v != spec.verifications.end() && v->second.status == spec::VerificationStatus::passed;
    w.phases.push_back(ph);
  }
  for (const auto& p : spec.plans) {
    WorkPlan wp;
    wp.id = p.id;
    wp.phase = p.phase;
    wp.depends_on = p.depends_on;
    wp.files_modified = p.files_modified;
    wp.files_read = p.files_read;
    wp.estimate = p.estimate_minutes;
    wp.checkpoints = p.checkpoints;
    wp.autonomous = p.autonomous;
    if (auto s = spec.summaries.find(p.id); s != spec.summaries.end()) {
      wp.executed = true;
      wp.has_deviations = s->second.has_deviations;
      wp.verified = s->second.verification == spec::VerificationStatus::passed;
    }
    w.plans.push_back(std::move(wp));
  }
  w.final_verified = spec.final_verification && spec.final_verification->status == spec::VerificationStatus::passed;
  return w;
}

} // namespace harness::sched
