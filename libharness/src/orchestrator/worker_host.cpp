#include "harness/orchestrator/worker_host.hpp"

#include "harness/worker/child_watch.hpp"

#include "harness/util/atomic_file.hpp"
#include "harness/util/proc_stat.hpp"
#include "harness/worker/child_pipe.hpp"
#include "harness/worker/proc_scan.hpp"
#include "harness/worker/spawn.hpp"

#include <boost/asio/readable_pipe.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/process/v2/environment.hpp>
#include <boost/process/v2/process.hpp>
#include <fmt/format.h>

#include <csignal>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace harness::orchestrator {
namespace asio = boost::asio;
namespace bp = boost::process::v2;

struct WorkerHost::Proc {
  std::string session;
  std::string state_dir;                       ///< its HARNESS_STATE_DIR: whose session `session` is
  std::unique_ptr<worker::ChildPipe> out;
  std::unique_ptr<worker::ChildWatch> watch;
  asio::steady_timer deadline;
  asio::steady_timer idle_timer;
  asio::steady_timer kill_timer;
  asio::steady_timer hold_timer;               ///< ends a hold_for() hold
  std::chrono::seconds idle{0};
  std::chrono::seconds grace{10};              ///< TERM to KILL when a timeout stops it
  std::string timeout_reason;                  ///< what the task timeout says when it ends the worker
  bool held = false;                           ///< waiting for a person: no timer runs
  bool hold_ends = false;                      ///< held by hold_for(): hold_timer ends it
  std::chrono::steady_clock::duration left{}; ///< the task timeout's rest while held
  worker::OutputLog log;
  std::string partial_line;
  std::array<char, 16384> buf{};
  int pid = -1;
  bool stopped = false;
  std::string stop_reason;
  bool pipe_done = false;
  bool exited = false;
  int status = 0;
  Proc(asio::io_context& ctx, std::string s, const std::filesystem::path& log_path)
      : session(std::move(s)), deadline(ctx), idle_timer(ctx), kill_timer(ctx), hold_timer(ctx), log(log_path) {}
};

WorkerHost::WorkerHost(asio::io_context& ctx, LineHandler on_line, ExitHandler on_exit)
    : m_ctx(ctx), m_on_line(std::move(on_line)), m_on_exit(std::move(on_exit)) {}

WorkerHost::~WorkerHost() {
  for (auto& [s, p] : m_procs) {
    if (p->pid > 0) ::kill(-p->pid, SIGKILL);
    if (p->pid > 0) (void)stop_escaped_processes(s, p->state_dir, p->pid); // the run is over: nobody to tell
    // The exit watch keeps its callback, which holds the Proc that owns the watch: a worker still
    // running when the run ends would keep both alive for good. The timers' and the read's
    // handlers wait in the loop and go with it.
    p->watch.reset();
  }
}

std::expected<int, util::SystemError> WorkerHost::start(const std::string& session, const worker::LaunchSpec& spec,
                                                        const std::filesystem::path& log_path, std::chrono::seconds timeout,
                                                        std::chrono::seconds idle, std::chrono::seconds grace) {
  if (spec.argv.empty()) return std::unexpected(util::SystemError{"empty command", 0});
  for (const auto& f : spec.files)
    if (auto w = util::write_file_atomic_or_errno(f.path, f.content); !w) return std::unexpected(w.error());
  const auto exe = worker::find_program(spec.argv[0]);
  if (exe.empty()) return std::unexpected(util::SystemError{fmt::format("{}: not found on PATH", spec.argv[0]), 0});
  auto p = std::make_shared<Proc>(m_ctx, session, log_path);
  if (auto it = spec.env.find("HARNESS_STATE_DIR"); it != spec.env.end()) p->state_dir = it->second;
  auto pipe = worker::make_child_pipe(m_ctx);
  if (!pipe) return std::unexpected(pipe.error());
  p->out = std::move(*pipe);
  // A process group of its own, so a stop reaches everything the worker started.
  auto pid = worker::spawn_process({exe, spec.argv, spec.env, spec.cwd, p->out->write_end, p->out->write_end, true});
  p->out->close_write_end(); // the child has its copies; EOF comes when it and its children exit
  if (!pid) return std::unexpected(util::SystemError{fmt::format("cannot start {}: {}", spec.argv[0], pid.error().message), pid.error().error_number});
  p->watch = std::make_unique<worker::ChildWatch>(m_ctx.get_executor(), *pid);
  p->pid = *pid;
  p->idle = idle;
  p->grace = grace;
  m_procs[session] = p;
  // The reason follows the failure class in the run's lines ("timed_out: ..."): say what ran out.
  p->timeout_reason = timeout.count() % 60 == 0
                          ? fmt::format("still running after the task timeout ({} min)", timeout.count() / 60)
                          : fmt::format("still running after the task timeout ({} s)", timeout.count());
  arm_deadline(p, timeout);
  arm_timers(p);
  read_more(p);
  p->watch->async_wait([this, p](int status) {
    p->exited = true;
    p->status = status;
    if (p->pipe_done) return finish(p, p->status);
    // The worker is gone but something it started in the background still holds its output open
    // (`server &` in a plan): its group goes now, as finish() would do anyway; a descendant that
    // left the group cannot hold the slot either: the read is given up after two seconds.
    ::kill(-p->pid, SIGKILL);
    p->kill_timer.expires_after(std::chrono::seconds(2));
    p->kill_timer.async_wait([p](boost::system::error_code e) {
      boost::system::error_code ignored;
      if (!e && !p->pipe_done) p->out->read_end.close(ignored);
    });
  });
  return p->pid;
}

void WorkerHost::arm_deadline(const std::shared_ptr<Proc>& p, std::chrono::steady_clock::duration after) {
  p->deadline.expires_after(after);
  p->deadline.async_wait([this, p](boost::system::error_code e) {
    if (!e && !p->exited) stop(p->session, p->timeout_reason, p->grace);
  });
}

void WorkerHost::arm_timers(const std::shared_ptr<Proc>& p) {
  if (p->idle.count() <= 0 || p->held) return;
  p->idle_timer.expires_after(p->idle);
  p->idle_timer.async_wait([this, p](boost::system::error_code e) {
    if (!e && !p->exited) stop(p->session, "idle (no output and no message)", p->grace);
  });
}

void WorkerHost::touch(const std::string& session) {
  if (auto it = m_procs.find(session); it != m_procs.end()) arm_timers(it->second);
}

void WorkerHost::hold(const std::string& session) {
  auto it = m_procs.find(session);
  if (it == m_procs.end() || it->second->exited) return;
  auto& p = it->second;
  if (p->held && !p->hold_ends) return;
  if (p->held) p->hold_timer.cancel(); // a question asked while waiting: held until its answer
  else pause(p);
  p->hold_ends = false;
}

void WorkerHost::hold_for(const std::string& session, std::chrono::steady_clock::duration wait) {
  auto it = m_procs.find(session);
  if (it == m_procs.end() || it->second->exited) return;
  auto p = it->second;
  const auto until = std::chrono::steady_clock::now() + wait;
  // A question's hold has no end of its own: the wait the worker blocks in gives it one (a worker
  // that gives up waiting and then hangs must meet its timeouts again).
  if (p->held && p->hold_ends && p->hold_timer.expiry() >= until) return;
  if (!p->held) pause(p);
  p->hold_ends = true;
  p->hold_timer.expires_at(until);
  p->hold_timer.async_wait([this, p](boost::system::error_code e) {
    // A handler already queued when the hold was extended finds a later expiry and keeps it.
    if (!e && p->held && p->hold_ends && p->hold_timer.expiry() <= std::chrono::steady_clock::now()) resume(p);
  });
}

void WorkerHost::release(const std::string& session) {
  auto it = m_procs.find(session);
  if (it == m_procs.end() || !it->second->held) return;
  resume(it->second);
}

bool WorkerHost::held(const std::string& session) const {
  auto it = m_procs.find(session);
  return it != m_procs.end() && it->second->held && !it->second->exited;
}

void WorkerHost::pause(const std::shared_ptr<Proc>& p) {
  p->held = true;
  p->left = std::max(p->deadline.expiry() - std::chrono::steady_clock::now(), std::chrono::steady_clock::duration::zero());
  p->deadline.cancel();
  p->idle_timer.cancel();
}

void WorkerHost::resume(const std::shared_ptr<Proc>& p) {
  p->held = false;
  p->hold_ends = false;
  p->hold_timer.cancel();
  if (!p->exited) {
    arm_deadline(p, p->left);
    arm_timers(p);
  }
}

void WorkerHost::read_more(const std::shared_ptr<Proc>& p) {
  p->out->read_end.async_read_some(asio::buffer(p->buf), [this, p](boost::system::error_code e, size_t n) {
    if (n > 0) {
      std::string_view chunk(p->buf.data(), n);
      p->log.append(chunk);
      arm_timers(p);
      // Only the new bytes are searched: what was held holds no newline, and a long line that
      // arrives in many chunks must not be scanned again for each (that was quadratic).
      size_t start = 0, nl = p->partial_line.size();
      p->partial_line.append(chunk);
      while ((nl = p->partial_line.find('\n', nl)) != std::string::npos) {
        m_on_line(p->session, std::string_view(p->partial_line).substr(start, nl - start));
        start = ++nl;
      }
      p->partial_line.erase(0, start);
      // A line without end (a minified bundle cat'ed, binary output) is held by its tail only: the
      // whole output is in the log, and a line this long is no event any reader could use.
      if (p->partial_line.size() > max_held_line) p->partial_line.erase(0, p->partial_line.size() - held_line_tail);
    }
    if (e) {
      if (!p->partial_line.empty()) m_on_line(p->session, p->partial_line);
      p->pipe_done = true;
      if (p->exited) finish(p, p->status);
      return;
    }
    read_more(p);
  });
}

void WorkerHost::finish(const std::shared_ptr<Proc>& p, int status) {
  if (!m_procs.count(p->session)) return;
  p->deadline.cancel();
  p->idle_timer.cancel();
  p->kill_timer.cancel();
  p->hold_timer.cancel();
  // Whatever the worker left running in its group goes with it, and what left the group too.
  ::kill(-p->pid, SIGKILL);
  WorkerExit x;
  x.escaped = stop_escaped_processes(p->session, p->state_dir, p->pid);
  if (WIFEXITED(status)) x.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) x.signal = WTERMSIG(status);
  x.stopped = p->stopped;
  x.stop_reason = p->stop_reason;
  x.output_tail = p->log.tail(20);
  x.log_error = p->log.write_error();
  m_procs.erase(p->session);
  m_on_exit(p->session, x);
}

void WorkerHost::stop(const std::string& session, const std::string& reason, std::chrono::seconds grace) {
  auto it = m_procs.find(session);
  if (it == m_procs.end()) return;
  auto p = it->second;
  if (p->stopped) return;
  p->stopped = true;
  p->stop_reason = reason;
  ::kill(-p->pid, SIGTERM);
  p->kill_timer.expires_after(grace);
  p->kill_timer.async_wait([p](boost::system::error_code e) {
    if (!e && !p->exited) ::kill(-p->pid, SIGKILL);
  });
}

void WorkerHost::stop_all(const std::string& reason, std::chrono::seconds grace) {
  std::vector<std::string> sessions;
  for (const auto& [s, p] : m_procs) sessions.push_back(s);
  for (const auto& s : sessions) stop(s, reason, grace);
}

std::string WorkerHost::tail(const std::string& session, size_t lines) const {
  auto it = m_procs.find(session);
  return it == m_procs.end() ? std::string() : it->second->log.tail(lines);
}

std::vector<std::string> stop_escaped_processes(const std::string& session, const std::string& state_dir, int pgid) {
  std::vector<std::string> out;
  std::optional<worker::EnvPath> scope;
  if (!state_dir.empty()) scope = worker::EnvPath{"HARNESS_STATE_DIR", state_dir};
  for (const auto& m : worker::processes_with_env("HARNESS_SESSION_ID", {session}, scope)) {
    // The group's own processes are being killed with it; this process is never the worker's.
    if (m.pgid == pgid || m.pid == ::getpid()) continue;
    std::string command = worker::process_command(m.pid);
    // By pid, not by group: a descendant may have joined any group of this session, this
    // process's own included.
    if (::kill(m.pid, SIGKILL) == 0) out.push_back(command.empty() ? fmt::format("pid {}", m.pid) : std::move(command));
  }
  return out;
}

unsigned long long process_start_ticks(int pid) {
  const auto s = util::read_proc_stat(pid);
  return s ? s->start_ticks : 0;
}

bool worker_group_alive(int pid, unsigned long long start_ticks) {
  // Another process has the pid now: the worker's group is gone (a pid is not given out again
  // while a group of that id has members).
  if (const auto s = util::read_proc_stat(pid); s && start_ticks != 0 && s->start_ticks != start_ticks) return false;
  // Not the leader's entry: a worker that exited after its run was killed stays a zombie until
  // init reaps it, and some containers' init never does; what it started may outlive it.
  return worker::group_has_live_process(pid);
}

void kill_process_groups(const std::vector<int>& pgids, std::chrono::milliseconds grace) {
  std::vector<int> alive;
  for (int g : pgids)
    if (g > 0 && ::kill(-g, SIGTERM) == 0) alive.push_back(g);
  // One grace period for all: stopping eight workers must not take eight.
  const auto until = std::chrono::steady_clock::now() + grace;
  while (!alive.empty() && std::chrono::steady_clock::now() < until) {
    std::erase_if(alive, [](int g) { return !worker::group_has_live_process(g); });
    if (!alive.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (int g : alive) ::kill(-g, SIGKILL);
}

} // namespace harness::orchestrator
