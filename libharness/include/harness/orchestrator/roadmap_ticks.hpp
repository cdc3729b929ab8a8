#pragma once
// The checkboxes of ROADMAP.md's body (`- [ ] 01-02: JSON storage`, `- [ ] Phase 1: Foundation`)
// and the rows of GSD's Progress table follow the spec's progress: people read the body, not the
// frontmatter.

#include "harness/graph/progress.hpp"

#include <string>
#include <string_view>

namespace harness::orchestrator {

/// `roadmap` with each checkbox line that names a plan (`- [ ] 01-02...`) ticked when that plan
/// is verified and cleared when it is not, and each that names a phase (`- [ ] Phase 1...`,
/// bold or not) likewise by the phase's verification. Lines naming a plan or phase the progress
/// does not know (planned later), other lines, and fenced code blocks stay as they are.
/// In a table whose header names the columns `Phase`, `Plans Complete`, `Status` and `Completed`
/// (GSD's `## Progress`), a row whose first cell starts with a phase number (`2.1. Slugs`) gets
/// the phase's verified/total plans, `Complete` with `today` (kept when it holds a date already)
/// once the phase is verified, else `In progress` when some plan is executed (`-` for the date);
/// a status of a phase with nothing done (`Not started`, `Deferred`) stays.
std::string tick_roadmap(std::string_view roadmap, const graph::Progress& progress, std::string_view today);

} // namespace harness::orchestrator
