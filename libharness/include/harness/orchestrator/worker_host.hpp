#pragma once
// Supervising worker processes on an Asio io_context: each in its own process group, output
// appended to the session's log (and a bounded in-memory tail), stop = TERM the group, a grace
// period, then KILL. Everything runs on the io_context's thread.

#include "harness/util/system_error.hpp"
#include "harness/worker/adapter.hpp"
#include "harness/worker/output_log.hpp"

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <expected>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace harness::orchestrator {

/// How a worker process ended.
/// An output line longer than this without its end is held by its last `held_line_tail` bytes
/// only (the log file keeps everything): memory stays bounded whatever a worker prints.
inline constexpr std::size_t max_held_line = std::size_t{32} << 20;
inline constexpr std::size_t held_line_tail = std::size_t{64} << 10;

struct WorkerExit {
  int exit_code = -1;       ///< -1 when killed by a signal
  int signal = 0;
  bool stopped = false;     ///< we stopped it (timeout, idle, shutdown)
  std::string stop_reason;  ///< "timed out", "idle", "shutdown"
  std::string output_tail;  ///< its last lines of output (what it said before it ended)
  std::string log_error;    ///< why its log file missed output (worker::OutputLog::write_error), else empty
  /// Command lines of what it started outside its process group, stopped as it ended
  /// (stop_escaped_processes).
  std::vector<std::string> escaped;
};

/// Kills what a worker of `session` started that left the worker's process group `pgid` (a
/// `setsid` daemon, a job of a shell with job control): a stop of the group misses it, and it
/// would outlive the run, holding ports and files. Found by the HARNESS_SESSION_ID=`session` it
/// inherited (one scan of /proc); one that cleared its environment is not found. Returns their
/// command lines. They are not this process's children, so no zombie is left here.
/// With `state_dir` (the HARNESS_STATE_DIR it was started with; empty: not known), only processes
/// that inherited that too: another project's session of the same id is not this one's.
std::vector<std::string> stop_escaped_processes(const std::string& session, const std::string& state_dir, int pgid);

class WorkerHost {
public:
  using LineHandler = std::function<void(const std::string& session, std::string_view line)>;
  using ExitHandler = std::function<void(const std::string& session, const WorkerExit& exit)>;

  WorkerHost(boost::asio::io_context& ctx, LineHandler on_line, ExitHandler on_exit);
  ~WorkerHost();
  WorkerHost(const WorkerHost&) = delete;
  WorkerHost& operator=(const WorkerHost&) = delete;

  /// Starts `spec` for `session` (whose environment sets HARNESS_SESSION_ID to `session`: what
  /// it leaves running outside its group is found by it); output goes to `log_path`. The task timeout stops it after
  /// `timeout`, the idle timeout after `idle` without any output, each with `grace` between TERM
  /// and KILL (`timeouts.stop_grace`). Returns the pid, or why it did not start, with the errno
  /// behind it (util::SystemError).
  std::expected<int, util::SystemError> start(const std::string& session, const worker::LaunchSpec& spec,
                                        const std::filesystem::path& log_path, std::chrono::seconds timeout,
                                        std::chrono::seconds idle, std::chrono::seconds grace = std::chrono::seconds(10));
  /// TERM the session's process group, KILL after `grace`. The exit handler still runs.
  void stop(const std::string& session, const std::string& reason, std::chrono::seconds grace);
  /// Stops every process (shutdown).
  void stop_all(const std::string& reason, std::chrono::seconds grace);
  /// Idle-timeout clock reset from outside (a worker message counts as activity).
  void touch(const std::string& session);
  /// The worker waits for a person's answer: neither its idle timeout nor its task timeout runs
  /// until release(), which gives the task timeout back what was left of it.
  void hold(const std::string& session);
  /// The same for at most `wait` (the worker blocks in a wait that gives up by then): the hold
  /// ends by itself when `wait` has passed, as release() would end it. A hold without an end (a
  /// question's) gets this one; one with an end ends at the later of the two.
  void hold_for(const std::string& session, std::chrono::steady_clock::duration wait);
  void release(const std::string& session);
  /// True while `session` is held (hold(), or hold_for() until its end): its worker waits for a person.
  bool held(const std::string& session) const;
  /// Last lines of a session's output (in memory).
  std::string tail(const std::string& session, size_t lines) const;
  size_t running() const { return m_procs.size(); }
  /// True while `session` has a worker process here (verification sessions have none).
  bool has_process(const std::string& session) const { return m_procs.contains(session); }

private:
  struct Proc;
  void read_more(const std::shared_ptr<Proc>& p);
  void arm_timers(const std::shared_ptr<Proc>& p);
  void arm_deadline(const std::shared_ptr<Proc>& p, std::chrono::steady_clock::duration after);
  void pause(const std::shared_ptr<Proc>& p);
  void resume(const std::shared_ptr<Proc>& p);
  void finish(const std::shared_ptr<Proc>& p, int native_status);

  boost::asio::io_context& m_ctx;
  LineHandler m_on_line;
  ExitHandler m_on_exit;
  std::map<std::string, std::shared_ptr<Proc>> m_procs;
};

/// True when the process group of the worker `pid` (a worker leads its own) still has a process
/// that runs: the worker, or what it started after the worker exited. A zombie runs nothing. False
/// when `pid` is now another process than the one that started at `start_ticks` (field 22 of
/// /proc/<pid>/stat; 0: not known), so a reused pid is not mistaken for an old worker.
bool worker_group_alive(int pid, unsigned long long start_ticks);
/// Start time of `pid` in clock ticks since boot, or 0.
unsigned long long process_start_ticks(int pid);
/// TERM every group, wait up to `grace` for all of them together, then KILL what is left.
/// Blocking; for recovery before the loop runs.
void kill_process_groups(const std::vector<int>& pgids, std::chrono::milliseconds grace);

} // namespace harness::orchestrator
