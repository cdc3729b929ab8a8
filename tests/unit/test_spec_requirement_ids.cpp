// The requirement ids REQUIREMENTS.md defines (requirement_ids.hpp), which H040 holds plans' ids against.
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
