#pragma once
// Parsing one PLAN.md into a spec::Plan.

#include "harness/spec/diagnostic.hpp"
#include "harness/spec/plan.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace harness::spec {

/// How strict the required-field rules are: the spec-centric layout requires `plan_id`; GSD's
/// legacy plans name themselves by file name and `phase`/`plan`.
enum class PlanDialect { harness, gsd };

/// Parses `text` (the file shown to users as `display_path`). Diagnostics are appended to `out`.
/// Returns nullopt only when the frontmatter cannot be read at all.
std::optional<Plan> parse_plan(std::string_view text, const std::string& display_path, PlanDialect dialect,
                               std::vector<Diagnostic>& out);

/// Facts of a plan body: title, tasks, code blocks, objective.
void scan_plan_body(std::string_view body, int first_line, Plan& plan);

/// A plan's heading without the plan's own id in front ("01-02: Add parser", "01-02 - Add parser"
/// and "01-02 Add parser" give "Add parser"): status and commit subjects show the id beside the
/// title already. A heading that does not start with `id` (or is only the id) stays as it is.
std::string title_without_id(std::string_view heading, std::string_view id);

/// Splits a plan file name `02.1-03-PLAN.md` into phase and number; nullopt for other names.
std::optional<std::pair<PhaseNumber, int>> parse_plan_file_name(std::string_view file_name);

/// The canonical id of a plan: "02.1-03".
std::string plan_id_of(PhaseNumber phase, int number);

/// GSD names a plan of the same phase by its number alone (`depends_on: ["01"]`): the full id
/// that `dependency` (1 to 3 digits) means in `phase`, or nullopt when it is anything else.
std::optional<std::string> same_phase_plan_id(PhaseNumber phase, std::string_view dependency);

} // namespace harness::spec
