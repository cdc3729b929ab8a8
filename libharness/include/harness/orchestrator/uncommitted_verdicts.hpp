#pragma once
// A plan's `verification: passed` is the orchestrator's to write, and a run commits every mark it
// writes (or keeps it among its own uncommitted writes when a commit fails or the run is killed).
// A SUMMARY that says so while the committed file does not, and no run wrote it, had its verdict
// written by someone else: a worker that forged another plan's SUMMARY (review BB M1), which the
// next run after a kill believed, running neither that plan nor its phase's verification. Such a
// verdict is not believed: the plan's checks run again, and so does its phase's verification. A
// person's edit elsewhere in a SUMMARY whose committed version has the verdict changes nothing.

#include "harness/spec/spec.hpp"
#include "harness/worker/git.hpp"

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace harness::orchestrator {

/// HEAD's version of a file (a path relative to the project root); nullopt when HEAD has none.
using CommittedText = std::function<std::optional<std::string>(const std::string& path)>;

/// What forget_uncommitted_verdicts forgot.
struct ForgottenVerdicts {
  std::vector<std::string> plans;   ///< plan ids whose SUMMARY verdict was forgotten, in plan order
  std::vector<std::string> reports; ///< phase and final VERIFICATION files forgotten (relative to the project)
};

/// Forgets, in `spec` (in memory: the files are left as they are), the `verification: passed` of
/// every plan whose SUMMARY is among `changes` (git status: untracked or modified), not among
/// `own_writes` (paths relative to the project root that a run of ours wrote and has not
/// committed), and whose `committed` version does not say `verification: passed`; adds the plan
/// to the `executed_since` of its phase's and the final verification, so that neither covers it
/// any more. A phase's or the final VERIFICATION.md saying `status: passed` on the same terms (a
/// forged report alone counted its plans verified, review HH F1) is forgotten whole: that
/// verification runs again.
ForgottenVerdicts forget_uncommitted_verdicts(spec::Spec& spec, const std::vector<worker::GitChange>& changes,
                                              const std::set<std::string>& own_writes, const CommittedText& committed);

/// CommittedText from `git show HEAD:PATH` in `project_root`.
CommittedText committed_in_head(const std::filesystem::path& project_root);

} // namespace harness::orchestrator
