#include "harness/worker/agent_events.hpp"

#include <catch2/catch.hpp>

using namespace harness::worker;

namespace {

const char* k_init = R"({"type":"system","subtype":"init","mcp_servers":[{"name":"harness","status":"connected"}]})";
const char* k_tool_use =
    R"({"type":"assistant","message":{"content":[{"type":"tool_use","name":"mcp__harness__harness_worker_report","input":{}}]}})";

} // namespace

TEST_CASE("a clean Claude run yields its turns, cost and tool calls and no failure") {
  ClaudeStreamReader r;
  r.feed_line(k_init);
  r.feed_line(k_tool_use);
  r.feed_line(R"({"type":"user","message":{"content":[{"type":"tool_result"}]}})");
  r.feed_line(R"({"type":"result","subtype":"success","is_error":false,"num_turns":2,"total_cost_usd":0.00035,"permission_denials":[]})");
  const auto& f = r.facts();
  CHECK(f.saw_init);
  CHECK(f.num_turns == 2);
  CHECK(f.cost_usd == Approx(0.00035));
  CHECK(f.cost_reported);
  auto shown = f;
  shown.cost_usd = 0.0018;
  CHECK(describe_usage(shown) == "2 turns, $0.0018");
  CHECK(f.tool_calls == std::vector<std::string>{"mcp__harness__harness_worker_report"});
  CHECK_FALSE(agent_failure(f));
}

TEST_CASE("a refused harness tool fails the attempt although the result says success") {
  ClaudeStreamReader r;
  r.feed_line(k_init);
  r.feed_line(R"({"type":"result","subtype":"success","is_error":false,"num_turns":1,)"
              R"("permission_denials":[{"tool_name":"mcp__harness__harness_worker_report","tool_use_id":"t1"}]})");
  auto why = agent_failure(r.facts());
  REQUIRE(why);
  CHECK(why->find("mcp__harness__harness_worker_report") != std::string::npos);
}

TEST_CASE("a harness MCP server that failed to connect fails the attempt") {
  ClaudeStreamReader r;
  r.feed_line(R"({"type":"system","subtype":"init","mcp_servers":[{"name":"harness","status":"failed"}]})");
  r.feed_line(R"({"type":"result","subtype":"success","is_error":false})");
  REQUIRE(agent_failure(r.facts()));
}

TEST_CASE("garbage lines are counted and a stream without a result is a failure") {
  ClaudeStreamReader r;
  r.feed_line("Error: something printed plain text");
  r.feed_line("{not json");
  r.feed_line("");
  CHECK(r.facts().non_json_lines == 2);
  auto why = agent_failure(r.facts());
  REQUIRE(why);
  CHECK(why->find("without a result") != std::string::npos);
}

TEST_CASE("an error result mentioning a rate limit is marked rate-limited") {
  ClaudeStreamReader r;
  r.feed_line(R"({"type":"result","subtype":"error_during_execution","is_error":true,"result":"API Error: 429 rate limit"})");
  CHECK(r.facts().rate_limited);
  CHECK(agent_failure(r.facts()));
}

TEST_CASE("an error result under subtype success names the error, not the subtype") {
  // What Claude Code 2.1 writes when the API connection drops mid-turn.
  ClaudeStreamReader r;
  r.feed_line(R"j({"type":"result","subtype":"success","is_error":true,"result":"API Error: Connection to the API was lost (ECONNRESET)"})j");
  auto why = agent_failure(r.facts());
  REQUIRE(why);
  CHECK(*why == "the agent ended with an error: API Error: Connection to the API was lost (ECONNRESET)");
}

TEST_CASE("an error subtype is named in the failure") {
  ClaudeStreamReader r;
  r.feed_line(R"({"type":"result","subtype":"error_max_turns","is_error":true})");
  auto why = agent_failure(r.facts());
  REQUIRE(why);
  CHECK(*why == "the agent ended with an error (error_max_turns)");
}

TEST_CASE("Codex events give tool calls and turn completion") {
  CodexEventReader r;
  r.feed_line(R"({"type":"thread.started","thread_id":"t"})");
  r.feed_line(R"({"type":"turn.started"})");
  r.feed_line(R"({"type":"item.completed","item":{"type":"mcp_tool_call","server":"harness","tool":"harness_worker_report","status":"completed"}})");
  r.feed_line(R"({"type":"turn.completed","usage":{}})");
  CHECK(r.facts().tool_calls == std::vector<std::string>{"harness.harness_worker_report"});
  CHECK(r.facts().num_turns == 1);
  CHECK_FALSE(agent_failure(r.facts()));
  CHECK(describe_usage(r.facts()) == "1 turn, cost unknown"); // Codex reports no cost: not $0.0000

  CodexEventReader retried; // a transient error the CLI recovered from is not a failure
  retried.feed_line(R"({"type":"turn.started"})");
  retried.feed_line(R"({"type":"error","message":"Reconnecting... 1/5, stream disconnected"})");
  retried.feed_line(R"({"type":"turn.completed","usage":{}})");
  CHECK_FALSE(agent_failure(retried.facts()));
  CodexEventReader gave_up;
  gave_up.feed_line(R"({"type":"error","message":"Reconnecting... 5/5"})");
  CHECK(agent_failure(gave_up.facts()) == "the agent's event stream ended without a result");

  CodexEventReader bad;
  bad.feed_line(R"({"type":"turn.failed","error":{"message":"stream error: 429"}})");
  CHECK(bad.facts().rate_limited);
  CHECK(agent_failure(bad.facts()));
}

TEST_CASE("A 429 the Codex CLI retried past is not a rate limit; only a number 429 counts") {
  CodexEventReader recovered;
  recovered.feed_line(R"({"type":"turn.started"})");
  recovered.feed_line(R"j({"type":"error","message":"Reconnecting... 1/5 (429 Too Many Requests)"})j");
  recovered.feed_line(R"({"type":"turn.completed","usage":{}})");
  CHECK_FALSE(recovered.facts().rate_limited);
  CHECK_FALSE(agent_failure(recovered.facts()));

  CodexEventReader tokens;
  tokens.feed_line(R"({"type":"turn.failed","error":{"message":"context holds 14290 tokens, limit 8192"}})");
  CHECK_FALSE(tokens.facts().rate_limited);
  ClaudeStreamReader limited;
  limited.feed_line(R"({"type":"result","subtype":"error_during_execution","is_error":true,"result":"HTTP 429 Too Many Requests"})");
  CHECK(limited.facts().rate_limited);
}

TEST_CASE("a second result line neither clears an error nor lowers the cost") {
  // Something writing into claude's stream after its result (review BB L5): the first verdict
  // and the highest cost stand, so --max-cost and the failure are not talked away.
  ClaudeStreamReader r;
  r.feed_line(k_init);
  r.feed_line(R"({"type":"result","subtype":"success","is_error":false,"num_turns":3,"total_cost_usd":9.5})");
  r.feed_line(R"({"type":"result","subtype":"success","is_error":false,"num_turns":1,"total_cost_usd":0})");
  CHECK(r.facts().cost_usd == Approx(9.5));
  CHECK(r.facts().num_turns == 3);
  ClaudeStreamReader e;
  e.feed_line(k_init);
  e.feed_line(R"({"type":"result","subtype":"error_during_execution","is_error":true,"result":"boom"})");
  e.feed_line(R"({"type":"result","subtype":"success","is_error":false})");
  REQUIRE(agent_failure(e.facts()));
  CHECK(e.facts().is_error);
}
