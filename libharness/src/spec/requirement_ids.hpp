#pragma once
// Internal: the requirement ids REQUIREMENTS.md defines, which plans name in `requirements:`.
//
// Two ways of writing them are read: the harness template's table, whose first column is headed
// `id` (| R1 | ... |), and GSD's checklist lines (`- [ ] **AUTH-01**: User can sign up`, also
// without the box). Tables headed otherwise (GSD's traceability table lists ids it does not
// define) and text inside fenced code blocks are not definitions.

#include <set>
#include <string>
#include <string_view>

namespace harness::spec::detail {

std::set<std::string, std::less<>> parse_requirement_ids(std::string_view requirements_md);

/// The id a checklist line defines (`- [ ] **AUTH-01**: text`, `* [x] **AUTH-01** text`,
/// `- **AUTH-01**: text` -> "AUTH-01"), empty for any other line.
std::string checklist_id(std::string_view line);

/// `**R1**`, `` `R1` `` or R1 -> "R1"; empty unless it looks like an id.
std::string as_id(std::string_view cell);

} // namespace harness::spec::detail
