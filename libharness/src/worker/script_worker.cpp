#include "harness/worker/script_worker.hpp"

#include "harness/util/atomic_file.hpp"
#include "harness/util/glob.hpp"
#include "harness/worker/script_plan.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/readable_pipe.hpp>
#include <boost/json.hpp>
#include <boost/process/v2/environment.hpp>
#include <boost/process/v2/process.hpp>
#include <boost/process/v2/start_dir.hpp>
#include <boost/process/v2/stdio.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <expected>
#include <chrono>
#include <ctime>
#include <fcntl.h>
#include <set>
#include <sys/file.h>
#include <unistd.h>

namespace harness::worker {
namespace {

namespace asio = boost::asio;
namespace bp = boost::process::v2;
namespace fs = std::filesystem;

struct Run {
  int exit_code = -1;
  std::string out;
};

/// Runs argv[0] (looked up on PATH) in `cwd`; stdout captured when `capture`, else inherited.
Run run(const std::vector<std::string>& argv, const fs::path& cwd, bool capture) {
  asio::io_context ctx;
  Run r;
  auto exe = bp::environment::find_executable(argv[0]);
  if (exe.empty()) {
    r.out = argv[0] + ": not found on PATH";
    return r;
  }
  std::vector<std::string> args(argv.begin() + 1, argv.end());
  boost::system::error_code ec;
  if (capture) {
    asio::readable_pipe pipe(ctx);
    // stderr joins stdout so a failure message reaches the caller.
    bp::process proc(ctx, exe, args, bp::process_stdio{nullptr, pipe, pipe}, bp::process_start_dir(cwd.string()));
    asio::read(pipe, asio::dynamic_buffer(r.out), ec);
    r.exit_code = proc.wait();
  } else {
    bp::process proc(ctx, exe, args, bp::process_stdio{nullptr, {}, {}}, bp::process_start_dir(cwd.string()));
    r.exit_code = proc.wait();
  }
  return r;
}

/// Serializes git index work of concurrent workers in one repository.
class GitLock {
public:
  explicit GitLock(const fs::path& lock_file) {
    std::error_code ec;
    fs::create_directories(lock_file.parent_path(), ec);
    // The state directory ignores itself, so `git status` and `git add -A` never pick it up.
    if (!fs::exists(lock_file.parent_path() / ".gitignore", ec))
      (void)util::write_file_atomic(lock_file.parent_path() / ".gitignore", "*\n");
    m_fd = ::open(lock_file.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    if (m_fd >= 0)
      while (::flock(m_fd, LOCK_EX) != 0 && errno == EINTR) {
      }
  }
  ~GitLock() {
    if (m_fd >= 0) ::close(m_fd);
  }
  GitLock(const GitLock&) = delete;
  GitLock& operator=(const GitLock&) = delete;

private:
  int m_fd = -1;
};

void write_json(const fs::path& session_dir, const char* name, const boost::json::object& o) {
  if (session_dir.empty()) return;
  (void)util::write_file_atomic(session_dir / name, boost::json::serialize(o) + "\n");
}

std::string now_iso() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::vector<std::string> git(std::vector<std::string> args) {
  args.insert(args.begin(), "git");
  return args;
}

struct Change {
  bool untracked = false;
  std::string path;
};

/// Paths that differ from HEAD (tracked changes and untracked files), from `git status -z`.
std::vector<Change> changed_paths(const fs::path& root) {
  auto r = run(git({"status", "--porcelain=v1", "-z", "--untracked-files=all"}), root, true);
  std::vector<Change> out;
  size_t pos = 0;
  while (pos + 3 < r.out.size()) {
    size_t end = r.out.find('\0', pos);
    if (end == std::string::npos) end = r.out.size();
    const std::string entry = r.out.substr(pos, end - pos);
    pos = end + 1;
    if (entry.size() < 4) continue;
    out.push_back({entry[0] == '?', entry.substr(3)});
    if (entry[0] == 'R' || entry[0] == 'C') pos = r.out.find('\0', pos) + 1; // skip the rename source
  }
  return out;
}

bool declared(const spec::Plan& plan, const std::string& path) {
  return std::any_of(plan.files_modified.begin(), plan.files_modified.end(),
                     [&](const std::string& g) { return util::glob_match(g, path); });
}

/// Puts the declared files back to HEAD and removes untracked ones: what an interrupted attempt
/// left behind must not leak into the retry.
void reset_declared_files(const fs::path& root, const spec::Plan& plan) {
  std::vector<std::string> tracked;
  for (const auto& c : changed_paths(root)) {
    if (!declared(plan, c.path)) continue;
    if (c.untracked) {
      std::error_code ec;
      fs::remove(root / c.path, ec);
    } else {
      tracked.push_back(c.path);
    }
  }
  if (tracked.empty()) return;
  auto checkout = git({"checkout", "HEAD", "--"});
  checkout.insert(checkout.end(), tracked.begin(), tracked.end());
  run(checkout, root, true);
}

/// Commits the changed declared files (and `extra` paths) if there are any. Returns the new
/// commit hash, empty when there was nothing to commit, or git's complaint.
std::expected<std::string, std::string> commit_task(const fs::path& root, const fs::path& lock, const spec::Plan& plan,
                        const std::vector<std::string>& extra, const std::string& message,
                        std::set<std::string>& touched) {
  GitLock guard(lock);
  std::vector<std::string> names;
  for (const auto& c : changed_paths(root))
    if (declared(plan, c.path) || std::find(extra.begin(), extra.end(), c.path) != extra.end()) names.push_back(c.path);
  if (names.empty()) return {};
  auto add = git({"add", "-A", "--"});
  add.insert(add.end(), names.begin(), names.end());
  if (auto r = run(add, root, true); r.exit_code != 0) return std::unexpected("git add failed: " + r.out);
  for (const auto& n : names) touched.insert(n);
  // Commit only these paths: other workers may have staged their own files meanwhile.
  auto commit = git({"commit", "-q", "--no-verify", "-m", message, "--"});
  commit.insert(commit.end(), names.begin(), names.end());
  if (auto r = run(commit, root, true); r.exit_code != 0)
    return std::unexpected(fmt::format("git commit failed (exit {}); is user.name/user.email configured? {}", r.exit_code, r.out));
  auto head = run(git({"rev-parse", "HEAD"}), root, true).out;
  while (!head.empty() && head.back() == '\n') head.pop_back();
  return head;
}

} // namespace

std::vector<std::pair<int, std::string>> committed_tasks(const fs::path& project_root, const std::string& plan_id) {
  auto log = run(git({"log", "--format=%H%x1f%B%x1e", "--grep", fmt::format("Plan: {},", plan_id), "--fixed-strings"}),
                 project_root, true);
  std::vector<std::pair<int, std::string>> out;
  const std::string needle = fmt::format("Plan: {}, Task: ", plan_id);
  size_t pos = 0;
  while (pos < log.out.size()) {
    size_t end = log.out.find('\x1e', pos);
    if (end == std::string::npos) end = log.out.size();
    std::string_view rec(log.out.data() + pos, end - pos);
    const size_t sep = rec.find('\x1f');
    if (sep != std::string_view::npos) {
      std::string hash(rec.substr(0, sep));
      hash.erase(0, hash.find_first_not_of("\n"));
      const size_t at = rec.find(needle);
      if (at != std::string_view::npos) out.emplace_back(std::atoi(std::string(rec.substr(at + needle.size(), 6)).c_str()), hash);
    }
    pos = end + 1;
  }
  return out;
}

ScriptWorkerResult run_script_worker(const ScriptWorkerRequest& req) {
  ScriptWorkerResult result;
  const auto started = std::chrono::steady_clock::now();
  auto fail = [&](std::string why) {
    result.error = std::move(why);
    write_json(req.session_dir, "result.json",
               {{"sessionId", req.session_id}, {"timestamp", now_iso()}, {"status", "failed"}, {"error", result.error}});
    return result;
  };
  auto spec = spec::load_spec(req.spec_dir);
  if (!spec) return fail(spec.error());
  const spec::Plan* plan = spec->find_plan(req.plan_id);
  if (!plan) return fail(fmt::format("plan {} not found in {}", req.plan_id, req.spec_dir.string()));
  const fs::path root = spec->layout.project_root;
  const fs::path lock = root / ".orchestration" / "git.lock";
  const auto tasks = script_tasks(*plan);
  const int total = static_cast<int>(tasks.size());
  auto status = [&](const char* state, int current, const std::string& message) {
    write_json(req.session_dir, "status.json",
               {{"sessionId", req.session_id}, {"timestamp", now_iso()}, {"state", state},
                {"phase", spec::to_string(plan->phase)}, {"plan", plan->id}, {"currentTask", current},
                {"totalTasks", total}, {"message", message}});
  };
  status("initializing", 0, "script worker ready");

  std::set<int> done;
  std::set<std::string> touched;
  for (const auto& [index, hash] : committed_tasks(root, plan->id)) {
    done.insert(index);
    result.commits.push_back(hash);
  }
  std::reverse(result.commits.begin(), result.commits.end()); // git log is newest first
  for (const auto& task : tasks) {
    const std::string label = fmt::format("Task {}/{}: {}", task.index, total, task.name);
    if (done.count(task.index)) {
      ++result.tasks_skipped;
      status("running", task.index, label + " (already committed)");
      continue;
    }
    status("running", task.index, label);
    reset_declared_files(root, *plan);
    for (const auto& script : task.scripts) {
      auto r = run({"bash", "-e", "-o", "pipefail", "-c", script}, root, false);
      if (r.exit_code != 0) return fail(fmt::format("{} failed: a shell block exited {}", label, r.exit_code));
    }
    ++result.tasks_run;
    auto hash = commit_task(root, lock, *plan, {}, task_commit_message(*plan, task, total, spec->layout.spec_name), touched);
    if (!hash) return fail(fmt::format("{}: {}", label, hash.error()));
    if (!hash->empty()) result.commits.push_back(*hash);
  }

  ScriptRunRecord record;
  record.commits = result.commits;
  record.files_touched.assign(touched.begin(), touched.end());
  record.tasks_run = result.tasks_run + result.tasks_skipped;
  record.task_count = total;
  record.duration_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const auto* phase = spec->layout.find_phase(plan->phase);
  result.summary = spec->layout.summary_file(*phase, plan->id);
  if (auto w = util::write_file_atomic(result.summary, script_summary(*plan, record)); !w) return fail(w.error());
  std::error_code ec;
  const std::string summary_rel = fs::relative(result.summary, root, ec).string();
  const std::string msg = fmt::format("docs({}): summary\n\nPlan: {}\nSpec: {}\n", plan->id, plan->id, spec->layout.spec_name);
  auto hash = commit_task(root, lock, spec::Plan{}, {summary_rel}, msg, touched);
  if (!hash) return fail("summary: " + hash.error());
  if (!hash->empty()) result.commits.push_back(*hash);
  result.files_touched.assign(touched.begin(), touched.end());
  result.ok = true;
  boost::json::array commits, files;
  for (const auto& c : result.commits) commits.push_back(boost::json::string(c));
  for (const auto& f : result.files_touched) files.push_back(boost::json::string(f));
  status("completed", total, "all tasks done");
  write_json(req.session_dir, "result.json",
             {{"sessionId", req.session_id}, {"timestamp", now_iso()}, {"status", "completed"},
              {"summaryPath", summary_rel}, {"commits", std::move(commits)}, {"filesTouched", std::move(files)},
              {"tasksRun", result.tasks_run}, {"tasksSkipped", result.tasks_skipped}});
  return result;
}

} // namespace harness::worker
