#include <catch2/catch.hpp>

#include "harness/protocol/answer.hpp"
#include "harness/protocol/codec.hpp"

using harness::protocol::MessageType;
using harness::protocol::read_answer;

TEST_CASE("a verification passes only when the answer says so", "[protocol][answer]") {
  const auto v = MessageType::verification_needed;
  for (const char* yes : {R"({"verdict":"approved"})", R"({"verdict":"pass"})", R"({"verdict":"yes"})",
                          R"({"approved":true})", R"({"verdict":"passed","feedback":"looks right"})"})
    CHECK(read_answer(v, yes).approved);
  for (const char* no : {R"({})", R"({"verdict":"rejected"})", R"({"verdict":"maybe"})", R"({"approved":false})",
                         R"({"verdict":"approved","approved":false})", R"({"choice":"yes"})", "not json", "[1]",
                         R"("approved")"})
    CHECK_FALSE(read_answer(v, no).approved);
  CHECK(read_answer(v, R"({"verdict":"passed","feedback":"looks right"})").note == "looks right");
}

TEST_CASE("a decision is taken unless it is refused", "[protocol][answer]") {
  const auto d = MessageType::decision_needed;
  auto r = read_answer(d, R"({"choice":"B"})");
  CHECK(r.approved);
  CHECK(r.note == "B");
  CHECK_FALSE(read_answer(d, R"({"choice":"refuse"})").approved);
  CHECK_FALSE(read_answer(d, R"({"choice":"B","approved":false})").approved);
  CHECK(read_answer(d, R"({"choice":"B","note":"cheaper"})").note == "cheaper");
}

TEST_CASE("an action is done unless the answer says it was refused", "[protocol][answer]") {
  const auto a = MessageType::action_needed;
  CHECK(read_answer(a, R"({"outcome":"done"})").approved);
  CHECK(read_answer(a, R"({"outcome":"done"})").note == "done");
  CHECK_FALSE(read_answer(a, R"({"outcome":"refused"})").approved);
  CHECK_FALSE(read_answer(a, R"({"approved":false})").approved);
}

TEST_CASE("field_text reads a string as it is and anything else as its JSON", "[protocol][answer]") {
  const auto o = boost::json::parse(R"({"s":"yes","b":false,"n":3,"o":{"k":1}})").as_object();
  CHECK(harness::protocol::field_text(o, "s") == "yes");
  CHECK(harness::protocol::field_text(o, "b") == "false");
  CHECK(harness::protocol::field_text(o, "n") == "3");
  CHECK(harness::protocol::field_text(o, "o") == R"({"k":1})");
  CHECK(harness::protocol::field_text(o, "absent").empty());
}

TEST_CASE("a typed approval is read without regard to case, and anything unclear is no answer", "[protocol][answer]") {
  using harness::protocol::parse_approval;
  for (const char* yes : {"y", "Y", "yes", "YES", "approve", "Approve", "approved", "ok", "OK", "  Ok \r", "yes\n"})
    CHECK(parse_approval(yes) == std::optional<bool>(true));
  for (const char* no : {"n", "N", "no", "No", "refuse", "Refuse", "refused", "reject", "Rejected", " no\r\n"})
    CHECK(parse_approval(no) == std::optional<bool>(false));
  // An empty line, a typo or a sentence decides nothing: the question is asked again.
  for (const char* unclear : {"", " ", "\r", "a", "approv", "yess", "o k", "not sure", "maybe", "nope", "yes please"})
    CHECK_FALSE(parse_approval(unclear).has_value());
}
