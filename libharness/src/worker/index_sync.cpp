#include "harness/worker/index_sync.hpp"

#include "harness/worker/git.hpp"

#include <algorithm>
#include <optional>

namespace harness::worker {
namespace fs = std::filesystem;

namespace {

/// The paths `git <args> -- pathspecs` names (-z), or nullopt when git fails.
std::optional<std::vector<std::string>> listed(const fs::path& root, std::vector<std::string> args,
                                               const std::vector<std::string>& pathspecs) {
  args.push_back("--");
  args.insert(args.end(), pathspecs.begin(), pathspecs.end());
  const auto r = run_git(root, std::move(args));
  if (r.exit_code != 0) return std::nullopt;
  return nul_separated(r.out);
}

std::vector<std::string> literal(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) out.push_back(literal_pathspec(p));
  return out;
}

} // namespace

std::vector<std::string> align_index_with_commit(const fs::path& root, const std::string& hash,
                                                 const std::vector<std::string>& paths) {
  if (hash.empty() || paths.empty()) return {};
  const std::vector<std::string> differs = {"--no-optional-locks", "diff-index", "--cached", "--no-renames", "--name-only", "-z"};
  // Ours: `commit --only` wrote them into the index as they were before the hook; git means the
  // index to hold what it committed, as it does when no hook changes anything.
  auto args = differs;
  args.push_back(hash);
  auto reset = listed(root, args, literal(paths)).value_or(std::vector<std::string>{});
  // A hook's own additions: in the commit, not among the paths named. Only where the index still
  // holds the parent's entry: anything else there is what someone staged, and stays.
  std::vector<std::string> outside;
  for (const auto& p : paths) outside.push_back(":(exclude,literal)" + p);
  const auto added = listed(root, {"diff-tree", "-r", "--no-commit-id", "--no-renames", "--name-only", "-z", hash}, outside);
  if (added && !added->empty()) {
    auto stale = listed(root, args, literal(*added)).value_or(std::vector<std::string>{});
    if (!stale.empty()) {
      auto to_parent = differs;
      to_parent.push_back(hash + "^"); // there is one: diff-tree lists nothing for a root commit
      // git failing here tells nothing of what was staged: those entries are left as they are.
      if (const auto staged = listed(root, to_parent, literal(stale)))
        for (auto& p : stale)
          if (std::ranges::find(*staged, p) == staged->end()) reset.push_back(std::move(p));
    }
  }
  if (reset.empty()) return {};
  std::vector<std::string> args_reset = {"reset", "-q", hash, "--"};
  for (const auto& p : reset) args_reset.push_back(literal_pathspec(p));
  if (run_git_writing_index(root, std::move(args_reset)).exit_code != 0) return {};
  std::ranges::sort(reset);
  return reset;
}

} // namespace harness::worker
