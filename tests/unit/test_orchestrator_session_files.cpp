// Worker records (worker.json): a run's start reads the ones an earlier run left, found through
// their index, not by opening every session directory the project ever had.
#include "../../libharness/src/orchestrator/session_files.hpp"
#include "harness/util/atomic_file.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

using namespace harness;
namespace fs = std::filesystem;

namespace {

orchestrator::WorkerRecord ended_worker(std::string session) {
  // This process with a start time it does not have: a worker that is gone.
  return {static_cast<int>(::getpid()), 1, "execute:01-01", std::move(session), "SPC-001-x"};
}

std::vector<std::string> sessions_of(const std::vector<orchestrator::StaleWorker>& workers) {
  std::vector<std::string> out;
  for (const auto& w : workers) out.push_back(fs::path(w.record).parent_path().filename().string());
  return out;
}

} // namespace

TEST_CASE("a run's start reads the worker records of the run before it, not every session directory", "[orchestrator][session_files]") {
  test::TempDir dir;
  const auto state = dir.path / ".orchestration";
  fs::create_directories(state / "sessions/execute-01-01-a1-aaa");
  orchestrator::write_worker_record(state / "sessions/execute-01-01-a1-aaa", ended_worker("execute-01-01-a1-aaa"));
  CHECK(fs::exists(state / "index/worker_records/execute-01-01-a1-aaa"));
  for (int i = 0; i < 2000; ++i) fs::create_directory(state / "sessions" / ("execute-99-" + std::to_string(i)));
  // Not looked at, where a walk of them all would have found it.
  dir.write(".orchestration/sessions/execute-01-02-a1-old/worker.json",
            R"({"pid":1,"start_ticks":1,"task":"execute:01-02","session":"execute-01-02-a1-old"})");
  auto stale = orchestrator::stale_workers(state);
  CHECK(sessions_of(stale) == std::vector<std::string>{"execute-01-01-a1-aaa"});
  REQUIRE(stale.size() == 1);
  CHECK(stale[0].pid == 0);
  // Retired: worker.ended.json, and out of the index.
  orchestrator::stop_stale_workers(stale);
  CHECK(fs::exists(state / "sessions/execute-01-01-a1-aaa/worker.ended.json"));
  CHECK_FALSE(fs::exists(state / "index/worker_records/execute-01-01-a1-aaa"));
  CHECK(orchestrator::stale_workers(state).empty());
}

TEST_CASE("the worker records of a project an older harness wrote are found by one walk", "[orchestrator][session_files]") {
  test::TempDir dir;
  const auto state = dir.path / ".orchestration";
  dir.write(".orchestration/sessions/execute-01-02-a1-old/worker.json",
            R"({"pid":1,"start_ticks":1,"task":"execute:01-02","session":"execute-01-02-a1-old"})");
  dir.write(".orchestration/sessions/execute-01-01-a1-older/worker.ended.json", R"({"pid":1,"start_ticks":1})");
  CHECK(sessions_of(orchestrator::stale_workers(state)) == std::vector<std::string>{"execute-01-02-a1-old"});
  CHECK(fs::exists(state / "index/worker_records/execute-01-02-a1-old"));
  CHECK_FALSE(fs::exists(state / "index/worker_records/execute-01-01-a1-older"));
}
