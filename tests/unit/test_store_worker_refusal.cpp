#include "harness/store/worker_refusal.hpp"

#include "harness/store/store.hpp"
#include "harness/util/proc_stat.hpp"

#include "test_store_support.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <unistd.h>

using harness::store::PersonsPart;
using harness::store::refuse_inside_worker;
using store_test::TempDir;

namespace {

/// This project (whose state a run holds) and another one, each with its .orchestration/.
struct TwoProjects {
  TempDir mine, other;
  std::filesystem::path state = mine.path / ".orchestration";
  TwoProjects() {
    std::filesystem::create_directories(state);
    std::filesystem::create_directories(other.path / ".orchestration");
  }
};

} // namespace

TEST_CASE("a worker of this project may not answer its checkpoints, a worker of another project may", "[store][worker_refusal]") {
  TwoProjects p;
  const auto& state = p.state;
  // A person's shell: no worker session.
  CHECK_FALSE(refuse_inside_worker(state, "", "", PersonsPart::answer_checkpoint));
  // A worker of this run, named through another spelling of the same directory.
  const auto why = refuse_inside_worker(state, p.mine.path / "." / ".orchestration", "execute-01-01-a1-abc",
                                        PersonsPart::answer_checkpoint);
  REQUIRE(why);
  CHECK(why->starts_with("this runs inside worker session execute-01-01-a1-abc of this project (HARNESS_SESSION_ID): "
                         "a checkpoint asks a person"));
  // A worker whose task runs another project's orchestrate (a test of its own) answers there.
  CHECK_FALSE(refuse_inside_worker(state, p.other.path / ".orchestration", "execute-01-01-a1-abc",
                                   PersonsPart::answer_checkpoint));
}

TEST_CASE("a worker of this project may not start or end its sessions, a worker of another project may", "[store][worker_refusal]") {
  TwoProjects p;
  const auto& state = p.state;
  CHECK_FALSE(refuse_inside_worker(state, "", "", PersonsPart::steer_sessions));
  // HARNESS_STATE_DIR without a session (or the reverse) is no worker of harness's.
  CHECK_FALSE(refuse_inside_worker(state, state, "", PersonsPart::steer_sessions));
  CHECK_FALSE(refuse_inside_worker(state, "", "execute-01-02-a1-abc", PersonsPart::steer_sessions));
  const auto why = refuse_inside_worker(state, state, "execute-01-02-a1-abc", PersonsPart::steer_sessions);
  REQUIRE(why);
  CHECK(*why == "this runs inside worker session execute-01-02-a1-abc of this project (HARNESS_SESSION_ID): starting "
                "and ending the run's sessions is a person's to do, and a worker does not end another or reorder the "
                "queue; a worker that cannot go on reports task_failed");
  CHECK_FALSE(refuse_inside_worker(state, p.other.path / ".orchestration", "execute-01-02-a1-abc", PersonsPart::steer_sessions));
  // A project where nothing ran yet: nothing to steer, and no worker of it.
  CHECK_FALSE(refuse_inside_worker(p.other.path / "nothing" / ".orchestration", p.other.path / "nothing" / ".orchestration",
                                   "execute-01-02-a1-abc", PersonsPart::steer_sessions));
}

TEST_CASE("a command whose environment was cleared is still refused when a running worker of the project is its ancestor",
          "[store][worker_refusal]") {
  TwoProjects p;
  const auto& state = p.state;
  harness::store::StoreOptions options;
  options.db_path = state / "harness.db";
  auto store = harness::store::Store::open(options);
  REQUIRE(store);
  // The test's own parent stands for the worker whose agent ran `env -u HARNESS_SESSION_ID
  // harness-cli respond ...`: this process descends from it.
  const auto parent = harness::util::read_proc_stat(::getppid());
  REQUIRE(parent);
  harness::store::SessionRecord worker;
  worker.id = "execute-01-03-a1-abc";
  worker.task_id = "execute:01-03";
  worker.token = "t";
  worker.pid = ::getppid();
  worker.pid_start_time = parent->start_ticks;
  REQUIRE(store->create_session(worker));
  const auto why = refuse_inside_worker(state, "", "", PersonsPart::answer_checkpoint);
  REQUIRE(why);
  CHECK(why->starts_with("this runs inside worker session execute-01-03-a1-abc of this project (started by its worker "
                         "process): a checkpoint asks a person"));
  // The same pid started at another time is another process (a pid reused by a person's shell).
  worker.pid_start_time = parent->start_ticks + 1;
  REQUIRE(store->update_session(worker));
  CHECK_FALSE(refuse_inside_worker(state, "", "", PersonsPart::answer_checkpoint));
  // An ended session's process is no worker any more.
  worker.pid_start_time = parent->start_ticks;
  REQUIRE(store->update_session(worker));
  REQUIRE(store->set_session_status(worker.id, "completed", 0));
  CHECK_FALSE(refuse_inside_worker(state, "", "", PersonsPart::answer_checkpoint));
}
