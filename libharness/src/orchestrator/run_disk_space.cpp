// A disk that fills during a run. Every attempt then fails (its log, its files, its commit), and
// each failure spent an attempt: a run on a disk that filled for ten minutes blocked every task
// it reached (review II F9). A failure while the disk is too full is taken for the disk's: the
// task waits for space as for a rate limit, costing no attempt, and runs again once there is.
#include "run_loop.hpp"

namespace harness::orchestrator {

namespace {

/// How often a task waiting for space looks again: statvfs costs microseconds.
constexpr std::chrono::seconds disk_poll{2};

std::string kilobytes(std::uint64_t bytes) { return fmt::format("{} KB", bytes / 1024); }

} // namespace

std::optional<util::FreeSpace> Orchestrator::Impl::disk_too_full() const {
  auto space = util::least_free_space({spec.layout.project_root, state_dir});
  if (space && space->bytes < least_free_to_run) return space;
  return std::nullopt;
}

bool Orchestrator::Impl::defer_for_space(const std::string& sid, const std::string& task, const std::string& why) {
  const auto full = disk_too_full();
  if (!full) return false;
  disk_waits.insert(task);
  end_session(sid,
              fmt::format("{}; the file system holding {} has {} free: taken for the disk's fault, the task runs again "
                          "once it has {} (costs no attempt)",
                          why, full->at.string(), kilobytes(full->bytes), kilobytes(least_free_to_run)),
              false);
  fail(task, sched::FailureClass::rate_limited, "waiting for disk space");
  return true;
}

void Orchestrator::Impl::wait_for_space(const sched::Action& a) {
  if (const auto full = disk_too_full(); full && !disk_wait_said) {
    disk_wait_said = true; // once while the disk stays full, however many tasks wait
    emit(RunEventKind::note, a.task, a.slot, a.attempt,
         fmt::format("waiting for disk space: the file system holding {} has {} free; tasks that failed on it run "
                     "again once it has {} (checked every {} s; free some space, or Ctrl-C stops the run)",
                     full->at.string(), kilobytes(full->bytes), kilobytes(least_free_to_run), disk_poll.count()));
  }
  auto timer = std::make_shared<asio::steady_timer>(ctx, disk_poll);
  timer->async_wait([this, timer, a](boost::system::error_code e) {
    if (e || done) return;
    if (!draining && disk_too_full()) return wait_for_space(a);
    disk_waits.erase(a.task);
    disk_wait_said = false;
    feed(sched::make_event(EventType::retry_due, a.task));
  });
}

} // namespace harness::orchestrator
