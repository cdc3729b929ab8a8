#include "harness/verify/engine.hpp"

#include "harness/util/atomic_file.hpp"
#include "harness/spec/done_state.hpp"
#include "harness/util/glob.hpp"
#include "harness/util/text.hpp"
#include "harness/util/utc_time.hpp"
#include "harness/verify/human_answer.hpp"
#include "harness/verify/work_hash.hpp"
#include "harness/worker/git.hpp"
#include "harness/worker/submodules.hpp"
#include "harness/worker/trailers.hpp"
#include "line_search.hpp"
#include "plan_git_facts.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <iterator>
#include <map>
#include <set>

namespace harness::verify {
namespace fs = std::filesystem;

namespace {

CheckResult item(const spec::Plan& plan, std::string id, std::string type, CheckStatus status, std::string message, int line) {
  CheckResult r;
  r.plan = plan.id;
  r.id = std::move(id);
  r.type = std::move(type);
  r.status = status;
  r.message = std::move(message);
  r.line = line;
  r.file = plan.file;
  return r;
}

/// Whether `name` occurs in `text` as a whole name: no letter, digit, '_' or '$' right before or
/// after it. GSD's `exports: [GET]` must not pass on any file that says "GET" inside a word.
bool has_name(std::string_view text, std::string_view name) {
  if (name.empty()) return true;
  auto part_of_name = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; };
  for (std::size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    const bool starts = at == 0 || !part_of_name(text[at - 1]) || !part_of_name(name.front());
    const std::size_t end = at + name.size();
    const bool ends = end == text.size() || !part_of_name(text[end]) || !part_of_name(name.back());
    if (starts && ends) return true;
  }
  return false;
}

void must_haves(const spec::Plan& plan, const fs::path& root, std::vector<CheckResult>& out) {
  for (const auto& a : plan.must_haves.artifacts) {
    auto text = util::read_file(root / a.path);
    std::string why;
    if (!text) why = a.path + " does not exist";
    else {
      const int lines = static_cast<int>(std::count(text->begin(), text->end(), '\n'));
      if (a.min_lines && lines < *a.min_lines) why = fmt::format("{} has {} lines (min_lines {})", a.path, lines, *a.min_lines);
      for (const auto& c : a.contains)
        if (why.empty() && text->find(c) == std::string::npos) why = fmt::format("{} does not contain '{}'", a.path, c);
      for (const auto& e : a.exports)
        if (why.empty() && !has_name(*text, e)) why = fmt::format("{} does not export '{}' (no such whole name in it)", a.path, e);
    }
    out.push_back(item(plan, "artifact:" + a.path, "artifact", why.empty() ? CheckStatus::passed : CheckStatus::failed,
                       why.empty() ? a.provides : why, a.line));
  }
  for (const auto& k : plan.must_haves.key_links) {
    auto text = util::read_file(root / k.from);
    CheckStatus st = CheckStatus::passed;
    std::string msg = fmt::format("{} -> {} ({})", k.from, k.to, k.via);
    if (!text) st = CheckStatus::failed, msg = k.from + " does not exist";
    else if (const auto m = detail::count_line_matches(*text, k.pattern); !m.error.empty()) {
      st = CheckStatus::error, msg = m.error;
    } else if (m.count == 0) {
      st = CheckStatus::failed;
      msg = m.unsearched_line ? detail::unsearched_message(m, k.from, k.pattern) : fmt::format("/{}/ not found in {}", k.pattern, k.from);
    }
    out.push_back(item(plan, "key_link:" + k.from, "key_link", st, msg, k.line));
  }
}

/// The committed paths no `files_modified` entry of the plan covers, sorted; the spec's own
/// documents (SUMMARY and the like) are a plan's to write and do not count, under the directory's
/// current name or one of `old_names` (a commit made before a rename wrote them there). The
/// scheduler keeps plans apart by their declared writes only, so an undeclared write is a
/// conflict it could not see.
/// The spec directory as the project names it ("docs/specs/SPC-001-x/"), and as it was named
/// before a rename (`old_names`: the Spec trailers of the plan's commits), each ending in '/'.
std::vector<std::string> spec_doc_dirs(const spec::Spec& spec, const std::set<std::string>& old_names) {
  std::vector<std::string> doc_dirs;
  if (const std::string current = spec.layout.spec_dir_in_project(); !current.empty()) {
    doc_dirs.push_back(current);
    // The old names sit beside it: the same parent directory.
    const std::string parent = fs::path(current.substr(0, current.size() - 1)).parent_path().generic_string();
    for (const auto& name : old_names)
      if (!name.empty() && name.find('/') == std::string::npos && name != "." && name != "..")
        doc_dirs.push_back((parent.empty() ? "" : parent + "/") + name + "/");
  }
  return doc_dirs;
}

bool in_doc_dirs(const std::vector<std::string>& doc_dirs, const std::string& f) {
  return std::ranges::any_of(doc_dirs, [&](const std::string& d) { return f.starts_with(d); });
}

std::vector<std::string> undeclared_files(const std::vector<std::string>& doc_dirs, const spec::Plan& plan,
                                          std::vector<std::string> files) {
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  std::erase_if(files, [&](const std::string& f) {
    if (in_doc_dirs(doc_dirs, f)) return true; // foreign_documents judges those
    return std::any_of(plan.files_modified.begin(), plan.files_modified.end(),
                       [&](const std::string& g) { return util::glob_match(g, f); });
  });
  return files;
}

/// Whether a file of the spec directory named `name` is one of the documents that decide what is
/// planned, done and verified: PLAN files, SUMMARYs, verification reports, STATUS.md, ROADMAP.md,
/// REQUIREMENTS.md, SPEC.md, commits.log. (A note beside them decides nothing.)
bool deciding_document(std::string_view name) {
  for (std::string_view suffix : {"-PLAN.md", "-SUMMARY.md", "VERIFICATION.md"})
    if (name.ends_with(suffix)) return true;
  for (std::string_view doc : {"STATUS.md", "ROADMAP.md", "REQUIREMENTS.md", "SPEC.md", "PROJECT.md", "commits.log"})
    if (name == doc) return true;
  return false;
}

/// The deciding documents of the spec directory the plan's trailer commits changed, other than
/// its own SUMMARY: its PLAN (a check edited to pass), another plan's SUMMARY, harness's reports.
/// A plan's commits hold only its SUMMARY of those (harness_worker_commit refuses the rest), so
/// these were committed past that rule: by a worker's own git, or an older harness.
/// Only a change still in effect is held against the plan: one whose file's last change in the
/// history is one of the plan's commits (`commits`). A document restored since, or changed again
/// (harness rewrites its reports), no longer says what the plan's commit made it say.
std::vector<std::string> foreign_documents(const std::vector<std::string>& doc_dirs, const spec::Plan& plan,
                                           const std::vector<std::string>& files, const fs::path& root,
                                           const std::vector<worker::TrailerCommit>& commits) {
  const std::string own_summary = plan.id + "-SUMMARY.md"; // its phase directory may have been renamed
  std::set<std::string> out;
  for (const auto& f : files) {
    const std::string name = fs::path(f).filename().string();
    if (!in_doc_dirs(doc_dirs, f) || name == own_summary || !deciding_document(name)) continue;
    // One git process per such document: there are none unless a plan's commit broke the rule.
    const auto last = worker::run_git(root, {"log", "-1", "--format=%H", "--", worker::literal_pathspec(f)});
    const std::string hash(util::trim_space(last.out));
    if (std::ranges::any_of(commits, [&](const worker::TrailerCommit& c) { return c.hash == hash; })) out.insert(f);
  }
  return {out.begin(), out.end()};
}

/// "a, b and 3 more".
std::string names_list(const std::vector<std::string>& files) {
  constexpr std::size_t shown = 5;
  std::string out;
  for (std::size_t i = 0; i < files.size() && i < shown; ++i) out += (i ? ", " : "") + files[i];
  if (files.size() > shown) out += fmt::format(" and {} more", files.size() - shown);
  return out;
}

/// The `undeclared` files named for the reader, those another plan of the spec declares first, as
/// "out/a.txt (plan 01-01's)": not merely undeclared, they are that plan's work, which this one
/// changed behind the scheduler (it orders only declared writers) and which that plan's checks
/// then fail on. `taken`: how many of them are another plan's.
std::vector<std::string> outside_names(const spec::Spec& spec, const spec::Plan& plan,
                                       const std::vector<std::string>& undeclared, std::size_t& taken) {
  std::vector<std::string> others, rest;
  for (const auto& f : undeclared) {
    auto owners = spec::plans_declaring(spec, f);
    std::erase(owners, plan.id);
    if (owners.empty()) rest.push_back(f);
    else others.push_back(fmt::format("{} (plan {}'s)", f, fmt::join(owners, "'s, ")));
  }
  taken = others.size();
  others.insert(others.end(), rest.begin(), rest.end());
  return others;
}

/// The plan's own files that are in the work tree but in no commit (untracked, or staged and
/// not committed): its literal `files_modified` entries and the files its checks read. Their
/// checks pass on the work tree, so without this a task that committed nothing passed, and a
/// fresh checkout of the branch would not have the work. Patterns and directories are left out:
/// they may cover a file another plan (a later phase's, running beside this verification) is
/// writing right now. `in_submodules`: those of them inside a git submodule that are in no commit
/// of the submodule either (this repository's status cannot see them, and none of its commits can
/// hold them: the work is nowhere but in the work tree).
std::vector<std::string> uncommitted_files(const spec::Plan& plan, const fs::path& root, const detail::PlanGitFacts& facts,
                                           std::map<std::string, std::vector<std::string>>& in_submodules) {
  const auto paths = detail::literal_files(plan, root);
  if (paths.empty()) return {};
  const auto submodules = worker::submodule_paths(root); // no git process without a .gitmodules
  std::vector<std::string> out;
  std::map<std::string, std::vector<std::string>> inside; // submodule -> pathspecs relative to it
  for (const auto& p : paths)
    if (auto sub = worker::submodule_holding(submodules, p)) inside[*sub].push_back(worker::literal_pathspec(p.substr(sub->size() + 1)));
    else if (facts.uncommitted && facts.uncommitted->contains(p)) out.push_back(p); // git was asked for every plan at once
  for (const auto& [sub, sub_specs] : inside)
    for (const auto& c : worker::changed_paths(root / sub, sub_specs))
      if (c.untracked || c.added) in_submodules[sub].push_back(sub + "/" + c.path);
  return out;
}

/// "out/a.txt is inside the git submodule out and committed in neither repository", with why.
std::string submodule_files_message(const std::map<std::string, std::vector<std::string>>& in_submodules) {
  std::vector<std::string> files, submodules;
  for (const auto& [sub, names] : in_submodules) {
    submodules.push_back(sub);
    files.insert(files.end(), names.begin(), names.end());
  }
  const bool one = files.size() == 1;
  return fmt::format("{} {} inside the git submodule{} {} and committed in neither repository (harness commits only this "
                     "repository's files: declare the plan in a spec of the submodule's own project, or make the "
                     "directory part of this repository)",
                     names_list(files), one ? "is" : "are", submodules.size() == 1 ? "" : "s", fmt::join(submodules, ", "));
}

/// "out/a.txt is not committed", "a, b and 3 more are not committed", with what to do.
std::string not_committed_message(const std::vector<std::string>& files) {
  constexpr std::size_t shown = 5;
  std::string names;
  for (std::size_t i = 0; i < files.size() && i < shown; ++i) names += (i ? ", " : "") + files[i];
  if (files.size() > shown) names += fmt::format(" and {} more", files.size() - shown);
  const bool one = files.size() == 1;
  const std::string_view them = one ? "it" : "them";
  return fmt::format("{} {} not committed (a plan's work counts only in its commits: commit {}, or list {} in "
                     ".gitignore if a build makes {})",
                     names, one ? "is" : "are", them, them, them);
}

/// Seed 000's atomic commits: the plan's work is in commits carrying `Plan: <id>` and `Spec:`.
void commits(const spec::Spec& spec, const spec::Plan& plan, const VerifyOptions& opt, const detail::PlanGitFacts& facts,
             std::vector<CheckResult>& out) {
  std::vector<worker::TrailerCommit> found;
  if (!facts.history_error.empty()) {
    out.push_back(item(plan, "commits", "commits", CheckStatus::error, facts.history_error, 0));
    return;
  }
  if (opt.trailers) found = opt.trailers->commits_for(plan.id);
  else if (facts.commits)
    if (const auto it = facts.commits->find(plan.id); it != facts.commits->end()) found = it->second;
  // A plan GSD executed before harness ran the project (read only when no trailer commit of this
  // spec names it): its commits name it in their subjects. They count as its work (not doing it
  // again is the point); their tasks cannot be told apart.
  bool by_subject = false;
  if (const auto it = facts.gsd_commits.find(plan.id); it != facts.gsd_commits.end()) {
    found = it->second;
    by_subject = true;
  }
  if (found.empty() && opt.history == worker::HistoryDepth::shallow) {
    out.push_back(item(plan, "commits", "commits", CheckStatus::error,
                       fmt::format("not readable here: the clone is shallow and holds no commit carrying 'Plan: {}' "
                                   "(they may lie beyond its boundary: {}, then verify again)",
                                   plan.id, worker::unshallow_fix),
                       0));
    out.back().history_cut = true;
    return;
  }
  // Plan ids repeat across specs: only commits with this spec's trailer count.
  const bool any_plan_commit = !found.empty();
  std::set<std::string> other_specs; // named when none is this spec's: a rename shows as one of them
  for (const auto& c : found)
    if (!by_subject && !spec.layout.owns_spec_trailer(c.spec)) other_specs.insert(c.spec.empty() ? "(none)" : c.spec);
  if (!by_subject) std::erase_if(found, [&](const worker::TrailerCommit& c) { return !spec.layout.owns_spec_trailer(c.spec); });
  // A squash commit holds every gathered plan's files: which are this plan's cannot be told, so
  // they are neither undeclared writes nor foreign documents of this plan.
  std::vector<worker::TrailerCommit> own;
  std::ranges::copy_if(found, std::back_inserter(own), [](const worker::TrailerCommit& c) { return !c.squashed; });
  std::vector<std::string> files;
  if (opt.trailers) files = opt.trailers->files_of(own);
  else
    for (const auto& c : own) files.insert(files.end(), c.files.begin(), c.files.end());
  std::set<std::string> old_names; // this spec's, before its directory was renamed
  for (const auto& c : found)
    if (c.spec != spec.layout.spec_name && c.spec != spec.layout.spec_trailer) old_names.insert(c.spec);
  std::size_t taken = 0;
  const auto doc_dirs = spec_doc_dirs(spec, old_names);
  auto outside = outside_names(spec, plan, undeclared_files(doc_dirs, plan, files), taken);
  // GSD's own commits carry its planning documents (STATE.md, ROADMAP.md) with the SUMMARY.
  const auto documents =
      by_subject ? std::vector<std::string>() : foreign_documents(doc_dirs, plan, files, spec.layout.project_root, found);
  std::set<int> tasks;
  for (const auto& c : found)
    if (c.task > 0) tasks.insert(c.task);
  // A squash commit is one entry per task it gathers: counted once.
  std::set<std::string> hashes;
  for (const auto& c : found) hashes.insert(c.hash);
  const auto commit_count = hashes.size();
  const int total = static_cast<int>(plan.tasks.size());
  // A task that changes no file (run the tests, check a page) has nothing to commit, so a task
  // without a commit does not fail the check; the message names it so a reader can judge.
  std::string uncovered;
  for (int i = 1; i <= total; ++i)
    if (!tasks.contains(i))
      uncovered += fmt::format("{}task {} '{}'", uncovered.empty() ? "" : ", ", i, plan.tasks[static_cast<std::size_t>(i - 1)].name);
  std::map<std::string, std::vector<std::string>> in_submodules;
  const auto uncommitted = uncommitted_files(plan, spec.layout.project_root, facts, in_submodules);
  // GSD commits its SUMMARY as `docs(01-02): complete ... plan` whether or not the work was
  // committed: those alone hold none of a plan that declares files.
  const std::string docs = spec.layout.spec_dir_in_project();
  const bool only_documents = by_subject && !plan.files_modified.empty() && !docs.empty() &&
                              std::ranges::all_of(files, [&](const std::string& f) { return f.starts_with(docs); });
  // A GSD commit names a plan by subject only: a fix to another plan's file made under this
  // plan's name is said, not held against the plan as a worker's write would be.
  const bool taken_fails = taken > 0 && !by_subject;
  const CheckStatus st = found.empty() || only_documents || !uncommitted.empty() || !in_submodules.empty() || taken_fails ||
                                 !documents.empty()
                             ? CheckStatus::failed
                             : CheckStatus::passed;
  std::string msg = uncommitted.empty() ? std::string() : not_committed_message(uncommitted) + "; ";
  if (!in_submodules.empty()) msg += submodule_files_message(in_submodules) + "; ";
  msg += only_documents ? fmt::format("the commit{} GSD made for {} ('{}') change{} only its planning documents: none holds "
                                       "its work ({})",
                                       found.size() == 1 ? "" : "s", plan.id, found.back().subject, found.size() == 1 ? "s" : "",
                                       fmt::join(plan.files_modified, ", "))
      : by_subject ? fmt::format("{} commit{} GSD made ('{}'), without trailers: not told apart by task", found.size(),
                                   found.size() == 1 ? "" : "s", found.back().subject) // git lists newest first: its first commit
      : !any_plan_commit ? fmt::format("no commit carries 'Plan: {}'", plan.id)
      : found.empty()  ? fmt::format("commits for {} lack 'Spec: {}': they carry 'Spec: {}' (another spec's, or this spec's "
                                     "before its directory was renamed)",
                                     plan.id, spec.layout.spec_trailer, fmt::join(other_specs, "', '"))
                       : fmt::format("{} commit{}, {} of {} tasks covered", commit_count, commit_count == 1 ? "" : "s", tasks.size(), total);
  if (!found.empty() && !by_subject && !uncovered.empty()) msg += "; no commit for " + uncovered + " (fine only if it changes no file)";
  if (!outside.empty())
    msg += fmt::format("; {}{} (declare them: only declared writes keep parallel plans apart)", outside_files_label,
                       names_list(outside));
  if (taken > 0 && by_subject)
    msg += fmt::format("; {} another plan's declared files (a commit names {} in its subject only: a fix made under its "
                       "name?)",
                       taken == 1 ? "one of them changes" : fmt::format("{} of them change", taken), plan.id);
  else if (taken > 0)
    msg += fmt::format("; {} another plan's work, which {} must leave alone (or declare in its files_modified, so that "
                       "the scheduler keeps the two plans' writes apart)",
                       taken == 1 ? "one of them is" : fmt::format("{} of them are", taken), plan.id);
  if (!documents.empty())
    msg += fmt::format("; it changed the spec's documents, of which only its own SUMMARY is a plan's to commit: {} "
                       "(harness's, or another plan's: restore each as it was before, git show COMMIT^:PATH > PATH, and commit it)",
                       names_list(documents));
  out.push_back(item(plan, "commits", "commits", st, msg, 0));
  out.back().outside_files = std::move(outside);
}

/// In GSD's layout, a phase report GSD's verifier wrote (harness's carry a work_hash) that found
/// gaps or items for a person: it judged what harness's checks do not see (the must_haves truths),
/// and harness's report replaces the file. An item for a person, naming it, so that its verdict is
/// read before the phase counts as verified instead of vanishing under a passing report.
/// Once harness's report has replaced GSD's, the item it asked and nobody approved yet is carried
/// over from that report's "Needs a human" list (`- gsd-verification: ...`): verified again before
/// an answer (a fix committed, a second run), the phase must still ask.
std::optional<CheckResult> gsd_verdict(const spec::Spec& spec, spec::PhaseNumber phase) {
  if (spec.layout.kind != spec::LayoutKind::legacy_gsd) return std::nullopt;
  const auto v = spec.verifications.find(phase);
  if (v == spec.verifications.end() || !v->second.status) return std::nullopt;
  const auto status = *v->second.status;
  if (status != spec::VerificationStatus::gaps_found && status != spec::VerificationStatus::human_needed) return std::nullopt;
  CheckResult c;
  c.id = "gsd-verification";
  c.type = "review";
  c.status = CheckStatus::human;
  if (!v->second.work_hash.empty()) { // harness's report
    if (v->second.answer && v->second.answer->approved) return std::nullopt;
    const auto* dir = spec.layout.find_phase(phase);
    if (!dir) return std::nullopt;
    const auto text = util::read_file(spec.layout.verification_file(*dir));
    constexpr std::string_view asked = "\n- gsd-verification: ";
    const std::size_t at = text ? text->find(asked) : std::string::npos;
    if (at == std::string::npos) return std::nullopt;
    const std::size_t from = at + asked.size();
    c.message = text->substr(from, text->find('\n', from) - from);
    return c;
  }
  const std::string score =
      v->second.score_total > 0 ? fmt::format(" ({}/{})", v->second.score_passed, v->second.score_total) : std::string();
  c.message = fmt::format("GSD's verifier found {}{} in {}: it judged what harness's checks do not see (the must_haves "
                          "truths); read its findings (git keeps the file this report replaces) before approving",
                          spec::to_string(status), score, v->second.file);
  return c;
}

/// A plan's must_pass checks and must_haves: everything but its commits.
void own_checks(const spec::Spec& spec, const spec::Plan& plan, const VerifyOptions& opt, std::vector<CheckResult>& out) {
  for (const auto& c : plan.must_pass) {
    auto r = run_check(c, spec.layout.project_root, opt);
    r.plan = plan.id;
    r.file = plan.file;
    out.push_back(std::move(r));
  }
  must_haves(plan, spec.layout.project_root, out);
}

/// The checks of each of `plans`, in their order. git is asked about their commits once for all
/// of them, after every plan's own checks ran (a check may write a plan's file: a build).
std::vector<std::vector<CheckResult>> plans_checks(const spec::Spec& spec, const std::vector<const spec::Plan*>& plans,
                                                   const VerifyOptions& opt) {
  std::vector<std::vector<CheckResult>> out(plans.size());
  for (std::size_t i = 0; i < plans.size(); ++i) own_checks(spec, *plans[i], opt, out[i]);
  if (!opt.check_commits) return out;
  const auto facts = detail::read_plan_git_facts(spec, plans, opt);
  for (std::size_t i = 0; i < plans.size(); ++i) commits(spec, *plans[i], opt, facts, out[i]);
  return out;
}

/// check_summaries' item: only when the plan's SUMMARY is gone from the work tree, so a phase whose
/// records are all there keeps its count of checks.
void missing_summary(const spec::Spec& spec, const spec::Plan& plan, const VerifyOptions& opt, std::vector<CheckResult>& out) {
  const auto* phase = opt.check_summaries ? spec.layout.find_phase(plan.phase) : nullptr;
  if (!phase) return;
  const fs::path summary = spec.layout.summary_file(*phase, plan.id);
  std::error_code ec;
  if (fs::exists(summary, ec) || ec) return;
  out.push_back(item(plan, "summary", "summary", CheckStatus::failed,
                     fmt::format("{} does not exist: the record of {}'s execution is gone (deleted after the plan was "
                                 "verified); `git restore` it if a commit holds it, or execute {} again",
                                 spec.layout.relative(summary), plan.id, plan.id),
                     0));
}

/// A plan whose own verification waits for a person (its SUMMARY says `verification:
/// human_needed`: orchestrate opened its checkpoint and nobody approved it yet, or the person
/// refused): an item for a person, so a phase or final report run by hand meanwhile cannot pass
/// over the plan's question (the phase report's verdict would count the plan verified).
std::optional<CheckResult> awaiting_person(const spec::Spec& spec, const spec::Plan& plan) {
  const auto s = spec.summaries.find(plan.id);
  if (s == spec.summaries.end() || s->second.verification != spec::VerificationStatus::human_needed) return std::nullopt;
  const auto& a = s->second.answer;
  std::string message =
      a && !a->approved
          ? fmt::format("{} was refused by {}: it is verified once a person approves it (the next orchestrate "
                        "asks again) or after harness-cli redo",
                        plan.id, spec::answered_by(*a))
          : fmt::format("{}'s checks passed and it needs a person's approval (harness-cli respond --list shows its "
                        "checkpoint; with none open, the next orchestrate asks)",
                        plan.id);
  return item(plan, "approval", "review", CheckStatus::human, std::move(message), 0);
}

/// The gaps a person accepted at phase `n`, as (plan, check): those its approved verification
/// found, while the phase's work is still the work approved (the same work_hash). Other work, or
/// a file that does not say which work it was, asks again.
std::set<std::pair<std::string, std::string>> accepted_gaps(const spec::Spec& spec, spec::PhaseNumber n,
                                                            const std::vector<std::string>& plans) {
  const auto v = spec.verifications.find(n);
  if (v == spec.verifications.end() || !v->second.answer || !v->second.answer->approved) return {};
  if (v->second.work_hash.empty() || v->second.work_hash != work_hash(spec, plans)) return {};
  return {v->second.gaps.begin(), v->second.gaps.end()};
}

std::string now_iso() { return util::utc_now("%Y-%m-%dT%H:%M:%SZ"); }

} // namespace

Report verify_plan(const spec::Spec& spec, const spec::Plan& plan, const VerifyOptions& opt) {
  Report r{"plan " + plan.id, spec.layout.spec_name, spec::VerificationStatus::passed, {}, {}, {}};
  r.results = std::move(plans_checks(spec, {&plan}, opt).front());
  r.status = overall_status(r.results);
  return r;
}

Report verify_phase(const spec::Spec& spec, spec::PhaseNumber phase, const VerifyOptions& opt) {
  Report r{"phase " + spec::to_string(phase), spec.layout.spec_name, spec::VerificationStatus::passed, {}, {}, {}};
  std::vector<const spec::Plan*> plans;
  for (const auto& plan : spec.plans)
    if (plan.phase == phase) plans.push_back(&plan);
  auto results = plans_checks(spec, plans, opt);
  for (std::size_t i = 0; i < plans.size(); ++i) {
    r.plans.push_back(plans[i]->id);
    std::ranges::move(results[i], std::back_inserter(r.results));
    missing_summary(spec, *plans[i], opt, r.results);
    if (auto waiting = awaiting_person(spec, *plans[i])) r.results.push_back(std::move(*waiting));
  }
  if (spec.roadmap)
    for (const auto& p : spec.roadmap->phases)
      if (p.number == phase)
        for (size_t i = 0; i < p.success_criteria.size(); ++i) {
          CheckResult c;
          c.id = fmt::format("criterion-{}", i + 1);
          c.type = "criterion";
          c.status = CheckStatus::skipped; // judged by the phase verifier agent; informational here
          c.message = p.success_criteria[i];
          r.results.push_back(std::move(c));
        }
  if (auto gsd = gsd_verdict(spec, phase)) r.results.push_back(std::move(*gsd));
  r.status = overall_status(r.results);
  r.work_hash = work_hash(spec, r.plans);
  return r;
}

Report verify_final(const spec::Spec& spec, const VerifyOptions& opt) {
  Report r{"final", spec.layout.spec_name, spec::VerificationStatus::passed, {}, {}, {}};
  const auto done = spec::read_done_state(spec);
  std::map<spec::PhaseNumber, std::vector<std::string>> phase_plans;
  for (const auto& plan : spec.plans) phase_plans[plan.phase].push_back(plan.id);
  std::map<spec::PhaseNumber, std::set<std::pair<std::string, std::string>>> accepted; // by phase, read once
  std::vector<const spec::Plan*> plans;
  for (const auto& plan : spec.plans) plans.push_back(&plan);
  auto results = plans_checks(spec, plans, opt);
  for (std::size_t p = 0; p < plans.size(); ++p) {
    const auto& plan = *plans[p];
    r.plans.push_back(plan.id);
    const size_t first = r.results.size();
    std::ranges::move(results[p], std::back_inserter(r.results));
    missing_summary(spec, plan, opt, r.results);
    if (auto waiting = awaiting_person(spec, plan)) r.results.push_back(std::move(*waiting));
    // What a person judged at the phase, and that phase's verification still holds: asking again,
    // word for word, for the whole spec would only repeat the question. That is its items for a
    // person and, when the person accepted the phase with its gaps, those gaps over the same work.
    const auto gate = done.phases.find(plan.phase);
    if (gate == done.phases.end() || !gate->second.passed() || !gate->second.answer || !gate->second.answer->approved) continue;
    const auto& a = *gate->second.answer;
    auto [gaps, fresh] = accepted.try_emplace(plan.phase);
    if (fresh) gaps->second = accepted_gaps(spec, plan.phase, phase_plans[plan.phase]);
    for (size_t i = first; i < r.results.size(); ++i) {
      auto& c = r.results[i];
      const bool gap = (c.status == CheckStatus::failed || c.status == CheckStatus::error) &&
                       gaps->second.contains({c.plan, c.id});
      if (c.status != CheckStatus::human && !gap) continue;
      c.status = CheckStatus::passed;
      c.message = fmt::format("{} by {} at {} in phase {}'s verification: {}", gap ? "gap accepted" : "approved", a.by,
                              a.at, spec::to_string(plan.phase), c.message.empty() ? c.evidence : c.message);
    }
  }
  r.status = overall_status(r.results);
  r.work_hash = work_hash(spec, r.plans);
  return r;
}

std::expected<WrittenReport, std::string> write_report(const spec::Spec& spec, std::optional<spec::PhaseNumber> phase,
                                                       const Report& report, KeepApproval keep) {
  // Plans' commits beyond a shallow clone's boundary are unread, not missing: a report on them
  // would record gaps in plans that are fine (and drop a person's approval). Nothing is written.
  if (history_cut(report)) return WrittenReport{};
  WrittenReport out{spec.layout.final_verification, std::nullopt, std::nullopt};
  if (phase) {
    const auto* dir = spec.layout.find_phase(*phase);
    if (!dir) return std::unexpected(fmt::format("phase {} has no directory", spec::to_string(*phase)));
    out.file = spec.layout.verification_file(*dir);
  }
  std::string text = render_verification_md(report, now_iso());
  // Verified again by hand and the checks found what a person already accepted, in the same
  // work: the answer stays, or the next run would ask again.
  auto old = keep == KeepApproval::when_unchanged ? util::read_file(out.file) : std::string();
  auto carried = old ? approval_still_holding(*old, text) : ApprovalCarry{};
  if (carried.kept) {
    if (auto with = with_human_answer(text, out.file.string(), *carried.kept)) {
      text = std::move(*with);
      out.kept_approval = std::move(carried.kept);
    }
  } else if (carried.dropped) {
    out.dropped_approval = DroppedApproval{std::move(*carried.dropped), std::move(carried.why), std::move(carried.dropped_work_hash)};
  }
  if (auto w = util::write_file_atomic(out.file, text); !w) return std::unexpected(w.error());
  return out;
}

} // namespace harness::verify
