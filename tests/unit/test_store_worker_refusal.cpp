#include "harness/store/worker_refusal.hpp"

#include "test_store_support.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

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
