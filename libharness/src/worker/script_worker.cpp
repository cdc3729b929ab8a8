#include "harness/worker/script_worker.hpp"

#include "harness/util/atomic_file.hpp"
#include "harness/util/discarded_dir.hpp"
#include "harness/util/utc_time.hpp"
#include "harness/spec/document_parsers.hpp"
#include "harness/spec/spec.hpp"
#include "harness/util/glob.hpp"
#include "harness/util/private_directory.hpp"
#include "harness/util/state_path.hpp"
#include "harness/worker/file_lock.hpp"
#include "harness/worker/git.hpp"
#include "harness/worker/git_head.hpp"
#include "harness/worker/trailers.hpp"
#include "harness/worker/script_plan.hpp"
#include "harness/worker/spawn.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <expected>
#include <chrono>
#include <ctime>
#include <set>
#include <sys/wait.h>
#include <unistd.h>

namespace harness::worker {
namespace {

namespace fs = std::filesystem;

/// A file-transport report of the request's session, with its token: the orchestrator reads none
/// without it.
void write_json(const ScriptWorkerRequest& req, const char* name, boost::json::object o) {
  if (req.session_dir.empty()) return;
  o["token"] = req.token;
  (void)util::write_file_atomic(req.session_dir / name, boost::json::serialize(o) + "\n");
}

std::string now_iso() { return util::utc_now("%Y-%m-%dT%H:%M:%SZ"); }

/// What a plan's worker commits and resets: the changed paths its files_modified cover, except
/// the spec directory (`spec_dir`, relative to the project root, ending in '/') and harness's
/// state (util::in_state_directory). A glob such as
/// `docs/**` covers docs/specs/SPC-...: a person's edit of SPEC.md and harness's own documents
/// (and their temp files) there are not the plan's work.
struct Declared {
  const spec::Plan& plan;
  std::string spec_dir;
  bool operator()(const std::string& path) const {
    if (!spec_dir.empty() && path.starts_with(spec_dir)) return false;
    if (util::in_state_directory(path)) return false;
    return std::any_of(plan.files_modified.begin(), plan.files_modified.end(),
                       [&](const std::string& g) { return util::glob_match(g, path); });
  }
};

/// Runs a shell block in `root` with this process's stdout/stderr (the session log): its exit code
/// (a signal's number when one ended it), or why bash could not start.
std::expected<int, std::string> run_block(const fs::path& root, const std::string& script) {
  static const auto bash = find_program("bash");
  if (bash.empty()) return std::unexpected("bash: not found on PATH");
  // Same group as this worker: a stop of the worker reaches the block it runs.
  auto pid = spawn_process({bash, {"bash", "-e", "-o", "pipefail", "-c", script}, std::nullopt, root, -1, -1, false});
  if (!pid) return std::unexpected("cannot start bash: " + pid.error().message);
  // A blocking wait, not bp::process on an io_context: out of descriptors their epoll instance and
  // pidfd_open throw, and the exception ended the worker without its report. This thread has
  // nothing else to do while the block runs; a stop reaches the block through the group.
  int status = 0;
  while (::waitpid(*pid, &status, 0) < 0)
    if (errno != EINTR) return std::unexpected(std::string("waiting for bash: ") + std::strerror(errno));
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? WTERMSIG(status) : -1;
}

/// Copies the files a reset is about to throw away into a new directory under
/// .orchestration/discarded/<spec>/: what looks like an attempt's leftovers may be a user's
/// uncommitted work in a declared file. Returns that directory (relative to `root`).
std::expected<std::string, std::string> keep_copies(const fs::path& root, const std::string& spec_name,
                                                    const std::string& plan_id, const std::vector<std::string>& files) {
  const std::string rel = util::new_discarded_dir(spec_name, plan_id);
  std::error_code ec;
  for (const auto& f : files) {
    const fs::path from = root / f;
    if (!fs::is_regular_file(from, ec) && !fs::is_symlink(from, ec)) continue; // deleted: HEAD has it
    const fs::path to = root / rel / f;
    ec = util::create_private_directories(to.parent_path()); // in .orchestration/: private like the rest
    if (!ec) fs::copy(from, to, fs::copy_options::overwrite_existing | fs::copy_options::copy_symlinks, ec);
    if (ec) return std::unexpected(fmt::format("could not keep a copy of {} in {}: {}", f, rel, ec.message()));
  }
  return rel;
}

/// Puts the declared files back to HEAD and removes untracked ones: what an interrupted attempt
/// left behind must not leak into the retry. A copy of each is kept first (keep_copies); when
/// that fails nothing is reset. Returns a line for the log, empty when nothing changed, or what
/// could not be reset (git's message, and what was reset all the same).
std::expected<std::string, std::string> reset_declared_files(const fs::path& root, const fs::path& lock,
                                                             const std::string& spec_name, const Declared& declared) {
  const spec::Plan& plan = declared.plan;
  // Looked at outside the repository lock: while this worker holds its plan lock nobody else
  // writes these files, and `status --no-optional-locks` only reads the index.
  std::vector<std::string> checkout = {"checkout", "HEAD", "--"};
  std::vector<std::string> unstage = {"reset", "-q", "--"};
  std::vector<std::string> remove;
  std::set<std::string> restored;
  std::vector<std::string> discarded;
  for (const auto& c : changed_paths(root, plan.files_modified)) {
    if (!declared(c.path)) continue;
    // A path git lists twice (below) is one file to the user: counted and copied once.
    if (std::ranges::find(discarded, c.path) == discarded.end()) discarded.push_back(c.path);
    if (c.added) unstage.push_back(literal_pathspec(c.path)); // a killed attempt got as far as `git add`
    if (c.untracked || c.added) remove.push_back(c.path);
    else if (restored.insert(c.path).second) checkout.push_back(literal_pathspec(c.path));
  }
  // A path git lists twice (its deletion staged, a new file of that name untracked): the checkout
  // below puts HEAD's back, which removing it after would undo.
  std::erase_if(remove, [&](const std::string& p) { return restored.contains(p); });
  if (discarded.empty()) return std::string();
  auto kept = keep_copies(root, spec_name, plan.id, discarded);
  if (!kept) return std::unexpected(kept.error() + ": nothing was reset");
  // The checkout first: when git refuses it (another git holds the index past our patience),
  // nothing else is reset, and the attempt fails saying so rather than run on the leftovers. Not
  // "nothing was reset": git may have written some of the files before it failed (a smudge filter
  // that fails leaves them empty); the copies are whole.
  std::string failed;
  with_git_lock(lock, [&] {
    if (checkout.size() > 3)
      if (auto r = run_git_writing_index(root, checkout); r.exit_code != 0) {
        failed = fmt::format("git checkout failed (exit {}); no new file was unstaged or removed: {}", r.exit_code, r.messages());
        return;
      }
    if (unstage.size() > 3)
      if (auto r = run_git_writing_index(root, unstage); r.exit_code != 0) {
        failed = fmt::format("git reset failed (exit {}); the changed files were put back, the new ones left as they are: {}",
                             r.exit_code, r.messages());
        return;
      }
    std::error_code ec;
    for (const auto& f : remove) fs::remove(root / f, ec);
  });
  if (!failed.empty())
    return std::unexpected(fmt::format("could not reset the declared files an earlier attempt (or you) left changed "
                                       "(copies in {}): {}",
                                       *kept, failed));
  return fmt::format("reset {} declared file{} an earlier attempt (or you) left changed; copies in {}", discarded.size(),
                     discarded.size() == 1 ? "" : "s", *kept);
}

/// Commits the changed declared files (and `extra` paths). Returns the hash, empty when nothing
/// changed, or git's complaint.
std::expected<std::string, std::string> commit_task(const fs::path& root, const fs::path& lock, const Declared& declared,
                                                    const std::vector<std::string>& extra, const std::string& message,
                                                    std::set<std::string>& touched, CommitHooks hooks) {
  std::vector<std::string> names = extra; // known paths: no need to ask git what changed
  std::vector<std::string> untracked;     // of the changed ones: what commit_paths need not ask again
  if (!declared.plan.files_modified.empty())
    for (const auto& c : changed_paths(root, declared.plan.files_modified))
      if (declared(c.path) && std::find(names.begin(), names.end(), c.path) == names.end()) {
        names.push_back(c.path);
        if (c.untracked) untracked.push_back(c.path);
      }
  // Only when status looked at every path: an extra one (the SUMMARY) may be new too.
  auto hash = commit_paths(root, lock, names, message, hooks, extra.empty() ? std::optional(untracked) : std::nullopt);
  if (hash && !hash->empty())
    for (const auto& n : names) touched.insert(n);
  return hash;
}

} // namespace

std::vector<std::pair<int, std::string>> committed_tasks(const fs::path& project_root, const std::string& plan_id,
                                                         const SpecOwner& ours) {
  auto args = trailer_log_args(false);
  // Its task commits and the redo markers that name it (several --grep: any of them matches).
  args.insert(args.end(), {"--fixed-strings", "--grep", fmt::format("Plan: {},", plan_id), "--grep", redo_trailer(plan_id, 0)});
  auto log = run_git(project_root, args);
  return standing_tasks(parse_trailer_log(log.out, false), plan_id, ours);
}

std::optional<std::vector<std::pair<int, std::string>>> committed_tasks_since(
    const fs::path& project_root, const std::string& plan_id, const SpecOwner& ours,
    const std::vector<std::pair<int, std::string>>& before, const std::string& at, const std::string& spec) {
  if (!is_object_name(at) || run_git(project_root, {"merge-base", "--is-ancestor", at, "HEAD"}).exit_code != 0) return std::nullopt;
  auto args = trailer_log_args(false);
  args.insert(args.end(), {"--fixed-strings", "--grep", fmt::format("Plan: {},", plan_id), "--grep", redo_trailer(plan_id, 0),
                           at + "..HEAD"});
  const auto log = run_git(project_root, args);
  if (log.exit_code != 0) return std::nullopt;
  // The commits since, newest first, then the standing tasks before them as commits of their own.
  auto history = parse_trailer_log(log.out, false);
  for (auto it = before.rbegin(); it != before.rend(); ++it) {
    // The list may have been made from a little further than `at`: its newest commits are then read twice.
    if (std::ranges::any_of(history, [&](const TrailerCommit& h) { return h.hash == it->second; })) continue;
    TrailerCommit c;
    c.hash = it->second;
    c.plan = plan_id;
    c.task = it->first;
    c.spec = spec;
    history.push_back(std::move(c));
  }
  return standing_tasks(history, plan_id, ours);
}

std::string format_done_tasks(const std::vector<std::pair<int, std::string>>& done) {
  std::string out;
  for (const auto& [index, hash] : done) out += fmt::format("{}{}={}", out.empty() ? "" : ",", index, hash);
  return out;
}

std::optional<std::vector<std::pair<int, std::string>>> parse_done_tasks(std::string_view text) {
  std::vector<std::pair<int, std::string>> out;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size()) return std::nullopt;
    const std::string index(item.substr(0, eq));
    if (index.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    const std::string hash(item.substr(eq + 1));
    if (hash.find_first_not_of("0123456789abcdef") != std::string::npos) return std::nullopt;
    out.emplace_back(std::atoi(index.c_str()), hash);
  }
  return out;
}

ScriptWorkerResult run_script_worker(const ScriptWorkerRequest& req) {
  ScriptWorkerResult result;
  const auto started = std::chrono::steady_clock::now();
  auto fail = [&](std::string why, protocol::Retry retry = protocol::Retry::allowed) {
    result.error = std::move(why);
    result.retry = retry;
    boost::json::object o{{"sessionId", req.session_id}, {"timestamp", now_iso()}, {"status", "failed"}, {"error", result.error}};
    if (retry == protocol::Retry::forbidden) o["retry"] = "forbidden";
    write_json(req, "result.json", std::move(o));
    return result;
  };
  // Only this plan's file is read: a worker of a 2,000-plan spec must not parse all of them.
  auto layout = spec::discover_layout(req.spec_dir, fs::current_path());
  result.bad_input = !layout;
  if (!layout) return fail(layout.error());
  auto loaded = spec::load_one_plan(*layout, req.plan_id);
  result.bad_input = !loaded;
  if (!loaded) return fail(loaded.error());
  const spec::Plan* plan = &*loaded;
  const spec::Layout* lay = &*layout;
  const Declared declared{*plan, lay->spec_dir_in_project()};
  const fs::path root = lay->project_root;
  const fs::path lock = root / ".orchestration" / "git.lock";
  const auto tasks = script_tasks(*plan);
  const int total = static_cast<int>(tasks.size());
  // A plan written for an agent: "done" here would be a SUMMARY saying its tasks ran while
  // nothing did, and only verification would notice, without saying why.
  if (std::ranges::all_of(tasks, [](const ScriptTask& t) { return t.scripts.empty(); }))
    return fail(fmt::format("plan {} has no ```sh or ```bash block: the script worker runs only those; execute it "
                            "with an agent (--worker claude or codex, or adapters.executor in .orchestration/config.yaml)",
                            plan->id),
                protocol::Retry::forbidden);
  auto status = [&](const char* state, int current, const std::string& message) {
    write_json(req, "status.json",
               {{"sessionId", req.session_id}, {"timestamp", now_iso()}, {"state", state},
                {"phase", spec::to_string(plan->phase)}, {"plan", plan->id}, {"currentTask", current},
                {"totalTasks", total}, {"message", message}});
  };
  status("initializing", 0, "script worker ready");

  // One worker per plan at a time. A worker orphaned by a killed orchestrator may still be running
  // this plan: wait for it, and then believe only the history, not what we were told at launch.
  // Per spec: every spec numbers its plans from 01-01, and another spec's 01-01 is no earlier
  // attempt of this one.
  // Not waiting for the lock does not prove that nobody ran the plan since the list was made: an
  // orphan launched before it may have run and committed, and released the lock, before this
  // worker asked. Each worker writes the hash of every task commit it makes into the lock file
  // ("committing" while git runs): the list is whole only if it holds the last one.
  FileLock plan_lock(root / ".orchestration" / "locks" / lay->spec_name / (plan->id + ".lock"));
  // Without it a second worker of the plan could run beside this one, and the git lock it would
  // take next lives in the same directory (review KK F6: a .orchestration that is a file).
  if (!plan_lock.error().empty())
    return fail(fmt::format("cannot take the plan's lock, so nothing was run: {}", plan_lock.error()), protocol::Retry::forbidden);
  const std::string last_commit = plan_lock.content();
  const bool list_holds_last = last_commit.empty() || (req.done_tasks && std::ranges::any_of(*req.done_tasks, [&](const auto& d) {
                                                         return d.second == last_commit;
                                                       }));
  const bool trust_caller = req.done_tasks && !plan_lock.waited() && list_holds_last;
  const bool leftovers_possible = !(req.first_attempt && !plan_lock.waited());
  const SpecOwner ours = [&](std::string_view s) { return lay->owns_spec_trailer(s); };
  std::optional<std::vector<std::pair<int, std::string>>> committed;
  if (trust_caller) committed = *req.done_tasks;
  else if (req.done_tasks) committed = committed_tasks_since(root, plan->id, ours, *req.done_tasks, req.done_tasks_at, lay->spec_trailer);
  if (!committed) committed = committed_tasks(root, plan->id, ours);
  std::set<int> done;
  std::set<std::string> touched;
  for (const auto& [index, hash] : *committed) {
    done.insert(index);
    result.commits.push_back(hash);
  }
  if (!result.commits.empty()) {
    // The files of tasks an earlier attempt committed belong in this SUMMARY too.
    for (auto& name : files_of_commits(root, result.commits))
      if (declared(name)) touched.insert(std::move(name));
  }
  for (const auto& task : tasks) {
    const std::string label = fmt::format("Task {}/{}: {}", task.index, total, task.name);
    if (done.count(task.index)) {
      ++result.tasks_skipped;
      status("running", task.index, label + " (already committed)");
      continue;
    }
    status("running", task.index, label);
    if (leftovers_possible) {
      auto reset = reset_declared_files(root, lock, lay->spec_name, declared);
      if (!reset) return fail(fmt::format("{}: {}", label, reset.error()));
      if (!reset->empty()) fmt::print("{}\n", *reset); // the session log; copies are never lost silently
    }
    for (const auto& script : task.scripts) {
      const auto code = run_block(root, script);
      if (!code) return fail(fmt::format("{} failed: {}", label, code.error()));
      if (*code != 0) return fail(fmt::format("{} failed: a shell block exited {}", label, *code));
    }
    ++result.tasks_run;
    const std::string before = plan_lock.content();
    plan_lock.set_content("committing"); // killed before the hash is written: the next worker reads history
    auto hash = commit_task(root, lock, declared, {}, task_commit_message(*plan, task, total, lay->spec_trailer), touched,
                            CommitHooks::run);
    if (!hash) return fail(fmt::format("{}: {}", label, hash.error()));
    plan_lock.set_content(hash->empty() ? before : *hash);
    if (hash->empty()) continue;
    result.commits.push_back(*hash);
    // Said now, not found by the retry: it would run the task again and lose the trailers again.
    if (auto lost = lost_trailers(root, *hash, plan->id, task.index, lay->spec_trailer); !lost.empty())
      return fail(fmt::format("{}: {}", label, lost), protocol::Retry::forbidden);
  }

  ScriptRunRecord record;
  record.commits = result.commits;
  record.files_touched.assign(touched.begin(), touched.end());
  record.tasks_run = result.tasks_run + result.tasks_skipped;
  record.task_count = total;
  record.duration_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const auto* phase = lay->find_phase(plan->phase);
  result.summary = lay->summary_file(*phase, plan->id);
  // A retry that found every task committed keeps the SUMMARY an earlier attempt wrote: its
  // content (duration, commits) would differ, and a resumed run must end as an uninterrupted one.
  // Not one validate rejects (another plan's plan_id): the orchestrator fails the attempt on it.
  bool keep = false;
  if (result.tasks_run == 0)
    if (auto old = util::read_file(result.summary)) {
      std::vector<spec::Diagnostic> diags;
      keep = spec::parse_summary(*old, result.summary.string(), diags, plan->id).status == "complete" && !spec::has_errors(diags);
    }
  if (!keep)
    if (auto w = util::write_file_atomic(result.summary, script_summary(*plan, record)); !w) return fail(w.error());
  std::error_code ec;
  const std::string summary_rel = fs::relative(result.summary, root, ec).string();
  const std::string msg = fmt::format("docs({}): summary\n\n{}", plan->id, plan_trailers(plan->id, 0, 0, lay->spec_trailer));
  const spec::Plan none;
  auto hash = commit_task(root, lock, Declared{none, {}}, {summary_rel}, msg, touched, CommitHooks::skip);
  if (!hash) return fail("summary: " + hash.error());
  if (!hash->empty()) result.commits.push_back(*hash);
  if (!hash->empty()) // hooks are skipped, but prepare-commit-msg runs all the same
    if (auto lost = lost_trailers(root, *hash, plan->id, 0, lay->spec_trailer); !lost.empty())
      return fail("summary: " + lost, protocol::Retry::forbidden);
  result.files_touched.assign(touched.begin(), touched.end());
  result.ok = true;
  boost::json::array commits, files;
  for (const auto& c : result.commits) commits.push_back(boost::json::string(c));
  for (const auto& f : result.files_touched) files.push_back(boost::json::string(f));
  status("completed", total, "all tasks done");
  write_json(req, "result.json",
             {{"sessionId", req.session_id}, {"timestamp", now_iso()}, {"status", "completed"},
              {"summaryPath", summary_rel}, {"commits", std::move(commits)}, {"filesTouched", std::move(files)},
              {"tasksRun", result.tasks_run}, {"tasksSkipped", result.tasks_skipped}});
  return result;
}

} // namespace harness::worker
