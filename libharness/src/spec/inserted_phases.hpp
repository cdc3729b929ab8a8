#pragma once
// Internal: GSD's order of inserted phases. GSD runs phases in numeric order, and inserts a
// decimal phase (`/gsd:insert-phase`: 01.1, "(INSERTED)") because its work must land before the
// next integer phase, whose `Depends on` it leaves as it was ("Phase 1"). harness's phase gate
// reads only the graph and `Depends on`, so 01.1 ran beside phase 2.

#include "harness/spec/documents.hpp"
#include "harness/spec/layout.hpp"

#include <vector>

namespace harness::spec::detail {

/// Adds to each integer phase N+1 of `roadmap` the decimal phases N.x (in the roadmap or as phase
/// directories), and to each decimal phase N.x of the roadmap the phase just before it (N.(x-1),
/// or N), to its `depends_on` where it does not name them already, and records them in
/// `inserted_before`. A phase directory without a ROADMAP entry has no `Depends on` to extend.
void order_inserted_phases(Roadmap& roadmap, const std::vector<PhaseDir>& phase_dirs);

} // namespace harness::spec::detail
