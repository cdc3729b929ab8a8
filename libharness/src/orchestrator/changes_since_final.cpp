#include "harness/orchestrator/changes_since_final.hpp"

#include "harness/spec/done_state.hpp"
#include "harness/verify/work_hash.hpp"
#include "harness/worker/git.hpp"

#include <fmt/format.h>

namespace harness::orchestrator {
namespace fs = std::filesystem;

std::vector<std::string> changes_since_final(const spec::Spec& spec) {
  if (!spec.final_verification || !spec::read_done_state(spec).final.passed()) return {};
  const auto& report = *spec.final_verification;
  const auto& layout = spec.layout;
  std::vector<std::string> out;
  // A report from before harness recorded work_hash cannot tell: nothing is said about the files.
  if (!report.work_hash.empty()) {
    std::vector<std::string> plans;
    for (const auto& p : spec.plans) plans.push_back(p.id);
    if (const auto now = verify::work_hash(spec, report.plans.value_or(plans)); !now.empty() && now != report.work_hash)
      out.push_back("the files its plans write changed (its work_hash no longer matches them)");
  }
  const fs::path& root = layout.project_root;
  auto in_repo = [&](const fs::path& p) { return worker::literal_pathspec(p.lexically_relative(root).generic_string()); };
  const auto last = worker::run_git(root, {"log", "-1", "--format=%H", "--", in_repo(layout.final_verification)});
  const std::string commit = last.exit_code == 0 ? last.out.substr(0, last.out.find('\n')) : "";
  if (commit.empty()) return out; // not committed yet: `verify --final` just wrote it
  std::vector<std::string> args{"diff", "--name-only", commit, "--"};
  for (const auto& p : spec.plans) args.push_back(in_repo(layout.spec_dir / p.file));
  const auto diff = worker::run_git(root, args);
  std::vector<std::string> changed;
  for (std::size_t start = 0; diff.exit_code == 0 && start < diff.out.size();) {
    const auto nl = diff.out.find('\n', start);
    const auto line = diff.out.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    if (!line.empty()) changed.push_back(fs::path(line).filename().string());
    start = nl == std::string::npos ? diff.out.size() : nl + 1;
  }
  constexpr std::size_t shown = 3;
  if (!changed.empty()) {
    std::string names;
    for (std::size_t i = 0; i < changed.size() && i < shown; ++i) names += (i ? ", " : "") + changed[i];
    if (changed.size() > shown) names += fmt::format(" and {} more", changed.size() - shown);
    out.push_back(fmt::format("{} changed since it was committed", names));
  }
  return out;
}

} // namespace harness::orchestrator
