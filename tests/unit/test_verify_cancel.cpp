// VerifyOptions::cancel: a run that stops now stops its verification's commands, and the checks
// after it do not start.
#include "harness/verify/engine.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

using namespace harness;

namespace {
spec::Check command(std::string id, std::vector<std::string> argv) {
  spec::Check c;
  c.id = std::move(id);
  c.type = spec::CheckType::command_output;
  c.command.argv = std::move(argv);
  return c;
}
} // namespace

TEST_CASE("a cancelled verification stops the running command and starts no other check", "[verify][cancel]") {
  test::TempDir dir;
  std::atomic<bool> cancel{false};
  verify::VerifyOptions opt;
  opt.cancel = &cancel;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel = true;
  });
  const auto slow = verify::run_check(command("slow", {"sleep", "60"}), dir.path, opt);
  stopper.join();
  CHECK(slow.status == verify::CheckStatus::error);
  CHECK(slow.message == "cancelled: the run is stopping");
  CHECK(slow.seconds < 20); // guard: the command alone lasts 60 s
  const auto next = verify::run_check(command("next", {"touch", "ran"}), dir.path, opt);
  CHECK(next.status == verify::CheckStatus::error);
  CHECK_FALSE(std::filesystem::exists(dir.path / "ran"));
}
