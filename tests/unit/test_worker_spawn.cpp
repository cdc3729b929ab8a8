// spawn_process: posix_spawn with a process group, environment, working directory and
// descriptors set by libc, safe to call from many threads at once.
#include "harness/worker/run_command.hpp"
#include "harness/worker/spawn.hpp"
#include "harness/util/atomic_file.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <atomic>
#include <csignal>
#include <fcntl.h>
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
  CHECK(pid.error().find("No such file") != std::string::npos);
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
  // thread held the allocator's lock spun forever. posix_spawn runs nothing of ours there.
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
