#pragma once
// Parsing ROADMAP.md, SUMMARY.md and VERIFICATION.md.

#include "harness/spec/diagnostic.hpp"
#include "harness/spec/documents.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace harness::spec {

/// ROADMAP.md: seed 000 Phase 3 frontmatter (optional) and the `## Phase N: Name` sections.
Roadmap parse_roadmap(std::string_view text, const std::string& display_path, std::vector<Diagnostic>& out);

/// SUMMARY.md frontmatter and its Deviations section. `status` and `verification` outside their
/// sets are errors (H017); with `file_plan_id` (the id its file name gives), so is a `plan_id`
/// naming another plan (H006).
Summary parse_summary(std::string_view text, const std::string& display_path, std::vector<Diagnostic>& out,
                      std::string_view file_plan_id = {});

/// VERIFICATION.md frontmatter (`status: passed | gaps_found | human_needed`).
Verification parse_verification(std::string_view text, const std::string& display_path, std::vector<Diagnostic>& out);

/// STATUS.md: reads the `blocked` list of its frontmatter, ignores everything else.
StatusDocument parse_status_document(std::string_view text, const std::string& display_path, std::vector<Diagnostic>& out);

} // namespace harness::spec
