// run_command's cancel flag: another thread stops a command as a timeout would, group and all,
// long before the command's own end (the orchestrator's second Ctrl-C during a verification).
#include "harness/worker/run_command.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <csignal>
#include <fstream>
#include <string>
#include <thread>

using namespace harness;
namespace fs = std::filesystem;

TEST_CASE("a command is stopped, its group with it, when its cancel flag is set", "[worker][run_command]") {
  test::TempDir dir;
  const fs::path pidfile = dir.path / "grandchild.pid";
  std::atomic<bool> cancel{false};
  worker::CommandRequest req;
  req.argv = {"sh", "-c", "sleep 60 & echo $! > '" + pidfile.string() + "'; wait"};
  req.cwd = dir.path;
  req.timeout = std::chrono::seconds(60);
  req.grace = std::chrono::milliseconds(200);
  req.cancel = &cancel;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel = true;
  });
  auto r = worker::run_command(req);
  stopper.join();
  CHECK(r.cancelled);
  CHECK_FALSE(r.timed_out);
  CHECK_FALSE(r.ok());
  CHECK(r.seconds < 20); // guard: the command alone lasts 60 s
  int grandchild = 0;
  std::ifstream(pidfile) >> grandchild;
  REQUIRE(grandchild > 0);
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = !test::process_running(grandchild);
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK(gone);
}

TEST_CASE("a cancel flag that stays clear changes nothing", "[worker][run_command]") {
  std::atomic<bool> cancel{false};
  worker::CommandRequest req;
  req.argv = {"sh", "-c", "sleep 0.2; echo done"};
  req.cancel = &cancel;
  auto r = worker::run_command(req);
  CHECK(r.ok());
  CHECK_FALSE(r.cancelled);
  CHECK(r.output == "done\n");
}
