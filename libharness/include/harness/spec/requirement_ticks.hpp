#pragma once
// GSD's marks of which requirements are done, in REQUIREMENTS.md: the checklist's boxes and the
// traceability table's Status column. GSD ticks them when a phase completes, and reads them back
// (its progress and milestone audit); a phase harness verified must read as GSD would leave it.

#include <map>
#include <string>
#include <string_view>

namespace harness::spec {

/// `text` with the requirements in `met` marked as it says: a checklist line (`- [ ] **AUTH-01**:
/// ...`) ticked when met and cleared when not; in a table whose header starts `Requirement` and
/// has a `Status` column (GSD's traceability table), the id's row says `Complete` when met, and
/// `Pending` when not but it said `Complete`. Ids not in `met`, a checklist line without a box,
/// other lines and fenced code blocks stay as they are.
std::string tick_requirements(std::string_view text, const std::map<std::string, bool, std::less<>>& met);

} // namespace harness::spec
