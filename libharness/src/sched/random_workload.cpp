#include "harness/sched/random_workload.hpp"

#include <fmt/format.h>

#include "rng.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace harness::sched {
namespace {

using detail::Rng;

} // namespace

RandomWorkload random_workload(std::uint64_t seed, const RandomWorkloadOptions& o) {
  Rng rng{seed * 0x2545F4914F6CDD1DULL + 1};
  RandomWorkload out;
  const int pool = o.file_pool > 0 ? o.file_pool : 2 * o.plans;
  std::vector<std::vector<int>> phase_plans;
  std::vector<WorkPlan> plans;
  int made = 0;
  while (made < o.plans) {
    const int size = std::min(o.plans - made, 1 + rng.below(2 * o.plans_per_phase));
    const int phase = static_cast<int>(phase_plans.size()) + 1;
    phase_plans.emplace_back();
    for (int k = 1; k <= size; ++k, ++made) {
      WorkPlan p;
      p.phase = spec::PhaseNumber{phase, 0};
      p.id = fmt::format("{:02}-{:02}", phase, k);
      p.estimate = o.median_minutes * std::exp(o.sigma * rng.normal());
      const int ndeps = rng.below(static_cast<int>(o.max_deps) + 1);
      for (int d = 0; d < ndeps; ++d) {
        const bool cross = phase > 1 && rng.uniform() < o.cross_phase;
        const auto& from = cross ? phase_plans[static_cast<std::size_t>(rng.below(phase - 1))] : phase_plans.back();
        if (from.empty()) continue;
        const auto& dep = plans[static_cast<std::size_t>(from[static_cast<std::size_t>(rng.below(static_cast<int>(from.size())))])].id;
        if (std::ranges::find(p.depends_on, dep) == p.depends_on.end()) p.depends_on.push_back(dep);
      }
      const int nfiles = 1 + rng.below(3);
      for (int f = 0; f < nfiles; ++f) {
        const int file = rng.below(pool);
        p.files_modified.push_back(rng.uniform() < o.glob_share ? fmt::format("src/m{}/**", file % 16)
                                                                 : fmt::format("src/m{}/f{}.cpp", file % 16, file));
      }
      p.files_read.push_back(fmt::format("src/m{}/f{}.hpp", rng.below(16), rng.below(pool)));
      phase_plans.back().push_back(static_cast<int>(plans.size()));
      plans.push_back(std::move(p));
    }
  }
  for (std::size_t i = 0; i < phase_plans.size(); ++i) {
    WorkPhase ph;
    ph.number = spec::PhaseNumber{static_cast<int>(i) + 1, 0};
    ph.plans_exist = !(i > 0 && rng.uniform() < o.unplanned_share);
    ph.research_exists = ph.plans_exist || rng.uniform() < 0.5;
    out.workload.phases.push_back(ph);
    for (int p : phase_plans[i]) {
      if (ph.plans_exist) out.workload.plans.push_back(plans[static_cast<std::size_t>(p)]);
      else out.unplanned[ph.number].push_back(plans[static_cast<std::size_t>(p)]);
    }
  }
  return out;
}

} // namespace harness::sched
