// WorkerHost with real processes: a worker's end is its exit, even when something it started in
// the background still holds its output open, and a timeout stops the whole process group.
#include "harness/orchestrator/worker_host.hpp"
#include "harness/worker/proc_scan.hpp"
#include "harness/worker/spawn.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <csignal>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <fstream>
#include <functional>
#include <optional>

using namespace harness;
namespace fs = std::filesystem;

namespace {

struct Run {
  boost::asio::io_context ctx;
  std::vector<std::string> lines;
  std::optional<orchestrator::WorkerExit> exit;
  orchestrator::WorkerHost host{ctx, [this](const std::string&, std::string_view l) { lines.emplace_back(l); },
                                [this](const std::string&, const orchestrator::WorkerExit& x) { exit = x; }};

  /// Runs `script` with sh; returns the seconds until the host reported the exit (guard: 20 s).
  /// `started` runs once the process is up (to hold its timers, say).
  double run(const std::string& script, std::chrono::seconds timeout, const fs::path& dir,
             std::chrono::seconds idle = std::chrono::seconds(0), const std::function<void()>& started = {},
             std::chrono::seconds grace = std::chrono::seconds(10)) {
    worker::LaunchSpec spec;
    spec.argv = {"sh", "-c", script};
    // As the orchestrator's workers have it: every test calls its worker s1, and the test
    // directory stands for the project, so tests running at once do not stop each other's.
    spec.env = {{"PATH", "/usr/bin:/bin"}, {"HARNESS_SESSION_ID", "s1"}, {"HARNESS_STATE_DIR", dir.string()}};
    spec.cwd = dir;
    const auto t0 = std::chrono::steady_clock::now();
    REQUIRE(host.start("s1", spec, dir / "out.log", timeout, idle, grace).has_value());
    if (started) started();
    boost::asio::steady_timer guard(ctx, std::chrono::seconds(20));
    guard.async_wait([this](boost::system::error_code e) {
      if (!e) ctx.stop();
    });
    while (!exit && !ctx.stopped()) ctx.run_one();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
};

int read_pid(const fs::path& f) {
  int pid = -1;
  std::ifstream(f) >> pid;
  return pid;
}

} // namespace

TEST_CASE("A worker that exits ends its task although its background child holds the output open", "[orchestrator][worker_host]") {
  test::TempDir dir;
  Run r;
  const double seconds = r.run("sleep 60 & echo $! > bg.pid; echo started; exit 0", std::chrono::seconds(120), dir.path);
  REQUIRE(r.exit.has_value());
  CHECK(r.exit->exit_code == 0);
  CHECK_FALSE(r.exit->stopped);
  CHECK(r.lines == std::vector<std::string>{"started"});
  CHECK(seconds < 15); // generous guard: without the fix this waited for the 60 s sleep
  const int bg = read_pid(dir.path / "bg.pid");
  for (int i = 0; i < 100 && test::process_running(bg); ++i) ::usleep(20'000); // the SIGKILL may still be in flight
  CHECK_FALSE(test::process_running(bg));
}

TEST_CASE("What a worker started in a session of its own is stopped when the worker ends, and named", "[orchestrator][worker_host]") {
  test::TempDir dir;
  Run r;
  // The worker waits until the daemon has its own session (field 6 of its stat), so that it did
  // escape the group before the group is stopped.
  r.run("setsid sleep 1001 >/dev/null 2>&1 </dev/null & p=$!; echo $p > esc.pid; "
        "while [ \"$(cut -d' ' -f6 /proc/$p/stat)\" != \"$p\" ]; do sleep 0.02; done; echo started",
        std::chrono::seconds(120), dir.path);
  REQUIRE(r.exit.has_value());
  CHECK(r.exit->exit_code == 0);
  const int escaped = read_pid(dir.path / "esc.pid");
  REQUIRE(escaped > 0);
  for (int i = 0; i < 100 && test::process_running(escaped); ++i) ::usleep(20'000); // the SIGKILL may still be in flight
  const bool outlived = test::process_running(escaped);
  if (outlived) ::kill(escaped, SIGKILL); // not left behind by a failing test either
  CHECK_FALSE(outlived);
  // "setsid sleep 1001" when it was stopped between its setsid() and its exec of sleep.
  REQUIRE(r.exit->escaped.size() == 1);
  CHECK(r.exit->escaped.front().ends_with("sleep 1001"));
}

TEST_CASE("A process of another project's session with the same id is not stopped as escaped", "[orchestrator][worker_host]") {
  // Session ids are unique within a project only: two runs (or two test binaries) on one machine
  // may both have an "s1". Before the scope, each one's end killed the other's processes.
  test::TempDir dir, other;
  auto env = worker::current_environment();
  env["HARNESS_SESSION_ID"] = "s1";
  env["HARNESS_STATE_DIR"] = other.path.string();
  auto stranger = worker::spawn_process({"/bin/sleep", {"sleep", "1002"}, env, {}, -1, -1, true});
  REQUIRE(stranger);
  // Until it has exec'd, /proc shows this process's environment: wait for the sleep.
  for (int i = 0; i < 500 && worker::process_command(*stranger) != "sleep 1002"; ++i) ::usleep(10'000);
  Run r;
  r.run("echo done", std::chrono::seconds(120), dir.path);
  REQUIRE(r.exit.has_value());
  CHECK(r.exit->escaped.empty());
  CHECK(test::process_running(*stranger));
  ::kill(*stranger, SIGKILL);
  int status = 0;
  ::waitpid(*stranger, &status, 0);
}

TEST_CASE("A worker past its timeout is stopped with its whole process group", "[orchestrator][worker_host]") {
  test::TempDir dir;
  Run r;
  r.run("sleep 60 & echo $! > bg.pid; sleep 60", std::chrono::seconds(1), dir.path);
  REQUIRE(r.exit.has_value());
  CHECK(r.exit->stopped);
  CHECK(r.exit->stop_reason == "still running after the task timeout (1 s)"); // not "timed_out: timed out"
  const int bg = read_pid(dir.path / "bg.pid");
  for (int i = 0; i < 100 && test::process_running(bg); ++i) ::usleep(20'000);
  CHECK_FALSE(test::process_running(bg));
}

TEST_CASE("A worker that ignores TERM is killed after the grace it was started with, on either timeout", "[orchestrator][worker_host]") {
  // timeouts.stop_grace: the fixed 10 s these stops had would take 11 s here. Timings are
  // generous guards only.
  for (const bool idle : {false, true}) {
    test::TempDir dir;
    Run r;
    const double seconds = r.run("trap '' TERM; sleep 60", idle ? std::chrono::seconds(60) : std::chrono::seconds(1), dir.path,
                                 idle ? std::chrono::seconds(1) : std::chrono::seconds(0), {}, std::chrono::seconds(1));
    REQUIRE(r.exit.has_value());
    CHECK(r.exit->stopped);
    CHECK(r.exit->signal == SIGKILL);
    CHECK(seconds < 8);
  }
}

TEST_CASE("A worker held for a person's answer is stopped by neither timeout; released, its task timeout goes on", "[orchestrator][worker_host]") {
  test::TempDir dir;
  {
    Run r; // held for its whole life: outlives a 1 s task timeout and a 1 s idle timeout
    r.run("sleep 3; echo answered", std::chrono::seconds(1), dir.path, std::chrono::seconds(1), [&r] { r.host.hold("s1"); });
    REQUIRE(r.exit.has_value());
    CHECK_FALSE(r.exit->stopped);
    CHECK(r.exit->exit_code == 0);
  }
  {
    Run r; // held for 2 s of a 2 s task timeout, then released: stopped about 2 s later, not at 2 s
    boost::asio::steady_timer answer(r.ctx);
    const double seconds = r.run("sleep 30", std::chrono::seconds(2), dir.path, std::chrono::seconds(0), [&] {
      r.host.hold("s1");
      answer.expires_after(std::chrono::seconds(2));
      answer.async_wait([&r](boost::system::error_code e) {
        if (!e) r.host.release("s1");
      });
    });
    REQUIRE(r.exit.has_value());
    CHECK(r.exit->stopped);
    CHECK(r.exit->stop_reason == "still running after the task timeout (2 s)");
    CHECK(seconds > 3.5); // the held time did not count
    CHECK(seconds < 15);  // generous guard: the timeout ran again after the release
  }
}

TEST_CASE("A hold for a while ends by itself, and gives a question's hold the end of the wait it is in", "[orchestrator][worker_host]") {
  test::TempDir dir;
  {
    Run r; // held for 2 s with a 1 s idle timeout: stopped as idle about 1 s after the hold ended
    const double seconds = r.run("sleep 30", std::chrono::seconds(60), dir.path, std::chrono::seconds(1),
                                 [&r] { r.host.hold_for("s1", std::chrono::seconds(2)); });
    REQUIRE(r.exit.has_value());
    CHECK(r.exit->stopped);
    CHECK(r.exit->stop_reason == "idle (no output and no message)");
    CHECK(seconds > 2.5); // the held time did not count
    CHECK(seconds < 15);  // generous guard: the hold ended without a release
  }
  {
    Run r; // extended: the later end counts, not the earlier
    const double seconds = r.run("sleep 30", std::chrono::seconds(60), dir.path, std::chrono::seconds(1), [&r] {
      r.host.hold_for("s1", std::chrono::seconds(2));
      r.host.hold_for("s1", std::chrono::seconds(1));
    });
    REQUIRE(r.exit.has_value());
    CHECK(r.exit->stop_reason == "idle (no output and no message)");
    CHECK(seconds > 2.5);
  }
  {
    Run r; // a question asked during a timed hold is held until its answer
    r.run("sleep 3; echo answered", std::chrono::seconds(1), dir.path, std::chrono::seconds(1), [&r] {
      r.host.hold_for("s1", std::chrono::milliseconds(500));
      r.host.hold("s1");
    });
    REQUIRE(r.exit.has_value());
    CHECK_FALSE(r.exit->stopped);
    CHECK(r.exit->exit_code == 0);
  }
  {
    Run r; // the wait the asker then blocks in ends the question's hold: a worker hung after it is idle
    const double seconds = r.run("sleep 30", std::chrono::seconds(60), dir.path, std::chrono::seconds(1), [&r] {
      r.host.hold("s1");
      r.host.hold_for("s1", std::chrono::milliseconds(500));
    });
    REQUIRE(r.exit.has_value());
    CHECK(r.exit->stop_reason == "idle (no output and no message)");
    CHECK(seconds > 1.4);
    CHECK(seconds < 15); // generous guard: without the end it would run its 30 s
  }
}

TEST_CASE("A host destroyed while its worker runs kills the worker and frees what watched it", "[orchestrator][worker_host]") {
  // The run can end with a worker still alive (a refused question it never read): nothing of the
  // worker may outlive the host (LeakSanitizer fails this binary if it does).
  test::TempDir dir;
  boost::asio::io_context ctx;
  int pid = -1;
  {
    orchestrator::WorkerHost host{ctx, [](const std::string&, std::string_view) {}, [](const std::string&, const orchestrator::WorkerExit&) {}};
    worker::LaunchSpec spec;
    spec.argv = {"sh", "-c", "sleep 30"};
    spec.env = {{"PATH", "/usr/bin:/bin"}};
    spec.cwd = dir.path;
    auto started = host.start("s1", spec, dir.path / "out.log", std::chrono::seconds(60), std::chrono::seconds(60));
    REQUIRE(started.has_value());
    pid = *started;
    host.hold("s1");
    ctx.run_for(std::chrono::milliseconds(100));
  } // the loop does not run past its host: the orchestrator's never does
  for (int i = 0; i < 100 && test::process_running(pid); ++i) ::usleep(20'000);
  CHECK_FALSE(test::process_running(pid));
}

TEST_CASE("kill_process_groups stops a group and does not wait out its grace for an unreaped zombie", "[orchestrator][worker_host]") {
  auto pid = worker::spawn_process({"/bin/sh", {"sh", "-c", "sleep 30 & wait"}, std::nullopt, {}, -1, -1, true});
  REQUIRE(pid);
  const auto t0 = std::chrono::steady_clock::now();
  orchestrator::kill_process_groups({*pid}, std::chrono::seconds(20));
  const auto took = std::chrono::steady_clock::now() - t0;
  // The shell stays a zombie (this test is its parent and has not reaped it): the group has
  // ended all the same. A generous guard, far below the 20 s grace.
  CHECK(took < std::chrono::seconds(10));
  CHECK_FALSE(worker::group_has_live_process(*pid));
  int status = 0;
  ::waitpid(*pid, &status, 0);
}

TEST_CASE("A line without end is held by its tail only; the lines after it come whole", "[orchestrator][worker_host]") {
  test::TempDir dir;
  Run r;
  // 40 MB in one line (more than max_held_line), its last bytes marked, then a short line.
  r.run("head -c 40000000 /dev/zero | tr '\\0' x; printf 'END\\nok\\n'", std::chrono::seconds(60), dir.path);
  REQUIRE(r.exit);
  REQUIRE(r.lines.size() == 2);
  CHECK(r.lines[0].size() <= orchestrator::max_held_line); // a tail, not 40 MB
  CHECK(r.lines[0].size() >= orchestrator::held_line_tail);
  CHECK_THAT(r.lines[0], Catch::EndsWith("xxxEND"));
  CHECK(r.lines[1] == "ok");
  CHECK(fs::file_size(dir.path / "out.log") == 40000007); // the log keeps every byte
}

TEST_CASE("A worker that cannot start for want of descriptors says so with EMFILE, not only in words", "[orchestrator][worker_host][descriptors]") {
  // The run holds the slot a while before the retry when the errno says the machine ran out
  // (out_of_resources); it used to read strerror's words at the end of the message.
  test::TempDir dir;
  Run r;
  // A sanitizer build checks an object's type with a pipe the first time it sees the type, and
  // reports a false error when that pipe cannot be made: one worker runs first.
  r.run("exit 0", std::chrono::seconds(60), dir.path);
  REQUIRE(r.exit.has_value());
  worker::LaunchSpec spec;
  spec.argv = {"sh", "-c", "exit 0"};
  spec.env = {{"PATH", "/usr/bin:/bin"}};
  spec.cwd = dir.path;
  rlimit saved{};
  ::getrlimit(RLIMIT_NOFILE, &saved);
  rlimit low = saved;
  low.rlim_cur = std::min<rlim_t>(saved.rlim_cur, 256);
  ::setrlimit(RLIMIT_NOFILE, &low);
  std::vector<int> held;
  for (int fd; (fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) held.push_back(fd);
  auto started = r.host.start("s2", spec, dir.path / "out.log", std::chrono::seconds(60), std::chrono::seconds(60));
  for (int fd : held) ::close(fd);
  ::setrlimit(RLIMIT_NOFILE, &saved);
  REQUIRE_FALSE(started.has_value());
  CHECK(started.error().error_number == EMFILE);
  CHECK(started.error().message.ends_with("Too many open files"));
}
