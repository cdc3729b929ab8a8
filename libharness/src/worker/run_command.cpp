#include "harness/worker/run_command.hpp"

#include "harness/worker/child_watch.hpp"

#include "harness/worker/child_pipe.hpp"
#include "harness/worker/spawn.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/process/v2/environment.hpp>
#include <boost/process/v2/process.hpp>
#include <fmt/format.h>

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

namespace harness::worker {
namespace asio = boost::asio;
namespace bp = boost::process::v2;

namespace {

/// Keeps the first and the last half of `cap` bytes.
void append_capped(std::string& out, std::string_view chunk, size_t cap, std::string& tail, bool& truncated) {
  if (out.size() < cap / 2) {
    const size_t take = std::min(chunk.size(), cap / 2 - out.size());
    out.append(chunk.substr(0, take));
    chunk.remove_prefix(take);
  }
  if (chunk.empty()) return;
  truncated = true;
  tail.append(chunk);
  if (tail.size() > cap / 2) tail.erase(0, tail.size() - cap / 2);
}

} // namespace

CommandResult run_command(const CommandRequest& req) {
  CommandResult r;
  const auto t0 = std::chrono::steady_clock::now();
  if (req.argv.empty()) {
    r.error = "empty command";
    return r;
  }
  const auto exe = find_program(req.argv[0]);
  if (exe.empty()) {
    r.error = fmt::format("{}: not found on PATH", req.argv[0]);
    return r;
  }
  asio::io_context ctx;
  auto pipe = make_child_pipe(ctx);
  if (!pipe) {
    r.error = pipe.error().message;
    return r;
  }
  SpawnRequest spawn{exe, req.argv, req.env, req.cwd, (*pipe)->write_end, (*pipe)->write_end, true};
  auto pid = spawn_process(spawn);
  (*pipe)->close_write_end();
  if (!pid) {
    r.error = fmt::format("cannot start {}: {}", req.argv[0], pid.error().message);
    return r;
  }
  ChildWatch child(ctx.get_executor(), *pid);
  r.started = true;
  const int pgid = *pid;
  std::string tail;
  std::array<char, 8192> buf{};
  asio::steady_timer deadline(ctx), kill_timer(ctx), cancel_poll(ctx);
  bool pipe_done = false, exited = false, stopping = false;
  int status = 0;
  auto stop_group = [&] {
    if (stopping) return;
    stopping = true;
    ::kill(-pgid, SIGTERM);
    kill_timer.expires_after(req.grace);
    kill_timer.async_wait([&](boost::system::error_code e2) {
      if (!e2) ::kill(-pgid, SIGKILL);
    });
  };
  deadline.expires_after(req.timeout);
  deadline.async_wait([&](boost::system::error_code e) {
    if (e || exited) return;
    r.timed_out = true;
    stop_group();
  });
  std::function<void()> poll_cancel = [&] {
    cancel_poll.expires_after(std::chrono::milliseconds(50));
    cancel_poll.async_wait([&](boost::system::error_code e) {
      if (e || exited) return;
      if (!req.cancel->load()) return poll_cancel();
      r.cancelled = true;
      stop_group();
    });
  };
  if (req.cancel) poll_cancel();
  std::function<void()> read = [&] {
    (*pipe)->read_end.async_read_some(asio::buffer(buf), [&](boost::system::error_code e, size_t n) {
      append_capped(r.output, std::string_view(buf.data(), n), req.max_output, tail, r.truncated);
      if (e) {
        pipe_done = true;
        if (exited) ctx.stop();
        return;
      }
      read();
    });
  };
  read();
  child.async_wait([&](int st) {
    exited = true;
    status = st;
    // Children that keep the pipe open would hold us forever: the group goes with its leader.
    ::kill(-pgid, SIGKILL);
    deadline.cancel();
    cancel_poll.cancel();
    kill_timer.cancel();
    if (pipe_done) return ctx.stop();
    // One that left the group (setsid, a detached child) may still hold it: its output stops
    // mattering two seconds after the command ended.
    kill_timer.expires_after(std::chrono::seconds(2));
    kill_timer.async_wait([&](boost::system::error_code e) {
      if (!e && !pipe_done) ctx.stop();
    });
  });
  ctx.run();
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  if (r.truncated) r.output += "\n[... output truncated ...]\n" + tail;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

} // namespace harness::worker
