#include "harness/setup/cli_on_path.hpp"

#include <fmt/format.h>

#include <algorithm>

#include <unistd.h>

namespace harness::setup {
namespace fs = std::filesystem;

fs::path cli_on_path(std::string_view path_env) {
  std::size_t start = 0;
  while (start <= path_env.size()) {
    const std::size_t colon = std::min(path_env.find(':', start), path_env.size());
    const std::string_view dir = path_env.substr(start, colon - start);
    const fs::path candidate = fs::path(dir.empty() ? "." : std::string(dir)) / "harness-cli";
    std::error_code ec;
    if (::access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate, ec)) return candidate;
    start = colon + 1;
  }
  return {};
}

std::string cli_path_warning(const fs::path& self, std::string_view path_env) {
  const auto dir = self.parent_path().string();
  const auto found = cli_on_path(path_env);
  if (found.empty())
    return fmt::format("`harness-cli` is not on PATH, and the installed /harness:* commands and agents call it by "
                       "that name; put its directory on PATH before starting Claude Code: export PATH=\"{}:$PATH\"",
                       dir);
  std::error_code ec;
  if (fs::equivalent(found, self, ec)) return {};
  return fmt::format("the `harness-cli` on PATH is {}, not this one ({}): the installed /harness:* commands would run "
                     "that one; put this one's directory first: export PATH=\"{}:$PATH\"",
                     found.string(), self.string(), dir);
}

} // namespace harness::setup
