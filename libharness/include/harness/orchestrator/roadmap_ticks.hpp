#pragma once
// The checkboxes of ROADMAP.md's body (`- [ ] 01-02: JSON storage`, `- [ ] Phase 1: Foundation`)
// follow the spec's progress: people read the body, not the frontmatter.

#include "harness/graph/progress.hpp"

#include <string>
#include <string_view>

namespace harness::orchestrator {

/// `roadmap` with each checkbox line that names a plan (`- [ ] 01-02...`) ticked when that plan
/// is verified and cleared when it is not, and each that names a phase (`- [ ] Phase 1...`,
/// bold or not) likewise by the phase's verification. Lines naming a plan or phase the progress
/// does not know (planned later), other lines, and fenced code blocks stay as they are.
std::string tick_roadmap(std::string_view roadmap, const graph::Progress& progress);

} // namespace harness::orchestrator
