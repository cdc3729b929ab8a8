#include "inserted_phases.hpp"

#include <algorithm>
#include <set>

namespace harness::spec::detail {

void order_inserted_phases(Roadmap& roadmap, const std::vector<PhaseDir>& phase_dirs) {
  std::set<PhaseNumber> all;
  for (const auto& p : roadmap.phases) all.insert(p.number);
  for (const auto& d : phase_dirs) all.insert(d.number);
  auto order_after = [](RoadmapPhase& p, PhaseNumber q) {
    if (std::ranges::find(p.depends_on, q) != p.depends_on.end()) return; // its `Depends on` says so already
    p.depends_on.push_back(q);
    p.inserted_before.push_back(q);
  };
  for (auto& p : roadmap.phases) {
    if (p.number.minor == 0) { // N+1 after every N.x
      for (const auto& q : all)
        if (q.major == p.number.major - 1 && q.minor > 0) order_after(p, q);
      continue;
    }
    // N.x after the phase just before it in GSD's order: N.(x-1)..., or N itself.
    const auto it = all.find(p.number);
    if (it != all.begin() && std::prev(it)->major == p.number.major) order_after(p, *std::prev(it));
  }
}

} // namespace harness::spec::detail
