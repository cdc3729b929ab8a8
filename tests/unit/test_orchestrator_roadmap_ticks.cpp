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
  CHECK(orchestrator::tick_roadmap(before, progress()) == after);
  CHECK(orchestrator::tick_roadmap(after, progress()) == after); // nothing left to change
}
