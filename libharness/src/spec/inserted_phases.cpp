#include "inserted_phases.hpp"

#include <algorithm>
#include <set>

namespace harness::spec::detail {

void order_inserted_phases(Roadmap& roadmap, const std::vector<PhaseDir>& phase_dirs) {
  std::set<PhaseNumber> inserted;
  for (const auto& p : roadmap.phases)
    if (p.number.minor > 0) inserted.insert(p.number);
  for (const auto& d : phase_dirs)
    if (d.number.minor > 0) inserted.insert(d.number);
  for (auto& p : roadmap.phases) {
    if (p.number.minor != 0) continue;
    for (const auto& q : inserted)
      if (q.major == p.number.major - 1 && std::ranges::find(p.depends_on, q) == p.depends_on.end()) p.depends_on.push_back(q);
  }
}

} // namespace harness::spec::detail
