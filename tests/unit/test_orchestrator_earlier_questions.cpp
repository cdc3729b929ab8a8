// A worker's question kept open after the run stopped its worker (an interrupt): what the task's
// next worker is told in its task input, and which question of its own takes that checkpoint over.
#include "harness/orchestrator/earlier_questions.hpp"

#include <catch2/catch.hpp>

#include <boost/json.hpp>

using namespace harness;
using store::CheckpointAsks;

namespace {

store::CheckpointRecord kept_decision() {
  store::CheckpointRecord r;
  r.id = "cp-SPC-001-x-execute-01-01-aaa-1";
  r.task = "execute:01-01";
  r.question = "decision_needed: Which greeting?"; // as the run words a worker's question
  r.asker = store::CheckpointAsker::worker;
  r.asks = CheckpointAsks::decision;
  r.options = {"hello", "hi"};
  r.kept_for_task = true;
  return r;
}

} // namespace

TEST_CASE("The next worker is told an earlier worker's question and the answer given since", "[orchestrator][questions]") {
  auto answered = kept_decision();
  answered.answer = store::CheckpointAnswer{true, "short is fine", "t", "", "hi"};
  auto action = kept_decision();
  action.id = "cp-2";
  action.question = "action_needed: log in to the registry (the token expired)";
  action.asks = CheckpointAsks::action;
  action.options.clear();
  const auto input = orchestrator::earlier_questions_input({answered, action});
  REQUIRE(input.size() == 2);
  const auto& first = input[0].as_object();
  CHECK(first.at("checkpoint_id") == "cp-SPC-001-x-execute-01-01-aaa-1");
  CHECK(first.at("type") == "decision_needed");
  CHECK(first.at("question") == "Which greeting?"); // the worker's own words
  CHECK(first.at("options") == boost::json::array{"hello", "hi"});
  CHECK(first.at("answered") == true);
  // What harness_worker_await would have returned to the worker that asked.
  CHECK(first.at("answer") == boost::json::object{{"choice", "hi"}, {"note", "short is fine"}});
  CHECK(std::string(first.at("what_to_do").as_string()).find("do not ask it again") != std::string::npos);
  // Unanswered: no answer, and how to wait for it on the same checkpoint.
  const auto& second = input[1].as_object();
  CHECK(second.at("type") == "action_needed");
  CHECK(second.at("question") == "log in to the registry (the token expired)");
  CHECK_FALSE(second.contains("options"));
  CHECK(second.at("answered") == false);
  CHECK_FALSE(second.contains("answer"));
  CHECK(std::string(second.at("what_to_do").as_string()).find("report the same question again") != std::string::npos);
}

TEST_CASE("Only the same question asked again takes over an earlier worker's checkpoint", "[orchestrator][questions]") {
  const auto r = kept_decision();
  CHECK(orchestrator::same_question(r, CheckpointAsks::decision, "decision_needed: Which greeting?", {"hello", "hi"}));
  CHECK_FALSE(orchestrator::same_question(r, CheckpointAsks::decision, "decision_needed: Which greeting?", {"hi", "hello"}));
  CHECK_FALSE(orchestrator::same_question(r, CheckpointAsks::decision, "decision_needed: Which salutation?", {"hello", "hi"}));
  CHECK_FALSE(orchestrator::same_question(r, CheckpointAsks::action, "decision_needed: Which greeting?", {"hello", "hi"}));
}
