// The requirement ids REQUIREMENTS.md defines (requirement_ids.hpp), which H040 holds plans' ids against,
// and GSD's marks of which are met (requirement_ticks.hpp).
#include "harness/spec/requirement_ticks.hpp"
#include "../../libharness/src/spec/requirement_ids.hpp"

#include <catch2/catch.hpp>

using harness::spec::detail::parse_requirement_ids;
using Ids = std::set<std::string, std::less<>>;

TEST_CASE("Requirement ids come from an id-headed table's first column and from checklist lines", "[spec][requirements]") {
  CHECK(parse_requirement_ids("| ID | what |\n|:--|--|\n| R1 | a |\n| `R-2` | b |\n| **R.3** | c |\n") == Ids{"R1", "R-2", "R.3"});
  CHECK(parse_requirement_ids("- [ ] **AUTH-01**: sign up\n* [x] **AUTH-02** log in\n- **PERF_1**: fast\n") ==
        Ids{"AUTH-01", "AUTH-02", "PERF_1"});
}

TEST_CASE("Placeholders, other tables, code blocks and plain list items define no requirement", "[spec][requirements]") {
  // The template's own rows before it is filled in.
  CHECK(parse_requirement_ids("| id | requirement |\n|---|---|\n| {{id}} | x |\n| ... | ... |\n| R 1 | spaced |\n").empty());
  // A table headed otherwise (GSD's traceability) names ids defined elsewhere.
  CHECK(parse_requirement_ids("| Requirement | Phase |\n|---|---|\n| R9 | 1 |\n").empty());
  CHECK(parse_requirement_ids("```\n| id | x |\n|---|---|\n| R8 | y |\n- [ ] **R7**: z\n```\n").empty());
  CHECK(parse_requirement_ids("- R6: no bold id\n- [ ] plain text\n").empty());
  // A table ends at its first line without a bar: the next table's header is read anew.
  CHECK(parse_requirement_ids("| id | a |\n|---|---|\n| R1 | x |\n\n| Requirement | b |\n|---|---|\n| R2 | y |\n") == Ids{"R1"});
}

TEST_CASE("tick_requirements marks GSD's checklist and traceability table as the plans say", "[spec][requirements]") {
  // Review S, finding 9: GSD ticks a requirement when its phase completes and reads the marks
  // back; phases harness verified left them all unticked.
  const std::string before = "# Requirements\n\n"
                             "- [ ] **STOR-01**: stored\n"
                             "- [x] **STOR-02**: has an id\n"
                             "  * [ ] **TAG-01** tags\n"
                             "- [-] **TAG-02**: somebody's own mark\n"
                             "- **SYNC-01**: no box\n"
                             "- [ ] **OTHER-01**: no plan names it\n"
                             "```\n- [ ] **STOR-01**: in a code block\n```\n\n"
                             "| Requirement | Phase | Status |\r\n"
                             "|-------------|-------|--------|\r\n"
                             "| STOR-01 | Phase 1 | Pending |\r\n"
                             "| STOR-02 | Phase 1 | Complete |\r\n"
                             "| TAG-01 | Phase 2 | In Progress |\r\n"
                             "| OTHER-01 | Phase 3 | Pending |\r\n\n"
                             "| Feature | Status |\n|---|---|\n| STOR-01 | Pending |\n";
  const std::string after = "# Requirements\n\n"
                            "- [x] **STOR-01**: stored\n"
                            "- [ ] **STOR-02**: has an id\n"
                            "  * [x] **TAG-01** tags\n"
                            "- [-] **TAG-02**: somebody's own mark\n"
                            "- **SYNC-01**: no box\n"
                            "- [ ] **OTHER-01**: no plan names it\n"
                            "```\n- [ ] **STOR-01**: in a code block\n```\n\n"
                            "| Requirement | Phase | Status |\r\n"
                            "|-------------|-------|--------|\r\n"
                            "| STOR-01 | Phase 1 | Complete |\r\n"
                            "| STOR-02 | Phase 1 | Pending |\r\n"
                            "| TAG-01 | Phase 2 | Complete |\r\n"
                            "| OTHER-01 | Phase 3 | Pending |\r\n\n"
                            "| Feature | Status |\n|---|---|\n| STOR-01 | Pending |\n";
  const std::map<std::string, bool, std::less<>> met = {{"STOR-01", true}, {"STOR-02", false}, {"TAG-01", true}, {"TAG-02", true}};
  CHECK(harness::spec::tick_requirements(before, met) == after);
  CHECK(harness::spec::tick_requirements(after, met) == after);
  CHECK(harness::spec::tick_requirements(before, {}) == before);
}

TEST_CASE("tick_requirements marks the status column of harness's REQUIREMENTS template", "[spec][requirements]") {
  // Review NN F9: the template's table (`| id | ... | status |`) was never ticked.
  const std::string before = "| id | requirement | how we know | priority | status |\n|---|---|---|---|---|\n"
                             "| R1 | lists tasks | GET /api/tasks | must | Pending |\n"
                             "| R2 | deletes tasks | DELETE | should | Pending |\n";
  const std::string after = "| id | requirement | how we know | priority | status |\n|---|---|---|---|---|\n"
                            "| R1 | lists tasks | GET /api/tasks | must | Complete |\n"
                            "| R2 | deletes tasks | DELETE | should | Pending |\n";
  CHECK(harness::spec::tick_requirements(before, {{"R1", true}, {"R2", false}}) == after);
  // A cell holding an escaped pipe is one cell (review QQ F9), written back as it was.
  const std::string piped = "| id | requirement | status |\n|---|---|---|\n| R1 | parse `a \\| b` | Pending |\n";
  CHECK(harness::spec::tick_requirements(piped, {{"R1", true}}) ==
        "| id | requirement | status |\n|---|---|---|\n| R1 | parse `a \\| b` | Complete |\n");
  // A status a person set (not one harness writes) stays.
  const std::string dropped = "| id | requirement | status |\n|---|---|---|\n| R1 | lists tasks | Dropped |\n";
  CHECK(harness::spec::tick_requirements(dropped, {{"R1", true}}) == dropped);
  CHECK(harness::spec::detail::parse_requirement_ids(before) == std::set<std::string, std::less<>>{"R1", "R2"});
}
