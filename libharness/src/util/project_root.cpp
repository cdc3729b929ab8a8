#include "harness/util/project_root.hpp"

namespace harness::util {
namespace fs = std::filesystem;

namespace {

/// "/a/b/c/.." is "/a/b", not lexically_normal's "/a/b/".
fs::path normal(const fs::path& p) {
  fs::path n = p.lexically_normal();
  return n.has_filename() || n == n.root_path() ? n : n.parent_path();
}

/// `start` followed by `steps` times "..", or nullopt when no directory on the way up from
/// `real` (start's real path) holds `marker` as `is_marker` tells.
template <class IsMarker>
std::optional<fs::path> walk_up(const fs::path& start, fs::path real, const char* marker, IsMarker is_marker) {
  fs::path answer = start;
  for (;;) {
    std::error_code ec;
    if (is_marker(real / marker, ec)) return answer == start ? start : normal(answer);
    if (real.parent_path() == real) return std::nullopt;
    real = real.parent_path();
    answer /= "..";
  }
}

} // namespace

std::optional<fs::path> find_project_root(const fs::path& start) {
  std::error_code ec;
  // The walk goes over the real directories, symlinks resolved: what `..` resolves to.
  const fs::path real = fs::weakly_canonical(fs::absolute(start, ec), ec);
  if (ec) return std::nullopt;
  // .git first: a stray .orchestration/ in a subdirectory (an orchestrate once run from there
  // outside a repository) must not hide the repository the orchestrate of the spec uses.
  if (auto root = walk_up(start, real, ".git", [](const fs::path& p, std::error_code& e) { return fs::exists(p, e); }))
    return root;
  return walk_up(start, real, ".orchestration", [](const fs::path& p, std::error_code& e) { return fs::is_directory(p, e); });
}

} // namespace harness::util
