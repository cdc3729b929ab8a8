// What a person may answer to a checkpoint: approve/refuse, done for an action, one of a worker's
// options (by text or number) for a decision; anything else is refused with the list.
#include "harness/store/checkpoint_answers.hpp"

#include <boost/json.hpp>

#include <catch2/catch.hpp>

using namespace harness::store;

TEST_CASE("an approval takes approve or refuse in any case, and nothing else", "[store][checkpoints]") {
  auto yes = read_typed_answer(CheckpointAsks::approval, {}, " Yes ");
  REQUIRE(yes);
  CHECK(yes->approved);
  CHECK(yes->choice.empty());
  auto no = read_typed_answer(CheckpointAsks::approval, {}, "refuse");
  REQUIRE(no);
  CHECK_FALSE(no->approved);
  auto done = read_typed_answer(CheckpointAsks::approval, {}, "done");
  REQUIRE_FALSE(done);
  CHECK(done.error() == "answer 'done' is not approve or refuse");
  CHECK(answer_forms(CheckpointAsks::approval, {}) == "approve|refuse");
  CHECK(answer_options(CheckpointAsks::approval, {}) == std::vector<std::string>{"approve", "refuse"});
}

TEST_CASE("an action takes done (or approve) and refuse", "[store][checkpoints]") {
  CHECK(read_typed_answer(CheckpointAsks::action, {}, "DONE").value().approved);
  CHECK(read_typed_answer(CheckpointAsks::action, {}, "y").value().approved);
  CHECK_FALSE(read_typed_answer(CheckpointAsks::action, {}, "refuse").value().approved);
  CHECK_FALSE(read_typed_answer(CheckpointAsks::action, {}, "later"));
  CHECK(answer_forms(CheckpointAsks::action, {}) == "done|refuse");
}

TEST_CASE("a decision takes an option's exact text, its number, or refuse", "[store][checkpoints]") {
  const std::vector<std::string> options{"yes", "2", "use postgres"};
  // The exact text first: an option that is a word of approval, or a number, is that option.
  CHECK(read_typed_answer(CheckpointAsks::decision, options, "yes").value().choice == "yes");
  CHECK(read_typed_answer(CheckpointAsks::decision, options, "2").value().choice == "2");
  CHECK(read_typed_answer(CheckpointAsks::decision, options, "3").value().choice == "use postgres");
  CHECK(read_typed_answer(CheckpointAsks::decision, options, "1").value().choice == "yes");
  auto refused = read_typed_answer(CheckpointAsks::decision, options, "Refuse");
  REQUIRE(refused);
  CHECK_FALSE(refused->approved);
  CHECK(refused->choice.empty());
  // "no" is no option and no refusal here: a person may have meant an option.
  auto no = read_typed_answer(CheckpointAsks::decision, options, "no");
  REQUIRE_FALSE(no);
  CHECK(no.error().find("1 yes, 2 2, 3 'use postgres'") != std::string::npos);
  CHECK_FALSE(read_typed_answer(CheckpointAsks::decision, options, "4"));
  CHECK_FALSE(read_typed_answer(CheckpointAsks::decision, options, "Use Postgres"));
  CHECK(answer_forms(CheckpointAsks::decision, options) == "yes|2|'use postgres'|refuse");
  CHECK(answer_options(CheckpointAsks::decision, options) == options);
}

TEST_CASE("a decision's option with control characters is answered as it is shown, and never echoed raw", "[store][checkpoints]") {
  // Review OO F8: `respond --list` shows 'a x' and 'b[2J'; those words were refused.
  const std::vector<std::string> options{"a\nx", "b\x1b[2J"};
  const auto shown = answer_forms(CheckpointAsks::decision, options);
  CHECK(shown.find('\n') == std::string::npos);
  CHECK(shown.find('\x1b') == std::string::npos);
  CHECK(read_typed_answer(CheckpointAsks::decision, options, "a x").value().choice == "a\nx"); // the worker's own text
  CHECK(read_typed_answer(CheckpointAsks::decision, options, "b[2J").value().choice == "b\x1b[2J");
  const auto wrong = read_typed_answer(CheckpointAsks::decision, options, "c\x1b[31m");
  REQUIRE_FALSE(wrong);
  CHECK(wrong.error().find('\x1b') == std::string::npos);
  CHECK(wrong.error().find('\n') == std::string::npos);
  // Two options shown alike: their number decides.
  const std::vector<std::string> alike{"a\nx", "a\tx"};
  const auto which = read_typed_answer(CheckpointAsks::decision, alike, "a x");
  REQUIRE_FALSE(which);
  CHECK(which.error().find("answer with its number") != std::string::npos);
  CHECK(read_typed_answer(CheckpointAsks::decision, alike, "2").value().choice == "a\tx");
}

TEST_CASE("a decision without options takes any text as the answer", "[store][checkpoints]") {
  CHECK(read_typed_answer(CheckpointAsks::decision, {}, "port 8080").value().choice == "port 8080");
  CHECK_FALSE(read_typed_answer(CheckpointAsks::decision, {}, "refuse").value().approved);
  CHECK_FALSE(read_typed_answer(CheckpointAsks::decision, {}, "  "));
  CHECK(answer_forms(CheckpointAsks::decision, {}) == "'<your answer>'|refuse");
}

TEST_CASE("an answer in a word: the choice, else approve or refuse", "[store][checkpoints]") {
  CheckpointAnswer a;
  a.approved = true;
  CHECK(answer_text(a) == "approve");
  CHECK(answer_text(a, CheckpointAsks::action) == "done"); // `respond ID done` says what was typed
  a.choice = "hi";
  CHECK(answer_text(a) == "hi");
  a = {};
  CHECK(answer_text(a) == "refuse");
}

TEST_CASE("harness_respond's object reads as respond reads the same answer typed", "[store][checkpoints]") {
  namespace json = boost::json;
  const std::vector<std::string> options{"hello", "hi there"};
  // A worker's decision: its own {"choice": ...}, by text or number, or a word.
  auto chose = read_response_answer(CheckpointAsks::decision, options, json::object{{"choice", "hi there"}, {"note", "shorter"}});
  REQUIRE(chose);
  CHECK(chose->approved);
  CHECK(chose->choice == "hi there");
  CHECK(chose->note == "shorter");
  CHECK(read_response_answer(CheckpointAsks::decision, options, json::object{{"choice", "1"}}).value().choice == "hello");
  CHECK(read_response_answer(CheckpointAsks::decision, options, json::object{{"answer", "hello"}}).value().choice == "hello");
  CHECK_FALSE(read_response_answer(CheckpointAsks::decision, options, json::object{{"choice", "refuse"}}).value().approved);
  CHECK_FALSE(read_response_answer(CheckpointAsks::decision, options, json::object{{"approved", false}}).value().approved);
  auto other = read_response_answer(CheckpointAsks::decision, options, json::object{{"choice", "howdy"}});
  REQUIRE_FALSE(other);
  CHECK(other.error().find("1 hello, 2 'hi there'") != std::string::npos);
  // Nothing chosen decides nothing, not even a refusal.
  auto nothing = read_response_answer(CheckpointAsks::decision, options, json::object{});
  REQUIRE_FALSE(nothing);
  CHECK(nothing.error() == "the worker's decision takes {\"choice\": ...} with one of hello|'hi there'|refuse");
  // A worker's action: {"outcome": "done" | "refused"}.
  CHECK(read_response_answer(CheckpointAsks::action, {}, json::object{{"outcome", "done"}}).value().approved);
  CHECK_FALSE(read_response_answer(CheckpointAsks::action, {}, json::object{{"outcome", "refused"}}).value().approved);
  CHECK_FALSE(read_response_answer(CheckpointAsks::action, {}, json::object{{"outcome", "later"}}));
  // A verification: passed only when the answer says so.
  auto approved = read_response_answer(CheckpointAsks::approval, {}, json::object{{"verdict", "approved"}, {"feedback", "looked"}});
  REQUIRE(approved);
  CHECK(approved->approved);
  CHECK(approved->note == "looked");
  CHECK_FALSE(read_response_answer(CheckpointAsks::approval, {}, json::object{{"choice", "hello"}}).value().approved);
  CHECK(read_response_answer(CheckpointAsks::approval, {}, json::object{{"answer", "yes"}}).value().approved);
  CHECK_FALSE(read_response_answer(CheckpointAsks::approval, {}, json::object{{"answer", "maybe"}}));
}

TEST_CASE("a worker's decision options are kept as offered and shown as one printable line each", "[store][checkpoints]") {
  // The worker gets back the option it offered; a person sees no line break or escape sequence
  // of it (review BB M3) and answers such an option by its number.
  const boost::json::object payload{{"question", "which?"}, {"options", boost::json::array{"a\nb", "\x1b[1mbold", "", 7}}};
  const auto form = worker_question_form("decision_needed", payload);
  REQUIRE(form);
  CHECK(form->asks == CheckpointAsks::decision);
  CHECK(form->options == std::vector<std::string>{"a\nb", "\x1b[1mbold"});
  CHECK(answer_forms(CheckpointAsks::decision, form->options) == "'a b'|'[1mbold'|refuse");
  auto second = read_typed_answer(CheckpointAsks::decision, form->options, "2");
  REQUIRE(second);
  CHECK(second->choice == "\x1b[1mbold");
}
