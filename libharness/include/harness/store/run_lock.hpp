#pragma once
// The orchestrator's claim on a project: an exclusive flock on `.orchestration/orchestrator.lock`
// held for the whole run. The kernel drops it when the process dies, so "is an orchestrator
// running here?" has an answer a kill -9 cannot leave stale, and two runs never share a project.

#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace harness::store {

/// What the running orchestrator wrote beside its lock.
struct RunInfo {
  long pid = 0;
  std::string spec;        ///< spec directory it runs
  std::string started_at;  ///< ISO 8601
  std::string run_id;      ///< the run's id (its checkpoints and sessions carry it)
  int schema = 0;          ///< store schema the run's build writes; 0: a build older than this field
};

class RunLock {
public:
  /// Takes the lock of `state_dir` without waiting and records `info` (pid filled in) in
  /// orchestrator.json. Fails, naming the holder, when another process runs here.
  static std::expected<RunLock, std::string> acquire(const std::filesystem::path& state_dir, RunInfo info);
  RunLock(RunLock&& o) noexcept : m_fd(o.m_fd) { o.m_fd = -1; }
  RunLock& operator=(RunLock&&) = delete;
  RunLock(const RunLock&) = delete;
  ~RunLock();

private:
  explicit RunLock(int fd) : m_fd(fd) {}
  int m_fd = -1;
};

/// A command's hold that keeps orchestrators from starting in a project while it lasts: a shared
/// flock on the same file, which RunLock::acquire waits out (up to a few seconds). For a command
/// that checks "no run is alive" and then writes what a run reads (`respond --replace`, `redo`): a
/// run starting between the check and the write would read the old state.
class RunsHeldOff {
public:
  RunsHeldOff(RunsHeldOff&& o) noexcept : m_fd(o.m_fd) { o.m_fd = -1; }
  RunsHeldOff& operator=(RunsHeldOff&&) = delete;
  RunsHeldOff(const RunsHeldOff&) = delete;
  ~RunsHeldOff();

private:
  friend std::expected<RunsHeldOff, RunInfo> hold_off_runs(const std::filesystem::path& state_dir);
  explicit RunsHeldOff(int fd) : m_fd(fd) {}
  int m_fd = -1;
};

/// Holds runs off in `state_dir`, or says which orchestrator runs there. When the lock file cannot
/// be made (no such directory), nothing is held: then no run has used the directory either.
std::expected<RunsHeldOff, RunInfo> hold_off_runs(const std::filesystem::path& state_dir);

/// The orchestrator running in `state_dir`, or nullopt when none holds the lock (whatever an
/// old orchestrator.json says). Its pid is the lock holder's as the kernel reports it; `spec` and
/// `started_at` are empty when orchestrator.json does not describe that process (an orchestrator
/// that took the lock a moment ago and has not written it yet, or a stale file of an earlier run).
std::optional<RunInfo> running_orchestrator(const std::filesystem::path& state_dir);

/// "pid 4242, docs/specs/SPC-001-x, since 2026-...": the run for a message; says so plainly when
/// the spec is not recorded yet, or the holder is unknown (pid 0).
std::string describe_run(const RunInfo& info);

/// The pid holding an exclusive flock on the file (device `major`:`minor`, `inode`), read from
/// the text of /proc/locks; nullopt when no line says so (waiters, `->` lines, do not count).
std::optional<long> exclusive_flock_holder(std::string_view proc_locks, unsigned major, unsigned minor,
                                           unsigned long long inode);

}  // namespace harness::store
