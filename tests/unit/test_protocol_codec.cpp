// Envelope and payload codecs: round trips for every type and strict rejections.
#include "harness/protocol/codec.hpp"

#include <catch2/catch.hpp>

using namespace harness::protocol;
namespace json = boost::json;

namespace {

/// One representative payload per message type, optional fields filled.
std::vector<Payload> samples() {
  return {
      SessionReady{"claude", 4242},
      TaskStarted{"01-02", 2},
      ProgressUpdate{"Task 1/3", 1, 3},
      VerificationNeeded{"login page", {"open /login", "sign in"}, "http://localhost:3000"},
      DecisionNeeded{"Which database?", {"sqlite", "postgres"}, "small app"},
      ActionNeeded{"log in to the CLI", "needs a browser"},
      TaskCompleted{".planning/phases/01/01-01-SUMMARY.md", {"abc123", "def456"}, {"src/a.cpp", "src/b.cpp"}, {}, {}},
      TaskFailed{"tests failed", Retry::forbidden, "logs/s1.log"},
      AwaitingAnswer{"9f0c", 30000},
      AssignTask{"01-research", 1, ResearcherInput{"01", "foundation", "REQ", "roadmap part", "decisions", "STATE"}},
      VerificationResult{Verdict::rejected, "button missing"},
      DecisionMade{"sqlite", "keep it simple"},
      ActionCompleted{"logged in"},
      AbortTask{"phase replanned"},
  };
}

std::vector<AgentInput> inputs() {
  return {ResearcherInput{"02", "api", "R", "C", std::nullopt, "S"},
          PlannerInput{PlannerMode::revision, "02", "S", "RM", "R", "ctx", "research", std::nullopt, {"issue 1"}},
          PlanCheckerInput{{"plan a", "plan b"}, "R", "D"},
          ExecutorInput{"02-01", "plan", "S", "{}", "chose sqlite"},
          VerifierInput{".planning/phases/02", "API works", {"GET /tasks returns 200"}}};
}

json::value roundtrip_json(const Envelope& e) {
  auto back = parse_envelope(serialize(e));
  REQUIRE(back.has_value());
  CHECK(back->id == e.id);
  CHECK(back->session_id == e.session_id);
  CHECK(back->created_at == e.created_at);
  CHECK(back->type() == e.type());
  return to_json(*back);
}

std::string reject(std::string_view text) {
  auto r = parse_envelope(text);
  REQUIRE_FALSE(r.has_value());
  return r.error();
}

}  // namespace

TEST_CASE("Every message type survives an encode-decode round trip unchanged", "[protocol]") {
  auto all = samples();
  REQUIRE(all.size() == all_message_types().size());
  for (auto& p : all) {
    Envelope e = make_envelope("s-1", p);
    INFO(to_string(e.type()));
    CHECK(roundtrip_json(e) == to_json(e));
    CHECK(e.type() == all_message_types()[p.index()]);
  }
}

TEST_CASE("Every agent kind's assign_task input survives a round trip", "[protocol]") {
  for (auto& in : inputs()) {
    Envelope e = make_envelope("s-2", AssignTask{"t", 3, in});
    INFO(to_string(kind_of(in)));
    json::value back = roundtrip_json(e);
    CHECK(back == to_json(e));
    CHECK(back.at("payload").at("kind").as_string() == to_string(kind_of(in)));
  }
}

TEST_CASE("Optional fields may be absent or null", "[protocol]") {
  auto e = parse_envelope(R"({"v":1,"id":"a","session_id":"s","type":"decision_needed","created_at":"t",
      "payload":{"question":"q","options":["x"],"context":null}})");
  REQUIRE(e.has_value());
  CHECK_FALSE(std::get<DecisionNeeded>(e->payload).context.has_value());
}

TEST_CASE("Unknown message types are rejected naming the type", "[protocol]") {
  CHECK(reject(R"({"v":1,"id":"a","session_id":"s","type":"bogus","created_at":"t","payload":{}})") ==
        "type: unknown message type \"bogus\"");
}

TEST_CASE("Missing and mistyped fields are rejected with the field path", "[protocol]") {
  CHECK(reject(R"({"v":1,"id":"a","session_id":"s","type":"decision_needed","created_at":"t",
      "payload":{"question":"q","options":["x",2]}})") == "payload.options[1]: expected string");
  CHECK(reject(R"({"v":1,"id":"a","session_id":"s","type":"decision_needed","created_at":"t",
      "payload":{"options":["x"]}})") == "payload.question: missing required field");
  CHECK(reject(R"({"v":1,"id":"a","session_id":"s","type":"task_started","created_at":"t",
      "payload":{"task_id":"x","attempt":"1"}})") == "payload.attempt: expected integer");
  CHECK(reject(R"({"v":1,"id":"a","type":"abort_task","created_at":"t","payload":{"reason":"r"}})") ==
        "session_id: missing required field");
  CHECK(reject(R"({"v":1,"id":"a","session_id":"s","type":"abort_task","created_at":"t"})") ==
        "payload: missing required field");
  CHECK(reject(R"({"v":1,"id":"a","session_id":"s","type":"abort_task","created_at":"t","payload":[]})") ==
        "payload: expected object");
  CHECK(reject(R"({"v":1,"id":"a","session_id":"s","type":"task_failed","created_at":"t",
      "payload":{"error":"e","retry":"maybe"}})")
            .starts_with("payload.retry: unknown value \"maybe\""));
  CHECK(reject(R"({"v":1,"id":"a","session_id":"s","type":"decision_needed","created_at":"t",
      "payload":{"question":"q","options":[]}})") == "payload.options: expected at least one option");
  CHECK(reject(R"({"v":1,"id":"a","session_id":"s","type":"task_completed","created_at":"t",
      "payload":{"summary_path":"","commits":[],"files_touched":[],"verdict":"maybe"}})") ==
        "payload.verdict: unknown value \"maybe\" (expected one of pass, revise)");
  CHECK(reject(R"({"v":1,"id":"a","session_id":"s","type":"awaiting_answer","created_at":"t",
      "payload":{"message_id":"m","timeout_ms":-1}})") == "payload.timeout_ms: must not be negative");
  CHECK(reject(R"({"v":1,"id":"a","session_id":"s","type":"awaiting_answer","created_at":"t",
      "payload":{"message_id":"m","timeout_ms":1.5}})") == "payload.timeout_ms: expected integer");
}

TEST_CASE("A plan checker's verdict and findings survive a round trip", "[protocol]") {
  Envelope e = make_envelope("s-1", TaskCompleted{"", {}, {}, "revise", {"01-02 writes src/a.cpp like 01-01"}});
  CHECK(roundtrip_json(e) == to_json(e));
  const auto parsed = parse_envelope(serialize(e));
  REQUIRE(parsed.has_value());
  const auto back = std::get<TaskCompleted>(parsed->payload);
  CHECK(back.verdict == "revise");
  CHECK(back.findings == std::vector<std::string>{"01-02 writes src/a.cpp like 01-01"});
}

TEST_CASE("Nested assign_task inputs are checked with their full path", "[protocol]") {
  CHECK(reject(R"({"v":1,"id":"a","session_id":"s","type":"assign_task","created_at":"t",
      "payload":{"task_id":"x","attempt":1,"kind":"executor","input":{"plan_id":"p","plan_content":5}}})") ==
        "payload.input.plan_content: expected string");
  CHECK(reject(R"({"v":1,"id":"a","session_id":"s","type":"assign_task","created_at":"t",
      "payload":{"task_id":"x","attempt":1,"kind":"wizard","input":{}}})")
            .starts_with("payload.kind: unknown value \"wizard\""));
  CHECK(reject(R"({"v":1,"id":"a","session_id":"s","type":"assign_task","created_at":"t",
      "payload":{"task_id":"x","attempt":1,"kind":"verifier","input":"no"}})") == "payload.input: expected object");
}

TEST_CASE("Envelope version, id and JSON syntax are checked", "[protocol]") {
  CHECK(reject(R"({"v":2,"id":"a","session_id":"s","type":"abort_task","created_at":"t","payload":{"reason":"r"}})")
            .starts_with("v: unsupported protocol version 2"));
  CHECK(reject(R"({"v":1,"id":"","session_id":"s","type":"abort_task","created_at":"t","payload":{"reason":"r"}})") ==
        "id: must not be empty");
  CHECK(reject("{not json").starts_with("message: invalid JSON"));
  CHECK(reject("[1]") == "message: expected object");
}

TEST_CASE("Message type metadata is consistent", "[protocol]") {
  for (auto t : all_message_types()) {
    CHECK(parse_message_type(to_string(t)) == t);
  }
  CHECK(direction_of(MessageType::task_failed) == Direction::worker_to_orchestrator);
  CHECK(direction_of(MessageType::awaiting_answer) == Direction::worker_to_orchestrator);
  CHECK_FALSE(expects_response(MessageType::awaiting_answer));
  CHECK(direction_of(MessageType::assign_task) == Direction::orchestrator_to_worker);
  CHECK(expects_response(MessageType::decision_needed));
  CHECK_FALSE(expects_response(MessageType::progress_update));
  CHECK(new_message_id().size() == 32);
  CHECK(new_message_id() != new_message_id());
  CHECK(now_iso8601().size() == 24);
}

#include "spec_test_util.hpp"

TEST_CASE("the lenient readers of left-behind files: an object or nothing, a string or empty") {
  harness::test::TempDir dir;
  const auto good = dir.write("good.json", R"({"task": "execute:01-01", "pid": 42})");
  const auto obj = harness::protocol::read_json_object(good);
  REQUIRE(obj);
  CHECK(harness::protocol::string_field(*obj, "task") == "execute:01-01");
  CHECK(harness::protocol::string_field(*obj, "pid").empty());     // a number is not text here
  CHECK(harness::protocol::string_field(*obj, "missing").empty());
  CHECK_FALSE(harness::protocol::read_json_object(dir.write("list.json", "[1, 2]")));
  CHECK_FALSE(harness::protocol::read_json_object(dir.write("torn.json", R"({"task": "exe)")));
  CHECK_FALSE(harness::protocol::read_json_object(dir.path / "absent.json"));
}
