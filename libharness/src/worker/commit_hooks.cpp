#include "harness/worker/commit_hooks.hpp"

#include "harness/worker/git.hpp"

#include <unistd.h>

#include <map>
#include <mutex>
#include <optional>

namespace harness::worker {
namespace fs = std::filesystem;

namespace {

/// `git rev-parse --git-path hooks`, absolute; nullopt when git fails.
std::optional<fs::path> hooks_dir(const fs::path& root) {
  static std::mutex mutex;
  static std::map<fs::path, std::optional<fs::path>> known;
  std::lock_guard lock(mutex);
  if (auto it = known.find(root); it != known.end()) return it->second;
  auto r = run_git(root, {"rev-parse", "--git-path", "hooks"});
  std::optional<fs::path> dir;
  if (r.exit_code == 0) {
    while (!r.out.empty() && (r.out.back() == '\n' || r.out.back() == '\r')) r.out.pop_back();
    fs::path p(r.out);
    dir = p.is_absolute() ? p : root / p;
  }
  known.emplace(root, dir); // a failure too: asked again, git would fail again
  return dir;
}

} // namespace

bool commit_hooks_installed(const fs::path& root) {
  const auto dir = hooks_dir(root);
  if (!dir) return true;
  for (const char* name : {"pre-commit", "prepare-commit-msg", "commit-msg"})
    if (::access((*dir / name).c_str(), X_OK) == 0) return true;
  return false;
}

} // namespace harness::worker
