#pragma once
// The orchestrator's claim on a project: an exclusive flock on `.orchestration/orchestrator.lock`
// held for the whole run. The kernel drops it when the process dies, so "is an orchestrator
// running here?" has an answer a kill -9 cannot leave stale, and two runs never share a project.

#include <expected>
#include <filesystem>
#include <optional>
#include <string>

namespace harness::store {

/// What the running orchestrator wrote beside its lock.
struct RunInfo {
  long pid = 0;
  std::string spec;        ///< spec directory it runs
  std::string started_at;  ///< ISO 8601
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

/// The orchestrator running in `state_dir`, or nullopt when none holds the lock (whatever an
/// old orchestrator.json says).
std::optional<RunInfo> running_orchestrator(const std::filesystem::path& state_dir);

}  // namespace harness::store
