#pragma once
// What a planner killed mid-write leaves: a PLAN file cut short, which no longer parses. A run
// resumed over it would refuse the whole spec (H002) until the user found and removed the file by
// hand, though the run knows from its planning mark that the phase's planning never finished and
// that the phase is planned again anyway. Such files are set aside instead, and said.

#include "harness/spec/spec.hpp"

#include <expected>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace harness::orchestrator {

/// A PLAN file of a phase whose planning was interrupted that did not parse into a plan.
struct PlanningLeftover {
  std::filesystem::path file; ///< absolute
  std::string shown;          ///< relative to the spec directory, as its diagnostics name it
  std::string why;            ///< the first error: "H002: the frontmatter's closing '---' line is missing"
};

/// The PLAN files of `interrupted` phases that did not parse, when they account for every error
/// of the spec; empty otherwise (the spec is refused as usual: a plan that parsed, or an error in
/// any other file, is not a planner's half-written output, and is the user's to look at).
std::vector<PlanningLeftover> planning_leftovers(const spec::Spec& spec,
                                                 const std::vector<spec::PhaseNumber>& interrupted);

/// The phases of `spec_name` whose planner was started and never finished, as the project's
/// store marks them (empty when it has no store yet).
std::vector<spec::PhaseNumber> interrupted_planning_phases(const std::filesystem::path& project_root,
                                                           std::string_view spec_name);

/// Moves `leftovers` into a new directory `.orchestration/discarded/<spec>/planning-<stamp>-<pid>/`
/// (keeping their paths below the spec directory) by rename; returns that directory relative to
/// the project root. Nothing is deleted: the user may want to look.
std::expected<std::string, std::string> set_aside_leftovers(const spec::Layout& layout,
                                                           const std::vector<PlanningLeftover>& leftovers);

/// For a spec refused for its errors: the PLAN files with errors that no commit holds as they are
/// (new, or changed since their commit), which a worker of an earlier run (a planner whose
/// attempts failed, a gap planner or reconcile killed mid-write) or an edit left, and how to go
/// back to the committed plans; empty when there are none (review SS M1, M2: every later run was
/// refused with nothing saying where the files came from).
std::string uncommitted_plan_errors_hint(const spec::Spec& spec);

} // namespace harness::orchestrator
