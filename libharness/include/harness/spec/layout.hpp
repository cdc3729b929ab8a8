#pragma once
// Where the documents of a spec directory live: the spec-centric layout of seed 000 and GSD's
// legacy `.planning/` layout.

#include "harness/spec/phase_number.hpp"

#include <expected>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace harness::spec {

enum class LayoutKind { spec_centric, legacy_gsd };

/// A phase directory: `planning/plans/03-auth` (and its `execution/phases/03-auth` twin).
struct PhaseDir {
  PhaseNumber number;
  std::string slug;                   ///< "03-auth"
  std::filesystem::path plans_dir;    ///< where its PLAN files are
  /// Where its SUMMARY and VERIFICATION files go: `execution/phases/<slug>`, or, for a phase
  /// directory renamed after it ran, the one results directory of its number still under the old
  /// name (`execution/phases/03-login`; see results_renamed).
  std::filesystem::path results_dir;

  /// Whether the results are under another name than the phase directory (renamed since).
  bool results_renamed() const { return results_dir.filename() != plans_dir.filename(); }
};

struct Layout {
  LayoutKind kind = LayoutKind::spec_centric;
  std::filesystem::path spec_dir;     ///< absolute, normalized
  std::filesystem::path project_root; ///< nearest ancestor holding .git, else the working dir
  std::string spec_name;              ///< "SPC-001-auth" (directory name)
  /// What this spec's commits carry in their `Spec:` trailer: the spec-centric directory's name
  /// (spec_name); for GSD's layout the `.planning` directory's path in the project (".planning",
  /// "apps/web/.planning"), which a clone under another directory name keeps. spec_name there is
  /// the project directory's name, what an older harness wrote (still owned: owns_spec_trailer).
  std::string spec_trailer;
  /// The numbered spec directories beside this one (`SPC-NNN-...`), by name: a commit carrying
  /// one of these names in its `Spec:` trailer is theirs even when it shares our SPC number.
  std::vector<std::string> sibling_specs;

  std::filesystem::path spec_md;
  std::filesystem::path status_md;
  std::filesystem::path roadmap_md;
  std::filesystem::path project_md;
  std::filesystem::path requirements_md;
  std::filesystem::path research_dir;
  std::filesystem::path plans_dir;     ///< planning/plans or .planning/phases
  std::filesystem::path results_dir;   ///< execution/phases or .planning/phases
  std::filesystem::path final_verification;
  std::filesystem::path commits_log;

  std::vector<PhaseDir> phases; ///< sorted by number

  /// PLAN path of a plan: `<plans_dir>/<slug>/<id>-PLAN.md`.
  std::filesystem::path plan_file(const PhaseDir& phase, const std::string& plan_id) const;
  /// SUMMARY path: spec-centric `execution/phases/<slug>/<id>-SUMMARY.md`, legacy beside the PLAN.
  std::filesystem::path summary_file(const PhaseDir& phase, const std::string& plan_id) const;
  /// Phase VERIFICATION path.
  std::filesystem::path verification_file(const PhaseDir& phase) const;
  /// Research file for a phase: `planning/research/phase-NN-research.md`.
  std::filesystem::path research_file(PhaseNumber phase) const;
  /// The phase directory of a number, or nullptr.
  const PhaseDir* find_phase(PhaseNumber n) const;
  /// Whether a commit's `Spec:` trailer says the commit is this spec's: spec_trailer, its name, or
  /// an earlier name of this directory (same SPC number, no such directory beside it;
  /// spec::same_spec).
  bool owns_spec_trailer(std::string_view trailer) const;
  /// Path relative to the spec directory, for display.
  std::string relative(const std::filesystem::path& p) const;
  /// The spec directory relative to the project root, with '/' separators and a trailing '/'
  /// ("docs/specs/SPC-001-x/"): the prefix of every git path inside it. Empty when the spec
  /// directory is the project root or outside it.
  std::string spec_dir_in_project() const;
  /// How a harness-cli command names this spec, relative to the project root: the spec directory
  /// ("docs/specs/SPC-001-x"), or for GSD's layout the directory holding `.planning` (".",
  /// "apps/web"): what a message tells the user to run again, as they ran it. The absolute spec
  /// directory when it lies outside the project.
  std::string command_argument() const;
};

/// Discovers the layout of `spec_dir` (which must exist). `cwd` is used as the project root when
/// no ancestor holds `.git`.
std::expected<Layout, std::string> discover_layout(const std::filesystem::path& spec_dir,
                                                   const std::filesystem::path& cwd);

} // namespace harness::spec
