#include "harness/worker/branch_rewind.hpp"

#include "harness/worker/git.hpp"

namespace harness::worker {

namespace {

/// The commits `log_range` ("A..B") names, newest first, every one of them (keep_all).
std::vector<TrailerCommit> commits_in(const std::filesystem::path& root, const std::string& log_range) {
  auto args = trailer_log_args(false);
  args.push_back(log_range);
  auto r = run_git(root, args);
  return r.exit_code == 0 ? parse_trailer_log(r.out, false, true) : std::vector<TrailerCommit>{};
}

} // namespace

std::optional<BranchRewind> find_rewind(const std::filesystem::path& root, const std::string& old_tip,
                                        const std::string& new_tip) {
  if (old_tip.empty() || new_tip.empty() || old_tip == new_tip) return std::nullopt;
  // Exit 0: an ancestor (a fast forward); 1: not one; anything else: git could not tell.
  if (run_git(root, {"merge-base", "--is-ancestor", old_tip, new_tip}).exit_code != 1) return std::nullopt;
  return BranchRewind{old_tip, new_tip, commits_in(root, new_tip + ".." + old_tip),
                      commits_in(root, old_tip + ".." + new_tip)};
}

} // namespace harness::worker
