#pragma once
// Internal: checks across plans (ids, dependencies, cycles) and of plan paths.

#include "harness/spec/diagnostic.hpp"
#include "harness/spec/documents.hpp"
#include "harness/spec/layout.hpp"
#include "harness/spec/plan.hpp"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace harness::spec::detail {

/// Plan file texts by plan file (display path), for source lines in diagnostics.
using SourceTexts = std::map<std::string, std::string>;

/// files_modified / files_read: no absolute path, nothing escaping the project, valid globs.
void validate_plan_paths(const Plan& plan, const SourceTexts& texts, std::vector<Diagnostic>& out);

/// Duplicate ids, unknown and self dependencies, dependencies on later phases, cycles.
void validate_plan_set(const std::vector<Plan>& plans, const SourceTexts& texts, std::vector<Diagnostic>& out);

/// H036: a plan that depends on a plan of a later phase whose phase waits, through ROADMAP.md's
/// `Depends on` (directly or through other phases and plans), for the first plan's phase: the
/// scheduler could execute neither. Follows the phase dependencies the scheduler follows (earlier
/// phases that have plans); each cycle is reported once, on the depends_on entry that closes it.
void validate_roadmap_cycles(const std::vector<Plan>& plans, const Roadmap& roadmap, const SourceTexts& texts,
                             std::vector<Diagnostic>& out);

/// H038: a symbolic link in the spec directory that leads outside the project root. harness
/// follows links where it reads and writes the spec's documents (a ROADMAP.md shared inside the
/// repository stays a link), so a link from someone else's spec (`STATUS.md -> ~/.profile`,
/// `execution -> /elsewhere`) would have it overwrite files outside the project.
void validate_links_outside(const Layout& layout, std::vector<Diagnostic>& out);

/// H039: the spec directory's name, or a phase directory's, holds a control character. Those
/// names go into commit messages and documents harness writes, where a newline adds lines (a
/// `Spec:` or `Redo:` trailer of the namer's choosing).
void validate_directory_names(const Layout& layout, std::vector<Diagnostic>& out);

/// H040: a plan's `requirements:` names an id REQUIREMENTS.md (`requirements_file`, as shown)
/// does not define (parse_requirement_ids: `defined`); nothing is said when it defines none.
void validate_requirement_ids(const std::vector<Plan>& plans, const std::set<std::string, std::less<>>& defined,
                              const std::string& requirements_file, const SourceTexts& texts, std::vector<Diagnostic>& out);

/// First line at or after `from`, up to the end of the frontmatter, that holds `needle` as an
/// item of its own, else the first that contains it (for list items), else `from`.
int find_line(const std::string& text, int from, std::string_view needle);

} // namespace harness::spec::detail
