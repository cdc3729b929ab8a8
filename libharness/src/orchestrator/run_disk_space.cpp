// A disk that fills during a run. Every attempt then fails (its log, its files, its commit), and
// each failure spent an attempt: a run on a disk that filled for ten minutes blocked every task
// it reached (review II F9). A failure while the disk is too full is taken for the disk's: the
// task waits for space as for a rate limit, costing no attempt, and runs again once there is.
#include "run_loop.hpp"

namespace harness::orchestrator {

namespace {

/// How often a task waiting for space looks again: statvfs costs microseconds.
constexpr std::chrono::seconds disk_poll{2};

/// After this many attempts in a row that failed on a full disk, the next counts as the task's
/// own: what fills the disk may be its own output, which the wait would never free.
constexpr int disk_failures_forgiven = 3;

std::string room_needed() {
  return fmt::format("{} KB and {} files free", least_free_to_run / 1024, least_free_files_to_run);
}

/// "; the waiting tasks' plans left uncommitted files: out/big (16.0 MB)": the three largest of
/// at least 64 KB among the changed files the waiting plans declare, or empty. A task whose own
/// output filled the disk waits until someone frees it; this says where to look (review QQ F4).
std::string own_large_files(const fs::path& root, const std::vector<const spec::Plan*>& plans) {
  std::vector<std::string> globs;
  for (const auto* p : plans)
    for (const auto& f : p->files_modified) globs.push_back(worker::glob_pathspec(f));
  if (globs.empty()) return {};
  std::vector<std::pair<std::uintmax_t, std::string>> sized;
  for (const auto& c : worker::changed_paths(root, globs)) {
    std::error_code ec;
    if (c.deleted) continue;
    if (const auto size = fs::file_size(root / c.path, ec); !ec && size >= 64 * 1024) sized.emplace_back(size, c.path);
  }
  if (sized.empty()) return {};
  std::ranges::sort(sized, std::greater<>());
  std::string list;
  for (std::size_t i = 0; i < sized.size() && i < 3; ++i)
    list += fmt::format("{}{} ({:.1f} MB)", i ? ", " : "", sized[i].second, static_cast<double>(sized[i].first) / (1024 * 1024));
  return "; the waiting tasks' plans left uncommitted files: " + list;
}

} // namespace

std::optional<std::string> Orchestrator::Impl::disk_too_full() const {
  const auto space = util::least_free_space({spec.layout.project_root, state_dir});
  if (!space) return std::nullopt;
  if (space->bytes < least_free_to_run)
    return fmt::format("the file system holding {} has {} KB free", space->at.string(), space->bytes / 1024);
  if (space->files && *space->files < least_free_files_to_run)
    return fmt::format("the file system holding {} has room for {} more files (its inodes are used up)",
                       space->files_at.string(), *space->files);
  return std::nullopt;
}

bool Orchestrator::Impl::defer_for_space(const std::string& sid, const std::string& task, const std::string& why) {
  const auto full = disk_too_full();
  if (!full) {
    disk_failures.erase(task);
    return false;
  }
  if (++disk_failures[task] > disk_failures_forgiven) {
    disk_failures.erase(task);
    emit(RunEventKind::note, task, -1, 0,
         fmt::format("{} failed with the disk full {} times in a row: this failure counts as an attempt (what fills the "
                     "disk may be its own output: look at its files)",
                     task, disk_failures_forgiven + 1));
    return false;
  }
  disk_waits.insert(task);
  end_session(sid,
              fmt::format("{}; {}: taken for the disk's fault, the task runs again once it has {} (costs no attempt)", why,
                          *full, room_needed()),
              false);
  fail(task, sched::FailureClass::rate_limited, "waiting for disk space");
  return true;
}

bool Orchestrator::Impl::hold_start_for_space(const sched::Action& a) {
  if (disk_waits.empty() || is_verify(a.kind) || !disk_too_full()) return false;
  disk_waits.insert(a.task);
  // Never inside the scheduler's action: the failure is an event of its own.
  asio::post(ctx, [this, t = a.task] { fail(t, sched::FailureClass::rate_limited, "waiting for disk space"); });
  return true;
}

void Orchestrator::Impl::wait_for_space(const sched::Action& a) {
  if (const auto full = disk_too_full(); full && !disk_wait_said) {
    disk_wait_said = true; // once while the disk stays full, however many tasks wait
    disk_full_since = std::chrono::steady_clock::now();
    std::vector<const spec::Plan*> waiting;
    for (const auto& task : disk_waits)
      if (task.starts_with("execute:"))
        if (const auto* p = spec.find_plan(task.substr(8))) waiting.push_back(p);
    emit(RunEventKind::note, a.task, a.slot, a.attempt,
         fmt::format("waiting for disk space: {}{}; tasks that failed on it, and tasks ready meanwhile, run once it has {} "
                     "(checked every {} s, for at most {} s: timeouts.disk_full; free some space, or Ctrl-C stops the run)",
                     *full, own_large_files(spec.layout.project_root, waiting), room_needed(), disk_poll.count(),
                     opt.disk_full_wait.count()));
  }
  auto timer = std::make_shared<asio::steady_timer>(ctx, disk_poll);
  timer->async_wait([this, timer, a](boost::system::error_code e) {
    if (e || done) return;
    if (!draining && disk_too_full()) {
      if (std::chrono::steady_clock::now() - disk_full_since < opt.disk_full_wait) return wait_for_space(a);
      return stop_for_space();
    }
    disk_waits.erase(a.task);
    disk_wait_said = false;
    feed(sched::make_event(EventType::retry_due, a.task));
  });
}

void Orchestrator::Impl::stop_for_space() {
  // An unattended run (CI, a night) whose task fills the disk itself, or whose disk nobody frees,
  // would wait forever (review QQ F4): it ends instead, the waiting tasks with their attempts
  // unspent, so that the next run, once there is space, goes on where this one stopped.
  emit(RunEventKind::note, "", -1, 0,
       fmt::format("the disk stayed too full for {} s (timeouts.disk_full): stopping the run; {} task{} waited for "
                   "space and keep{} {} attempts, and running workers are stopped: free some space and run "
                   "harness-cli orchestrate {} again",
                   opt.disk_full_wait.count(), disk_waits.size(), disk_waits.size() == 1 ? "" : "s",
                   disk_waits.size() == 1 ? "s" : "", disk_waits.size() == 1 ? "its" : "their", spec_arg()));
  summary.outcome = "disk_full";
  // Not waited for (review TT L1: up to their task timeout): their work cannot be written on the
  // full disk either, and the next run resumes them as after an interrupt.
  host->stop_all("shutdown", opt.stop_grace);
  begin_drain(true);
}

} // namespace harness::orchestrator
