// The index of open checkpoints: status and a run's start read what is open, not every session
// directory a project ever had; a project an older harness wrote is walked once.
#include "harness/store/checkpoint_files.hpp"
#include "harness/store/session_index.hpp"
#include "harness/util/atomic_file.hpp"
#include "test_store_support.hpp"

using namespace harness;
using namespace harness::store;
using store_test::TempDir;
namespace fs = std::filesystem;

namespace {

CheckpointRecord open_record(std::string id, std::string run = "aaa") {
  CheckpointRecord r;
  r.id = std::move(id);
  r.task = "verify-plan:01-01";
  r.spec = "SPC-001-x";
  r.question = "ok?";
  r.run = std::move(run);
  r.opened_at = "2026-01-01T00:00:00Z";
  return r;
}

/// An open checkpoint as a harness without the index wrote it: its file, no entry.
void write_unindexed(const fs::path& state, const std::string& id) {
  REQUIRE(util::write_file_atomic(state / "sessions" / id / "checkpoint.json",
                                  R"({"id":")" + id + R"(","task":"verify-plan:02-01","spec":"SPC-001-x","question":"and?",)"
                                                      R"("run":"old","asker":"orchestrator"})"));
}

std::vector<std::string> ids(const std::vector<CheckpointRecord>& records) {
  std::vector<std::string> out;
  for (const auto& r : records) out.push_back(r.id);
  return out;
}

} // namespace

TEST_CASE("open checkpoints are read from their index, not from every session directory", "[store][session_index]") {
  TempDir dir;
  const auto state = dir.path / ".orchestration";
  fs::create_directories(state / "sessions");
  REQUIRE(write_open_checkpoint(state, open_record("cp-a")));
  REQUIRE(write_open_checkpoint(state, open_record("cp-b")));
  CHECK(fs::exists(state / "index/open_checkpoints/cp-a"));
  // An old project's history: 2,000 ended sessions, none of them asking anything.
  for (int i = 0; i < 2000; ++i) fs::create_directory(state / "sessions" / ("execute-99-" + std::to_string(i)));
  // Not looked at, where a walk of them all would have found it.
  write_unindexed(state, "cp-by-hand");
  CHECK(ids(open_checkpoints(state)) == std::vector<std::string>{"cp-a", "cp-b"});
  CHECK(pending_checkpoint_views(state).size() == 2);

  // Closed either way, a checkpoint leaves the index.
  close_answered_checkpoint(state, "cp-a");
  expire_checkpoint(state, "cp-b", "its task was done without it");
  CHECK_FALSE(fs::exists(state / "index/open_checkpoints/cp-a"));
  CHECK_FALSE(fs::exists(state / "index/open_checkpoints/cp-b"));
  CHECK(open_checkpoints(state).empty());
  // An entry whose checkpoint is gone (a crash between the two steps, a directory removed by
  // hand) is read as nothing.
  REQUIRE(write_open_checkpoint(state, open_record("cp-c")));
  fs::remove_all(state / "sessions/cp-c");
  CHECK(open_checkpoints(state).empty());
}

TEST_CASE("a project an older harness wrote is walked once, and its index written", "[store][session_index]") {
  TempDir dir;
  const auto state = dir.path / ".orchestration";
  // Nothing there yet: status creates nothing in a project.
  CHECK(open_checkpoints(state).empty());
  CHECK_FALSE(fs::exists(state));
  write_unindexed(state, "cp-old");
  // Closed, and a worker's report through the file transport: not open checkpoints.
  REQUIRE(util::write_file_atomic(state / "sessions/cp-done/checkpoint.answered.json",
                                  R"({"id":"cp-done","task":"verify-plan:01-01","question":"ok?","run":"old"})"));
  REQUIRE(util::write_file_atomic(state / "sessions/execute-01-01-a1-x/checkpoint.json",
                                  R"({"v":1,"type":"verification_needed","task":"t","question":"q"})"));
  CHECK(ids(open_checkpoints(state)) == std::vector<std::string>{"cp-old"});
  std::vector<std::string> entries;
  for (const auto& e : fs::directory_iterator(state / "index/open_checkpoints")) entries.push_back(e.path().filename().string());
  CHECK(entries == std::vector<std::string>{"cp-old"});
  CHECK(std::distance(fs::directory_iterator(state / "index"), fs::directory_iterator()) == 1); // no temp left

  // A writer in a project without an index builds it before adding its own entry.
  TempDir other;
  const auto state2 = other.path / ".orchestration";
  write_unindexed(state2, "cp-old");
  REQUIRE(write_open_checkpoint(state2, open_record("cp-new")));
  CHECK(ids(open_checkpoints(state2)) == std::vector<std::string>{"cp-new", "cp-old"});
}

TEST_CASE("a pruned session directory leaves every index", "[store][session_index]") {
  TempDir dir;
  const auto state = dir.path / ".orchestration";
  REQUIRE(write_open_checkpoint(state, open_record("cp-a")));
  REQUIRE(add_to_index(state, SessionIndex{"other", [](const fs::path&) { return false; }}, "cp-a"));
  remove_from_every_index(state, "cp-a");
  CHECK_FALSE(fs::exists(state / "index/open_checkpoints/cp-a"));
  CHECK_FALSE(fs::exists(state / "index/other/cp-a"));
}
