// spawn_process: fork and exec with a process group, environment, working directory,
// descriptors and open-file limit set in between, safe to call from many threads at once.
#include "harness/worker/run_command.hpp"
#include "harness/worker/spawn.hpp"
#include "harness/util/atomic_file.hpp"
#include "harness/util/open_file_limit.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace harness;

namespace {

int wait_exit(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

} // namespace

TEST_CASE("A spawned child gets its own group, the given environment, directory and output", "[worker][spawn]") {
  test::TempDir dir;
  const auto out = dir.path / "out.txt";
  const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  REQUIRE(fd >= 0);
  worker::SpawnRequest req;
  req.exe = worker::find_program("sh");
  req.argv = {"sh", "-c", "echo \"$ONLY|$HOME|$(pwd)|$(ps -o pgid= -p $$ | tr -d ' ')|$$\"; cat; echo err >&2"};
  req.env = std::map<std::string, std::string>{{"ONLY", "yes"}, {"PATH", "/usr/bin:/bin"}};
  req.cwd = dir.path;
  req.stdout_fd = fd;
  req.stderr_fd = fd;
  auto pid = worker::spawn_process(req);
  ::close(fd);
  REQUIRE(pid);
  CHECK(wait_exit(*pid) == 0); // `cat` read /dev/null, not our stdin
  const auto text = util::read_file(out).value();
  CHECK(text == fmt::format("yes||{}|{}|{}\nerr\n", std::filesystem::canonical(dir.path).string(), *pid, *pid));
}

TEST_CASE("A program that cannot be executed is an error, not a child", "[worker][spawn]") {
  auto pid = worker::spawn_process({"/nonexistent/program", {"program"}, std::nullopt, {}, -1, -1, true});
  REQUIRE_FALSE(pid.has_value());
  CHECK(pid.error().message.find("No such file") != std::string::npos);
  CHECK(pid.error().error_number == ENOENT);
  CHECK(worker::find_program("definitely-not-a-program-here").empty());
  CHECK(worker::find_program("sh").filename() == "sh");
}

TEST_CASE("A signal this process ignores is at its default in the child", "[worker][spawn]") {
  auto old = std::signal(SIGTERM, SIG_IGN);
  auto pid = worker::spawn_process({worker::find_program("sleep"), {"sleep", "30"}, std::nullopt, {}, -1, -1, true});
  std::signal(SIGTERM, old);
  REQUIRE(pid);
  ::kill(*pid, SIGTERM);
  CHECK(wait_exit(*pid) == 128 + SIGTERM);
}

TEST_CASE("Many threads start processes while others allocate, and none hangs", "[worker][spawn]") {
  // Boost.Process's fork launchers allocate in the child; under ASan a child forked while another
  // thread held the allocator's lock spun forever. spawn_process's child makes system calls only.
  std::atomic<bool> stop{false};
  std::vector<std::thread> allocators;
  for (int i = 0; i < 2; ++i)
    allocators.emplace_back([&] {
      while (!stop) {
        std::vector<std::string> junk(64, std::string(200, 'x'));
      }
    });
  std::atomic<int> ok{0};
  std::vector<std::thread> spawners;
  for (int t = 0; t < 4; ++t)
    spawners.emplace_back([&] {
      for (int i = 0; i < 25; ++i) {
        worker::CommandRequest req;
        req.argv = {"true"};
        req.timeout = std::chrono::seconds(30);
        if (worker::run_command(req).exit_code == 0) ++ok;
      }
    });
  for (auto& t : spawners) t.join();
  stop = true;
  for (auto& t : allocators) t.join();
  CHECK(ok == 100);
}

TEST_CASE("A child gets back the open-file limit this process started with, not the raised one", "[worker][spawn]") {
  rlimit saved{};
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &saved) == 0);
  if (saved.rlim_max != RLIM_INFINITY && saved.rlim_max <= 512) return; // cannot be raised here
  rlimit low = saved;
  low.rlim_cur = 512;
  REQUIRE(::setrlimit(RLIMIT_NOFILE, &low) == 0);
  util::raise_open_file_limit();
  const auto ours = util::open_file_limit();
  const auto theirs = util::child_open_file_limit();
  test::TempDir dir;
  const auto out = dir.path / "limit.txt";
  const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  auto pid = worker::spawn_process({worker::find_program("sh"), {"sh", "-c", "ulimit -Sn"}, std::nullopt, {}, fd, -1, true});
  ::close(fd);
  const int code = pid ? wait_exit(*pid) : -1;
  util::set_child_open_file_limit(std::nullopt); // as it was: this binary never raised its own
  ::setrlimit(RLIMIT_NOFILE, &saved);
  CHECK(ours > 512u);
  CHECK(theirs == 512u);
  CHECK(code == 0);
  CHECK(util::read_file(out).value_or("") == "512\n");
}

TEST_CASE("A working directory that does not exist is an error, not a child", "[worker][spawn]") {
  auto pid = worker::spawn_process({worker::find_program("true"), {"true"}, std::nullopt, "/nonexistent/dir", -1, -1, true});
  REQUIRE_FALSE(pid.has_value());
  CHECK(pid.error().message == std::strerror(ENOENT));
}

TEST_CASE("A process started with stdin and stdout closed still hears why its child could not start", "[worker][spawn]") {
  // The child reports through a pipe; made with 0 and 1 free, its ends would be 0 and 1, and the
  // child's dup2 onto its stdout would replace the end it reports on.
  test::TempDir dir;
  const int out = ::open((dir.path / "out.txt").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  const int saved_in = ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 10), saved_out = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 10);
  ::close(STDIN_FILENO);
  ::close(STDOUT_FILENO);
  auto pid = worker::spawn_process({worker::find_program("true"), {"true"}, std::nullopt, "/nonexistent/dir", out, -1, true});
  ::dup2(saved_in, STDIN_FILENO);
  ::dup2(saved_out, STDOUT_FILENO);
  ::close(saved_in);
  ::close(saved_out);
  ::close(out);
  REQUIRE_FALSE(pid.has_value());
  CHECK(pid.error().message == std::strerror(ENOENT));
}
