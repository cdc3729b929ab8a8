#pragma once
// Running a command to completion (checks, git, tests): argv without a shell, explicit cwd and
// environment, its own process group, a timeout that TERMs the group, waits, then KILLs it, and
// stdout+stderr captured up to a cap (head and tail kept).

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace harness::worker {

struct CommandRequest {
  std::vector<std::string> argv;
  std::filesystem::path cwd;
  std::optional<std::map<std::string, std::string>> env; ///< complete environment; nullopt = inherit
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  std::chrono::milliseconds grace{std::chrono::seconds(2)};
  size_t max_output = 64 * 1024;
  /// When set (looked at every 50 ms), the group is stopped as on a timeout: TERM, grace, KILL.
  /// Owned by the caller and alive until run_command returns. Null: never cancelled.
  const std::atomic<bool>* cancel = nullptr;
};

struct CommandResult {
  int exit_code = -1;   ///< -1 when it did not exit normally
  int signal = 0;
  bool timed_out = false;
  bool cancelled = false; ///< stopped because `cancel` was set
  bool started = false;
  std::string output;   ///< stdout and stderr interleaved, capped
  bool truncated = false;
  double seconds = 0;
  std::string error;    ///< why it could not start
  bool ok() const { return started && !timed_out && !cancelled && exit_code == 0; }
};

/// Blocks until the command and every process of its group are gone (or killed).
CommandResult run_command(const CommandRequest& req);


} // namespace harness::worker
