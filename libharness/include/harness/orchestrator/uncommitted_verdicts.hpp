#pragma once
// A plan's `verification: passed` is the orchestrator's to write, and a run commits every mark it
// writes (or keeps it among its own uncommitted writes when a commit fails or the run is killed).
// A SUMMARY that says so while it is uncommitted and no run wrote it had its verdict written by
// someone else: a worker that forged another plan's SUMMARY (review BB M1), which the next run
// after a kill believed, running neither that plan nor its phase's verification. Such a verdict
// is not believed: the plan's checks run again, and so does its phase's verification.

#include "harness/spec/spec.hpp"
#include "harness/worker/git.hpp"

#include <set>
#include <string>
#include <vector>

namespace harness::orchestrator {

/// Forgets, in `spec` (in memory: the file is left as it is), the `verification: passed` of every
/// plan whose SUMMARY is among `changes` (git status: untracked or modified) and not among
/// `own_writes` (paths relative to the project root that a run of ours wrote and has not
/// committed); adds the plan to the `executed_since` of its phase's and the final verification,
/// so that neither covers it any more. Returns those plans' ids, in plan order.
std::vector<std::string> forget_uncommitted_verdicts(spec::Spec& spec, const std::vector<worker::GitChange>& changes,
                                                     const std::set<std::string>& own_writes);

} // namespace harness::orchestrator
