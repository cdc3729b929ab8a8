#pragma once
// A branch whose tip moved to a commit that does not descend from where it was: `git reset`,
// `git commit --amend`, a rebase. The commits it held before are then on no branch (only in the
// reflog), and whatever a run recorded about them (commits.log, a plan counted as done) no longer
// matches the history.

#include "harness/worker/trailers.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace harness::worker {

/// What a rewind took off a branch and put on it.
struct BranchRewind {
  std::string old_tip, new_tip;
  std::vector<TrailerCommit> lost;  ///< in old_tip's history, not in new_tip's; newest first, trailers read
  std::vector<TrailerCommit> added; ///< in new_tip's history, not in old_tip's (made on the rewound branch)
};

/// Whether moving from `old_tip` to `new_tip` rewound the branch: one `git merge-base
/// --is-ancestor` (and, when it did, two `git log`s for the lists). nullopt for a fast forward,
/// and when git cannot tell (a commit it does not know): no run is stopped on a guess.
std::optional<BranchRewind> find_rewind(const std::filesystem::path& root, const std::string& old_tip,
                                        const std::string& new_tip);

} // namespace harness::worker
