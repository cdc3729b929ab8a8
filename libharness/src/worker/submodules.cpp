#include "harness/worker/submodules.hpp"

#include "harness/worker/git.hpp"

namespace harness::worker {
namespace fs = std::filesystem;

std::vector<std::string> submodule_paths(const fs::path& root) {
  std::error_code ec;
  if (!fs::exists(root / ".gitmodules", ec)) return {}; // the usual case, without a git process
  // .gitmodules names them (`--null`: "key\nvalue" records, for paths with any character); the
  // index says which still are gitlinks (mode 160000), for a .gitmodules left behind.
  const auto listed = run_git(root, {"config", "--file", ".gitmodules", "--null", "--get-regexp", "^submodule\\..*\\.path$"});
  if (listed.exit_code != 0) return {};
  std::vector<std::string> args = {"ls-files", "--stage", "-z", "--"};
  for (const auto& record : nul_separated(listed.out))
    if (const auto nl = record.find('\n'); nl != std::string::npos) args.push_back(literal_pathspec(record.substr(nl + 1)));
  if (args.size() == 4) return {};
  const auto staged = run_git(root, args);
  std::vector<std::string> out;
  for (const auto& entry : nul_separated(staged.out))
    if (const auto tab = entry.find('\t'); entry.starts_with("160000 ") && tab != std::string::npos)
      out.push_back(entry.substr(tab + 1));
  return out;
}

std::optional<std::string> submodule_holding(const std::vector<std::string>& submodules, std::string_view path) {
  for (const auto& sub : submodules)
    if (path.size() > sub.size() && path.starts_with(sub) && path[sub.size()] == '/') return sub;
  return std::nullopt;
}

} // namespace harness::worker
