// ROADMAP.md's body checkboxes follow the progress: verified plans and phases ticked, the rest
// cleared, what the progress does not know (and code blocks) left alone.
#include "harness/orchestrator/roadmap_ticks.hpp"

#include <catch2/catch.hpp>

using namespace harness;

namespace {

graph::Progress progress() {
  graph::Progress p;
  p.phases.push_back({*spec::parse_phase_number("01"), "Foundation", "verified", 2, 2, 2});
  p.phases.push_back({*spec::parse_phase_number("02"), "Core", "executing", 2, 1, 0});
  p.phases.push_back({*spec::parse_phase_number("02.1"), "Hotfix", "verified", 1, 1, 1});
  p.plans.push_back({"01-01", "Model", graph::PlanState::verified, false});
  p.plans.push_back({"01-02", "Storage", graph::PlanState::verified, false});
  p.plans.push_back({"02-01", "Add", graph::PlanState::executed, false});
  p.plans.push_back({"02-10", "Ten", graph::PlanState::planned, true});
  return p;
}

} // namespace

TEST_CASE("tick_roadmap ticks verified plans and phases and clears the others", "[orchestrator]") {
  const std::string before = "---\nstatus: executing\n---\n# Roadmap\n\n## Overview\n"
                             "- [ ] Phase 1: Foundation\n"
                             "- [x] **Phase 2: Core**\n"
                             "- [ ] Phase 02.1: Hotfix\n"
                             "- [ ] Phase 3: Later (not planned yet)\n\n"
                             "Plans:\n"
                             "- [ ] 01-01: Model\n"
                             "  - [X] 01-02: Storage\n"
                             "- [x] 02-01: Add\n"
                             "- [ ] 02-1: not a plan id the progress knows\n"
                             "- [x] 03-01: planned later\n"
                             "* [ ] 02-10 Ten\n"
                             "- [ ] 01-01x: another word\n"
                             "```\n- [ ] 01-01: in a code block\n```\n"
                             "- [ ] see 01-01\n";
  const std::string after = "---\nstatus: executing\n---\n# Roadmap\n\n## Overview\n"
                            "- [x] Phase 1: Foundation\n"
                            "- [ ] **Phase 2: Core**\n"
                            "- [x] Phase 02.1: Hotfix\n"
                            "- [ ] Phase 3: Later (not planned yet)\n\n"
                            "Plans:\n"
                            "- [x] 01-01: Model\n"
                            "  - [X] 01-02: Storage\n"
                            "- [ ] 02-01: Add\n"
                            "- [ ] 02-1: not a plan id the progress knows\n"
                            "- [x] 03-01: planned later\n"
                            "* [ ] 02-10 Ten\n"
                            "- [ ] 01-01x: another word\n"
                            "```\n- [ ] 01-01: in a code block\n```\n"
                            "- [ ] see 01-01\n";
  CHECK(orchestrator::tick_roadmap(before, progress(), "2026-11-25") == after);
  CHECK(orchestrator::tick_roadmap(after, progress(), "2026-11-25") == after); // nothing left to change
}

TEST_CASE("tick_roadmap keeps GSD's Progress table with the phases' progress", "[orchestrator]") {
  // Review S, finding 9: the checkboxes were ticked while the table below said "0/3 | Not started".
  auto p = progress();
  p.phases.push_back({*spec::parse_phase_number("03"), "Later", "planned", 2, 0, 0});
  p.phases.push_back({*spec::parse_phase_number("04"), "Redone", "executing", 1, 0, 0});
  const std::string before = "## Progress\n\n"
                             "| Phase | Plans Complete | Status | Completed |\n"
                             "|-------|----------------|--------|-----------|\n"
                             "| 1. Foundation | 0/2 | Not started | - |\n"
                             "| 2. Core | 0/2 | Not started | - |\n"
                             "| 2.1. Hotfix | 1/1 | Complete | 2025-11-18 |\n"
                             "| 3. Later | 0/2 | Deferred | - |\n"
                             "| 4. Redone | 1/1 | Complete | 2025-11-18 |\n"
                             "| 5. Not planned | 0/0 | Not started | - |\n"
                             "| Total | | | |\n\n"
                             "| Phase | Status |\n|---|---|\n| 1. Foundation | Not started |\n"
                             "```\n| Phase | Plans Complete | Status | Completed |\n|---|---|---|---|\n| 1. x | 0/2 | Not started | - |\n```\n";
  const std::string after = "## Progress\n\n"
                            "| Phase | Plans Complete | Status | Completed |\n"
                            "|-------|----------------|--------|-----------|\n"
                            "| 1. Foundation | 2/2 | Complete | 2026-11-25 |\n"
                            "| 2. Core | 0/2 | In progress | - |\n"
                            "| 2.1. Hotfix | 1/1 | Complete | 2025-11-18 |\n"
                            "| 3. Later | 0/2 | Deferred | - |\n"
                            "| 4. Redone | 0/1 | In progress | - |\n"
                            "| 5. Not planned | 0/0 | Not started | - |\n"
                            "| Total | | | |\n\n"
                            "| Phase | Status |\n|---|---|\n| 1. Foundation | Not started |\n"
                            "```\n| Phase | Plans Complete | Status | Completed |\n|---|---|---|---|\n| 1. x | 0/2 | Not started | - |\n```\n";
  CHECK(orchestrator::tick_roadmap(before, p, "2026-11-25") == after);
  CHECK(orchestrator::tick_roadmap(after, p, "2026-11-27") == after); // a completed phase keeps its date
}
