#include "harness/util/project_root.hpp"

namespace harness::util {
namespace fs = std::filesystem;

namespace {

/// "/a/b/c/.." is "/a/b", not lexically_normal's "/a/b/".
fs::path normal(const fs::path& p) {
  fs::path n = p.lexically_normal();
  return n.has_filename() || n == n.root_path() ? n : n.parent_path();
}

} // namespace

std::optional<fs::path> find_project_root(const fs::path& start) {
  std::error_code ec;
  // The walk goes over the real directories, symlinks resolved: what `..` resolves to.
  fs::path real = fs::weakly_canonical(fs::absolute(start, ec), ec);
  if (ec) return std::nullopt;
  fs::path answer = start;
  for (;;) {
    if (fs::exists(real / ".git", ec)) return answer == start ? start : normal(answer);
    if (real.parent_path() == real) return std::nullopt;
    real = real.parent_path();
    answer /= "..";
  }
}

} // namespace harness::util
