#include "harness/worker/worker_commit.hpp"

#include "harness/spec/spec.hpp"
#include "harness/util/glob.hpp"
#include "harness/util/state_path.hpp"
#include "harness/worker/git.hpp"
#include "harness/worker/submodules.hpp"
#include "harness/worker/trailers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

namespace harness::worker {
namespace fs = std::filesystem;

namespace {

/// The lines the trailer index reads (trailers.cpp), wherever they stand: a worker's message that
/// carried one would speak for another plan (`Redo: 01-01` undoes 01-01's task commits).
bool is_plan_trailer(std::string_view line) {
  return line.starts_with("Plan:") || line.starts_with("Task:") || line.starts_with("Spec:") || line.starts_with("Redo:");
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

/// Why `rel` is not the worker's to commit, or empty.
std::string refusal(const std::string& rel, const std::string& spec_prefix, const std::string& summary) {
  if (util::in_state_directory(rel))
    return fmt::format("{} is harness's run state (.orchestration/), not a plan's work", rel);
  if (!spec_prefix.empty() && (rel + "/").starts_with(spec_prefix) && rel != summary)
    return fmt::format("{} is in the spec directory, whose documents (STATUS.md, VERIFICATION.md, commits.log, PLAN "
                       "files) harness commits itself; of those only this plan's SUMMARY ({}) is yours to commit",
                       rel, summary);
  // git commits everything below a directory: one that holds the spec directory would take its
  // documents and the other plans' SUMMARYs along.
  if (!spec_prefix.empty() && spec_prefix.starts_with(rel + "/"))
    return fmt::format("{} holds the spec directory ({}), whose documents harness commits itself: name the files of "
                       "your work (and this plan's SUMMARY, {}) one by one",
                       rel, spec_prefix.substr(0, spec_prefix.size() - 1), summary);
  return {};
}

} // namespace

std::expected<std::string, std::string> project_path(const fs::path& root, const std::string& path) {
  if (path.empty()) return std::unexpected(std::string("an empty path"));
  fs::path p = fs::path(path).is_absolute() ? fs::path(path) : root / path;
  p = p.lexically_normal();
  if (!p.has_filename()) p = p.parent_path(); // "src/": the directory
  // The directory resolved, the name not: a committed symbolic link is the link, not its target.
  std::error_code ec;
  const fs::path dir = fs::weakly_canonical(p.parent_path(), ec);
  if (ec) return std::unexpected(fmt::format("{}: {}", path, ec.message()));
  const fs::path rel = (dir / p.filename()).lexically_relative(root);
  if (rel.empty() || *rel.begin() == "..")
    return std::unexpected(fmt::format("{} is outside the project ({})", path, root.string()));
  if (rel == ".") return std::unexpected(fmt::format("{} is the whole project: name the files", path));
  if (*rel.begin() == ".git") return std::unexpected(fmt::format("{} is inside .git", path));
  return rel.generic_string();
}

std::string message_with_trailers(const std::string& message, const std::string& trailers,
                                  const std::string& fallback_subject) {
  std::string kept;
  size_t pos = 0;
  while (pos <= message.size()) {
    size_t nl = message.find('\n', pos);
    if (nl == std::string::npos) nl = message.size();
    std::string line(message.data() + pos, nl - pos);
    // Control characters mean nothing in a message, and the log harness reads splits on some.
    std::ranges::replace_if(line, [](char ch) { return static_cast<unsigned char>(ch) < 0x20 && ch != '\t'; }, ' ');
    if (!is_plan_trailer(line)) kept.append(line).append("\n");
    pos = nl + 1;
  }
  while (!kept.empty() && std::isspace(static_cast<unsigned char>(kept.back()))) kept.pop_back();
  if (kept.empty()) kept = fallback_subject;
  return kept + "\n\n" + trailers;
}

std::expected<WorkerCommit, std::string> commit_worker_files(const WorkerCommitRequest& req) {
  const size_t colon = req.task_id.find(':');
  const std::string kind = req.task_id.substr(0, colon);
  if (kind != "execute" || colon == std::string::npos)
    return std::unexpected(fmt::format("task {} is no plan's execution: harness commits what a {} task writes; "
                                       "harness_worker_commit commits a plan's work",
                                       req.task_id, kind));
  const std::string plan_id = req.task_id.substr(colon + 1);
  auto layout = spec::discover_layout(req.spec_dir, fs::current_path());
  if (!layout) return std::unexpected(layout.error());
  if (!req.spec_name.empty() && layout->spec_name != req.spec_name)
    return std::unexpected(fmt::format("{} is the spec directory of {}, not of this session's spec {}", req.spec_dir.string(),
                                       layout->spec_name, req.spec_name));
  auto plan = spec::load_one_plan(*layout, plan_id);
  if (!plan) return std::unexpected(plan.error());
  const int count = std::max<int>(1, static_cast<int>(plan->tasks.size()));
  if (req.task < 0 || req.task > count)
    return std::unexpected(fmt::format("task {}: plan {} has {} task{} (task 1 to {}; no task for the SUMMARY)", req.task,
                                       plan_id, count, count == 1 ? "" : "s", count));
  if (req.files.empty()) return std::unexpected(std::string("no files named: name the files this commit holds"));
  std::error_code ec;
  const fs::path root = fs::canonical(layout->project_root, ec);
  if (ec) return std::unexpected(fmt::format("{}: {}", layout->project_root.string(), ec.message()));
  const auto* phase = layout->find_phase(plan->phase);
  const auto summary = project_path(root, layout->summary_file(*phase, plan_id).string());
  if (!summary) return std::unexpected(summary.error());
  std::vector<std::string> paths;
  std::set<std::string> named; // a long list stays linear
  const auto submodules = submodule_paths(root);
  for (const auto& f : req.files) {
    auto rel = project_path(root, f);
    if (!rel) return std::unexpected(rel.error());
    if (auto why = refusal(*rel, layout->spec_dir_in_project(), *summary); !why.empty()) return std::unexpected(why);
    // git itself would say "pathspec did not match any file(s) known to git", of a path that is there.
    if (auto sub = submodule_holding(submodules, *rel))
      return std::unexpected(fmt::format("{} is inside the git submodule {}, another repository: harness commits only "
                                         "this repository's files (a commit here can hold the submodule's commit, {}, "
                                         "never a file inside it)",
                                         *rel, *sub, *sub));
    if (named.insert(*rel).second) paths.push_back(*rel);
  }
  const bool summary_only = paths == std::vector<std::string>{*summary};
  const std::string message = message_with_trailers(
      req.message, plan_trailers(plan_id, req.task, count, layout->spec_trailer),
      req.task ? fmt::format("feat({}): task {}", plan_id, req.task) : fmt::format("docs({}): summary", plan_id));
  auto hash = commit_paths(root, root / ".orchestration" / "git.lock", paths, message,
                           summary_only ? CommitHooks::skip : CommitHooks::run);
  if (!hash) return std::unexpected(hash.error());
  if (hash->empty()) return std::unexpected(fmt::format("nothing to commit: {} as in HEAD", joined(paths)));
  // Told to the agent too: trying another commit, or another attempt, loses them the same way.
  if (auto lost = lost_trailers(root, *hash, plan_id, req.task, layout->spec_trailer); !lost.empty())
    return std::unexpected(lost + ". Report task_failed with retry \"forbidden\" and this message: the hook removes "
                                  "them from any commit, and the person must fix it first");
  WorkerCommit out{*hash, files_of_commits(root, {*hash}), {}};
  for (const auto& f : out.files)
    if (f != *summary && std::ranges::none_of(plan->files_modified, [&](const auto& g) { return util::glob_match(g, f); }))
      out.undeclared.push_back(f);
  return out;
}

} // namespace harness::worker
