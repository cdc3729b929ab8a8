// A worker's question kept open after the run stopped its worker (an interrupt): what the task's
// next worker is told in its task input, and which question of its own takes that checkpoint over.
#include "harness/orchestrator/earlier_questions.hpp"
#include "harness/util/text.hpp"

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
  CHECK(std::string(second.at("what_to_do").as_string()).find("report_again as the payload") != std::string::npos);
  CHECK_FALSE(first.contains("report_again")); // answered: nothing to ask
}

TEST_CASE("report_again asks an earlier question again in the run's own words (review NN F2)", "[orchestrator][questions]") {
  // Each kind as the run words it, and the payload that asks it again: its words come out the same.
  auto decision = kept_decision();
  auto action = kept_decision();
  action.question = "action_needed: log in to the registry (the token expired)";
  action.asks = CheckpointAsks::action;
  action.options.clear();
  auto look = kept_decision();
  look.question = "verification_needed: the page: [\"open /\",\"click Add\"]";
  look.asks = CheckpointAsks::approval;
  look.options.clear();
  const auto input = orchestrator::earlier_questions_input({decision, action, look});
  REQUIRE(input.size() == 3);
  for (const auto& [i, r] : {std::pair{0, &decision}, std::pair{1, &action}, std::pair{2, &look}}) {
    const auto& q = input[static_cast<std::size_t>(i)].as_object();
    const std::string type(q.at("type").as_string());
    const auto& again = q.at("report_again").as_object();
    INFO(type << " " << boost::json::serialize(again));
    CHECK(type + ": " + orchestrator::worker_question_text(type, again) == r->question);
  }
  CHECK(input[0].at("report_again").at("options") == boost::json::array{"hello", "hi"});
  CHECK(input[1].at("report_again") == boost::json::object{{"action", "log in to the registry (the token expired)"}, {"reason", ""}});
}

TEST_CASE("A worker's question is worded from its payload; an empty reason or how_to_verify adds nothing", "[orchestrator][questions]") {
  using orchestrator::worker_question_text;
  CHECK(worker_question_text("decision_needed", {{"question", "Which?"}, {"options", {"a", "b"}}}) == "Which?");
  CHECK(worker_question_text("action_needed", {{"action", "log in"}, {"reason", "expired"}}) == "log in (expired)");
  CHECK(worker_question_text("action_needed", {{"action", "log in"}, {"reason", ""}}) == "log in");
  CHECK(worker_question_text("verification_needed", {{"what_built", "the page"}, {"how_to_verify", {"open /"}}}) ==
        "the page: [\"open /\"]");
  CHECK(worker_question_text("verification_needed", {{"what_built", "the page"}, {"how_to_verify", boost::json::array()}}) ==
        "the page");
}

TEST_CASE("Only the same question asked again takes over an earlier worker's checkpoint", "[orchestrator][questions]") {
  const auto r = kept_decision();
  CHECK(orchestrator::same_question(r, CheckpointAsks::decision, "decision_needed: Which greeting?", {"hello", "hi"}));
  CHECK_FALSE(orchestrator::same_question(r, CheckpointAsks::decision, "decision_needed: Which greeting?", {"hi", "hello"}));
  CHECK_FALSE(orchestrator::same_question(r, CheckpointAsks::decision, "decision_needed: Which salutation?", {"hello", "hi"}));
  CHECK_FALSE(orchestrator::same_question(r, CheckpointAsks::action, "decision_needed: Which greeting?", {"hello", "hi"}));
  // A long question, cut at 4,000 bytes when asked, is cut again when asked again from those words.
  auto long_one = r;
  const std::string words(4200, 'w');
  long_one.question = "decision_needed: " + util::clipped(words, 4000);
  const std::string again = "decision_needed: " + util::clipped(util::clipped(words, 4000), 4000);
  REQUIRE(again != long_one.question);
  CHECK(orchestrator::same_question(long_one, CheckpointAsks::decision, again, {"hello", "hi"}));
  CHECK_FALSE(orchestrator::same_question(long_one, CheckpointAsks::decision, "decision_needed: " + std::string(100, 'w'),
                                          {"hello", "hi"}));
}
