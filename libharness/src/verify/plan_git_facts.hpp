#pragma once
// Internal: what the `commits` check asks git about a plan, asked once for every plan of a phase
// or spec. Asked plan by plan it was two git processes per plan, one of them a walk of the whole
// history: `verify --final` of a 1,000-plan spec took 23 s after its run, the run's own final
// verification 4-7 s, and both grew with the history.

#include "harness/spec/spec.hpp"
#include "harness/verify/engine.hpp"
#include "harness/worker/trailers.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace harness::verify::detail {

/// The plan's own literal files relative to the project: its `files_modified` entries without
/// wildcards and the files its checks read, directories left out (they may hold another plan's
/// files, written beside this verification).
std::set<std::string> literal_files(const spec::Plan& plan, const std::filesystem::path& root);

/// Git's answers for a set of plans (one plan's too), read by read_plan_git_facts.
struct PlanGitFacts {
  /// The commits carrying `Plan:` trailers of these plans, by plan id, oldest last as `git log`
  /// lists them, with their paths; set when the history was read here (no TrailerIndex given).
  std::optional<std::map<std::string, std::vector<worker::TrailerCommit>>> commits;
  /// In GSD's layout, the commits GSD's executor made (`feat(01-02): ...`, no `Plan:` trailer;
  /// worker/gsd_commits.hpp) of the plans that have no commit of this spec with trailers, by
  /// plan id, with their paths: a plan GSD executed before harness ran the project.
  std::map<std::string, std::vector<worker::TrailerCommit>> gsd_commits;
  /// git could not read the history: `git could not read the history (exit N): ...`.
  std::string history_error;
  /// Which of the plans' literal_files outside a git submodule are untracked or staged as new.
  std::optional<std::set<std::string>> uncommitted;
};

/// One `git log` for the commits of all `plans` (none when `opt.trailers` holds them: then the
/// paths its first read left out are asked in one `git show`), one more in GSD's layout when some
/// plan has no trailer commit of this spec (gsd_commits), and one `git status` for the literal
/// files of all of them (a few, for thousands of plans, to keep each command line short).
/// Nothing when `opt.check_commits` is off.
PlanGitFacts read_plan_git_facts(const spec::Spec& spec, const std::vector<const spec::Plan*>& plans, const VerifyOptions& opt);

} // namespace harness::verify::detail
