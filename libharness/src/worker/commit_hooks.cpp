#include "harness/worker/commit_hooks.hpp"

#include "harness/worker/git.hpp"

#include <unistd.h>

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

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

std::vector<std::string> message_hooks(const fs::path& root) {
  const auto dir = hooks_dir(root);
  if (!dir) return {};
  std::vector<std::string> out;
  for (const char* name : {"prepare-commit-msg", "commit-msg"}) {
    const fs::path hook = *dir / name;
    if (::access(hook.c_str(), X_OK) != 0) continue;
    const fs::path rel = hook.lexically_normal().lexically_relative(root.lexically_normal());
    const bool inside = !rel.empty() && *rel.begin() != "..";
    out.push_back((inside ? rel : hook.lexically_normal()).generic_string());
  }
  return out;
}

} // namespace harness::worker
