#include "plan_git_facts.hpp"

#include "harness/worker/git.hpp"
#include "harness/worker/gsd_commits.hpp"
#include "harness/worker/submodules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <expected>

namespace harness::verify::detail {
namespace fs = std::filesystem;

namespace {

/// Paths (or hashes) per git command line: thousands of plans would pass the kernel's limit on
/// one command's arguments; a few hundred kilobytes is far below it.
constexpr std::size_t k_args_per_command = 1000;

std::set<std::string> untracked_or_added(const fs::path& root, const std::vector<std::string>& paths) {
  std::set<std::string> out;
  for (std::size_t at = 0; at < paths.size(); at += k_args_per_command) {
    std::vector<std::string> specs;
    for (std::size_t i = at; i < std::min(paths.size(), at + k_args_per_command); ++i)
      specs.push_back(worker::literal_pathspec(paths[i]));
    for (auto& c : worker::changed_paths(root, specs))
      if (c.untracked || c.added) out.insert(std::move(c.path));
  }
  return out;
}

/// The paths of the plans' commits that the index's first read of the history left out, asked
/// once for all of them; files_of keeps them, so each plan's own call then starts no git.
void fill_commit_files(const worker::TrailerIndex& trailers, const std::vector<const spec::Plan*>& plans) {
  std::vector<worker::TrailerCommit> commits;
  for (const auto* plan : plans)
    for (auto& c : trailers.commits_for(plan->id))
      if (!c.files_known) commits.push_back(std::move(c));
  for (std::size_t at = 0; at < commits.size(); at += k_args_per_command) {
    const auto end = commits.begin() + static_cast<std::ptrdiff_t>(std::min(commits.size(), at + k_args_per_command));
    (void)trailers.files_of({commits.begin() + static_cast<std::ptrdiff_t>(at), end});
  }
}

/// The GSD commits (gsd_commits.hpp) of `ids` that carry no `Plan:` trailer and change a file
/// under `scope` (the GSD project's directory in the repository with a trailing '/', empty for the
/// root: plan ids repeat in every GSD project of a repository), by plan id, newest first, up to
/// the newest `harness-cli redo` of the whole plan by this spec (`ours`); git's complaint when it
/// cannot read the history.
std::expected<std::map<std::string, std::vector<worker::TrailerCommit>>, std::string>
read_gsd_commits(const fs::path& root, const std::vector<std::string>& ids, const std::string& scope,
                 const worker::SpecOwner& ours) {
  std::map<std::string, std::vector<worker::TrailerCommit>> out;
  for (std::size_t at = 0; at < ids.size(); at += k_args_per_command) {
    const std::vector<std::string> some(ids.begin() + static_cast<std::ptrdiff_t>(at),
                                        ids.begin() + static_cast<std::ptrdiff_t>(std::min(ids.size(), at + k_args_per_command)));
    auto args = worker::trailer_log_args(true);
    args.insert(args.end(), {"--extended-regexp", "--grep", worker::gsd_subject_pattern(some), "--grep",
                             "^Redo: " + worker::plan_id_group(some) + "$"});
    const auto log = worker::run_git(root, args);
    if (log.exit_code != 0)
      return std::unexpected(fmt::format("git could not read the history (exit {}): {}", log.exit_code, log.messages()));
    std::set<std::string> redone; // plans a marker newer than the commits still to come names whole
    for (auto& c : worker::parse_trailer_log(log.out, true, true)) {
      if (!c.redo.empty()) {
        if (ours(c.spec))
          for (const auto& [plan, task] : c.redo)
            if (task == 0) redone.insert(plan);
        continue;
      }
      // --grep matches any line of the message: only a subject names the plan.
      if (!c.plan.empty()) continue;
      auto id = worker::plan_of_gsd_subject(c.subject);
      if (std::ranges::find(some, id) == some.end() || redone.contains(id)) continue;
      if (scope.empty() || std::ranges::any_of(c.files, [&](const std::string& f) { return f.starts_with(scope); }))
        out[id].push_back(std::move(c));
    }
  }
  return out;
}

} // namespace

std::set<std::string> literal_files(const spec::Plan& plan, const fs::path& root) {
  std::set<std::string> paths;
  auto add = [&](const std::string& p) {
    if (p.empty() || p.find_first_of("*?[") != std::string::npos) return;
    const fs::path rel = fs::path(p).lexically_normal();
    std::error_code ec;
    if (rel.is_absolute() || rel.empty() || *rel.begin() == ".." || fs::is_directory(root / rel, ec)) return;
    paths.insert(rel.generic_string());
  };
  for (const auto& f : plan.files_modified) add(f);
  for (const auto& c : plan.must_pass)
    if (c.type == spec::CheckType::file_exists || c.type == spec::CheckType::file_contains) add(c.path);
  for (const auto& a : plan.must_haves.artifacts) add(a.path);
  return paths;
}

PlanGitFacts read_plan_git_facts(const spec::Spec& spec, const std::vector<const spec::Plan*>& plans, const VerifyOptions& opt) {
  PlanGitFacts facts;
  if (!opt.check_commits || plans.empty()) return facts;
  const fs::path& root = spec.layout.project_root;
  if (opt.trailers) fill_commit_files(*opt.trailers, plans);
  else {
    // Every trailer commit once, instead of one walk of the whole history per plan; one plan's
    // alone when it is asked alone (`verify SPEC PLAN` after each plan, in a long history).
    auto args = worker::trailer_log_args(true);
    args.insert(args.end(), {"--fixed-strings", "--grep", plans.size() == 1 ? "Plan: " + plans.front()->id : "Plan: "});
    const auto log = worker::run_git(root, args);
    if (log.exit_code != 0)
      facts.history_error = fmt::format("git could not read the history (exit {}): {}", log.exit_code, log.messages());
    else {
      std::set<std::string> ids;
      for (const auto* plan : plans) ids.insert(plan->id);
      auto& by_plan = facts.commits.emplace();
      for (auto& c : worker::parse_trailer_log(log.out, true))
        if (ids.contains(c.plan)) by_plan[c.plan].push_back(std::move(c));
    }
  }
  if (spec.layout.kind == spec::LayoutKind::legacy_gsd && facts.history_error.empty()) {
    std::vector<std::string> without; // plans with no trailer commit of this spec
    for (const auto* plan : plans) {
      const auto mine = [&](const worker::TrailerCommit& c) { return spec.layout.owns_spec_trailer(c.spec); };
      if (opt.trailers) {
        if (std::ranges::none_of(opt.trailers->commits_for(plan->id), mine)) without.push_back(plan->id);
      } else if (const auto it = facts.commits->find(plan->id); it == facts.commits->end() || std::ranges::none_of(it->second, mine)) {
        without.push_back(plan->id);
      }
    }
    if (!without.empty()) {
      std::string scope = spec.layout.command_argument();
      scope = scope == "." ? std::string() : scope + "/";
      auto gsd = read_gsd_commits(root, without, scope, [&](std::string_view s) { return spec.layout.owns_spec_trailer(s); });
      if (gsd) facts.gsd_commits = std::move(*gsd);
      else facts.history_error = gsd.error();
    }
  }
  const auto submodules = worker::submodule_paths(root); // no git process without a .gitmodules
  std::set<std::string> paths;
  for (const auto* plan : plans)
    for (const auto& p : literal_files(*plan, root))
      if (!worker::submodule_holding(submodules, p)) paths.insert(p);
  facts.uncommitted = untracked_or_added(root, {paths.begin(), paths.end()});
  return facts;
}

} // namespace harness::verify::detail
