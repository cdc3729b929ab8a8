// `harness-cli respond`'s library half: answers go to the waiting checkpoint's directory, and a
// bad id or answer, or a checkpoint nobody would read an answer to (exit 2), is told apart from
// a write that failed (exit 1).
#include "harness/orchestrator/orchestrator.hpp"
#include "harness/util/atomic_file.hpp"
#include "spec_test_util.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

using namespace harness;
namespace fs = std::filesystem;

TEST_CASE("respond writes the answer once the checkpoint exists, and says which error is whose", "[orchestrator][respond]") {
  test::TempDir dir;
  const auto state = dir.path / ".orchestration";
  // A verification's checkpoint a run left open: the next run asks it again and reads the answer.
  dir.write(".orchestration/sessions/cp-1/checkpoint.json",
            R"({"id":"cp-1","task":"verify-plan:01-01","spec":"SPC-001-x","question":"ok?","run":"r1","asker":"orchestrator",)"
            R"("head":"0123456789abcdef0123456789abcdef01234567"})");
  // One written before checkpoints named their run: nothing says anyone would read an answer.
  dir.write(".orchestration/sessions/cp-0/checkpoint.json",
            R"({"id":"cp-0","task":"verify-plan:01-01","spec":"SPC-001-x","question":"ok?"})");
  auto stale = orchestrator::respond_checkpoint(state, "cp-0", "approve", "");
  REQUIRE_FALSE(stale);
  CHECK(stale.error().exit_code == 2);
  CHECK(stale.error().message.find("is stale") != std::string::npos);
  CHECK(stale.error().message.find("verify-plan:01-01 waits on checkpoint cp-1 now") != std::string::npos);
  REQUIRE(orchestrator::pending_checkpoints(state).size() == 1);
  CHECK(orchestrator::pending_checkpoints(state)[0].id == "cp-1");

  auto bad_answer = orchestrator::respond_checkpoint(state, "cp-1", "perhaps", "");
  REQUIRE_FALSE(bad_answer);
  CHECK(bad_answer.error().exit_code == 2);
  auto unknown = orchestrator::respond_checkpoint(state, "cp-9", "approve", "");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().exit_code == 2);
  CHECK(unknown.error().message.find("respond --list") != std::string::npos);

  const auto pending = orchestrator::pending_checkpoints(state);
  // No run holds the lock: the line says who will read the answer.
  // The spec too: every spec has a verify-plan:01-01.
  CHECK(orchestrator::checkpoints_text(pending) ==
        "cp-1  SPC-001-x  verify-plan:01-01  ok?  (no orchestrate runs; the next one of SPC-001-x takes the answer when it "
        "reaches verify-plan:01-01 with commit 0123456 in its history)\n");
  CHECK(orchestrator::checkpoints_json(pending) ==
        R"({"checkpoints":[{"id":"cp-1","spec":"SPC-001-x","task":"verify-plan:01-01","question":"ok?",)"
        R"("asks":"approval","options":["approve","refuse"],"head":"0123456789abcdef0123456789abcdef01234567"}]})");
  CHECK(orchestrator::checkpoints_json({}) == R"({"checkpoints":[]})");

  auto answered = orchestrator::respond_checkpoint(state, "cp-1", "Yes", "fine"); // any case, as on the terminal
  REQUIRE(answered);
  CHECK(answered->answer == "approve");
  CHECK(answered->replaced.empty());
  const auto written = util::read_file(state / "sessions/cp-1/checkpoint_response.json").value();
  CHECK(written.find(R"("answer":"approve")") != std::string::npos);
  CHECK(written.find(R"("note":"fine")") != std::string::npos);

  // A write that cannot happen (here: a directory where the answer goes; works as root too).
  fs::remove(state / "sessions/cp-1/checkpoint_response.json");
  dir.write(".orchestration/sessions/cp-1/checkpoint_response.json/keep", "");
  auto unwritable = orchestrator::respond_checkpoint(state, "cp-1", "approve", "");
  REQUIRE_FALSE(unwritable);
  CHECK(unwritable.error().exit_code == 1);
}

TEST_CASE("a worker's decision is answered with one of its options, by its text or its number", "[orchestrator][respond]") {
  test::TempDir dir;
  const auto state = dir.path / ".orchestration";
  // A run that is not alive any more would make a worker's question stale: this one's run holds
  // no lock either, so the test reads it as an earlier run's orchestrator checkpoint would be read.
  dir.write(".orchestration/sessions/cp-d/checkpoint.json",
            R"({"id":"cp-d","task":"execute:01-01","spec":"SPC-001-x","question":"decision_needed: which greeting?",)"
            R"("type":"decision_needed","options":["hello","hi there"],"run":"r1","asker":"orchestrator"})");
  const auto pending = orchestrator::pending_checkpoints(state);
  REQUIRE(pending.size() == 1);
  CHECK(pending[0].asks == store::CheckpointAsks::decision);
  CHECK(pending[0].options == std::vector<std::string>{"hello", "hi there"});
  CHECK(orchestrator::checkpoints_text(pending).find("which greeting?  [answer: hello|'hi there'|refuse]") != std::string::npos);
  // --json lists every answer it takes, as the text does.
  CHECK(orchestrator::checkpoints_json(pending).find(R"("asks":"decision","options":["hello","hi there","refuse"])") != std::string::npos);
  CHECK(orchestrator::waiting_line(pending[0]).ends_with("-- answer with: harness-cli respond cp-d hello|'hi there'|refuse"));

  // approve is none of the options: refused, naming them.
  auto approve = orchestrator::respond_checkpoint(state, "cp-d", "approve", "");
  REQUIRE_FALSE(approve);
  CHECK(approve.error().exit_code == 2);
  CHECK(approve.error().message ==
        "answer 'approve' is none of the worker's options: 1 hello, 2 'hi there' (the option's text or its number), or "
        "refuse to block the task");
  REQUIRE_FALSE(orchestrator::respond_checkpoint(state, "cp-d", "3", ""));
  CHECK_FALSE(fs::exists(state / "sessions/cp-d/checkpoint_response.json"));

  auto by_number = orchestrator::respond_checkpoint(state, "cp-d", "2", "");
  REQUIRE(by_number);
  CHECK(by_number->answer == "hi there");
  const auto written = util::read_file(state / "sessions/cp-d/checkpoint_response.json").value();
  CHECK(written.find(R"("answer":"approve")") != std::string::npos); // what an older harness reads
  CHECK(written.find(R"("choice":"hi there")") != std::string::npos);
  const auto read = store::read_checkpoint_answer(state, "cp-d");
  REQUIRE(read);
  CHECK(read->choice == "hi there");
}

TEST_CASE("status's waiting lines are the checkpoints of its spec, each naming it, with its respond command", "[orchestrator][respond]") {
  test::TempDir dir;
  const auto state = dir.path / ".orchestration";
  dir.write(".orchestration/sessions/cp-a/checkpoint.json",
            R"({"id":"cp-a","task":"verify-plan:01-01","spec":"SPC-001-x","question":"ok?","run":"r1","asker":"orchestrator"})");
  dir.write(".orchestration/sessions/cp-b/checkpoint.json",
            R"({"id":"cp-b","task":"verify-plan:01-01","spec":"SPC-002-y","question":"fine?","run":"r1","asker":"orchestrator"})");
  // An older harness's, naming no spec: no run would read its answer, so it waits for nobody.
  dir.write(".orchestration/sessions/cp-c/checkpoint.json",
            R"({"id":"cp-c","task":"verify-plan:01-01","question":"and?","run":"r1","asker":"orchestrator"})");
  const auto lines = orchestrator::waiting_lines(state, "SPC-001-x");
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].starts_with("verify-plan:01-01 of SPC-001-x: ok?"));
  CHECK(lines[0].find("harness-cli respond cp-a approve|refuse") != std::string::npos);
  REQUIRE(orchestrator::waiting_lines(state, "SPC-002-y").size() == 1);
  CHECK(orchestrator::waiting_lines(state, "SPC-002-y")[0].starts_with("verify-plan:01-01 of SPC-002-y: fine?"));
  CHECK(orchestrator::waiting_lines(state, "SPC-003-z").empty());
}

TEST_CASE("A replaced answer says which it replaced, in the text and in its own JSON field", "[orchestrator][respond]") {
  const orchestrator::Responded plain{"approve", "", ""};
  CHECK(plain.text() == "approve");
  CHECK(plain.json("cp-1") == boost::json::object{{"id", "cp-1"}, {"answer", "approve"}});
  const orchestrator::Responded replaced{"approve", "refuse", "wrong one"};
  CHECK(replaced.text() == "approve (it replaces refuse, whose note was: wrong one)");
  CHECK(replaced.json("cp-1") == boost::json::object{{"id", "cp-1"},
                                                     {"answer", "approve"},
                                                     {"replaces", boost::json::object{{"answer", "refuse"}, {"note", "wrong one"}}}});
  CHECK(orchestrator::Responded{"refuse", "approve", ""}.text() == "refuse (it replaces approve)");
}
