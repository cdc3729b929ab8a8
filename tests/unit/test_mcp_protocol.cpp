// JSON-RPC transcripts against the MCP core over pipes: framing, errors, negotiation,
// pagination, progress, cancellation, logging.
#include <catch2/catch.hpp>

#include "harness/mcp/jsonrpc.hpp"
#include "harness/mcp/server.hpp"
#include "harness/util/text.hpp"
#include "mcp_pipe_session.hpp"

#include <atomic>

using namespace harness::mcp;
using harness::mcp::test::PipeSession;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

Tool quick_tool(std::string name) {
  return Tool{name, "echoes", json::object{{"type", "object"},
                                            {"properties", json::object{{"text", json::object{{"type", "string"}}}}},
                                            {"required", json::array{"text"}},
                                            {"additionalProperties", false}},
              json::object{{"type", "object"}},
              [](const json::object& args, CallContext&) {
                return structured_result(json::object{{"echo", args.at("text")}});
              },
              Execution::inline_call, {}};
}

Server test_server() {
  Server server(ServerInfo{"test-server", "1.2.3", "", "be nice"});
  server.add_tool(quick_tool("echo"));
  server.add_tool(quick_tool("echo2"));
  server.add_tool(Tool{"boom", "throws", json::object{{"type", "object"}}, {},
                       [](const json::object&, CallContext&) -> ToolResult { throw std::runtime_error("kaput"); },
                       Execution::inline_call, {}});
  server.add_tool(Tool{"block", "waits until cancelled or 20 s", json::object{{"type", "object"}}, {},
                       [](const json::object&, CallContext& ctx) {
                         ctx.progress(0, 1, "started");
                         if (ctx.wait_cancelled_for(20s)) return error_result("cancelled");
                         return text_result("waited");
                       },
                       Execution::own_thread, {}});
  server.add_tool(Tool{"chatty", "logs at two levels", json::object{{"type", "object"}}, {},
                       [](const json::object&, CallContext& ctx) {
                         ctx.log(LogLevel::debug, "t", "debug line");
                         ctx.log(LogLevel::error, "t", "error line");
                         return text_result("done");
                       },
                       Execution::inline_call, {}});
  return server;
}

json::object error_of(const json::object& msg) { return msg.at("error").as_object(); }

}  // namespace

TEST_CASE("initialize negotiates a supported revision and falls back to the latest for an unknown one") {
  const Server server = test_server();
  PipeSession s(server);
  auto r = s.call(1, "initialize", {{"protocolVersion", "2025-06-18"}, {"capabilities", json::object{}}});
  const auto& result = r.at("result").as_object();
  CHECK(result.at("protocolVersion") == "2025-06-18");
  CHECK(result.at("serverInfo").at("name") == "test-server");
  CHECK(result.at("instructions") == "be nice");
  CHECK(result.at("capabilities").as_object().contains("tools"));
  CHECK(result.at("capabilities").as_object().contains("logging"));
  s.send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  auto r2 = s.call(2, "initialize", {{"protocolVersion", "1999-01-01"}});
  CHECK(r2.at("result").at("protocolVersion") == "2025-11-25");
  auto r3 = s.call(3, "initialize", {{"protocolVersion", "2025-03-26"}});
  CHECK(r3.at("result").at("protocolVersion") == "2025-03-26");
}

TEST_CASE("request ids are echoed with their JSON type") {
  const Server server = test_server();
  PipeSession s(server);
  s.send(R"({"jsonrpc":"2.0","id":"7","method":"ping"})");
  CHECK(s.read_line().value() == R"({"jsonrpc":"2.0","id":"7","result":{}})");
  s.send(R"({"jsonrpc":"2.0","id":7,"method":"ping"})");
  CHECK(s.read_line().value() == R"({"jsonrpc":"2.0","id":7,"result":{}})");
}

TEST_CASE("malformed input gets parse and invalid-request errors with a null id and the session goes on") {
  const Server server = test_server();
  PipeSession s(server);
  s.send("{not json");
  auto parse = s.read_message();
  CHECK(parse.at("id").is_null());
  CHECK(error_of(parse).at("code") == -32700);
  s.send(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])");
  auto batch = s.read_message();
  CHECK(batch.at("id").is_null());
  CHECK(error_of(batch).at("code") == -32600);
  s.send(R"({"jsonrpc":"1.0","id":4,"method":"ping"})");
  auto version = s.read_message();
  CHECK(version.at("id") == 4);
  CHECK(error_of(version).at("code") == -32600);
  CHECK(s.call(5, "ping").at("result").as_object().empty());
}

TEST_CASE("server/discover and other unknown methods answer -32601 and the session keeps serving") {
  const Server server = test_server();
  PipeSession s(server);
  CHECK(error_of(s.call(1, "server/discover")).at("code") == -32601);
  CHECK(s.call(2, "initialize", {{"protocolVersion", "2025-11-25"}}).contains("result"));
}

TEST_CASE("a line over the length cap is rejected with its id and the next line is still read") {
  const Server server = test_server();
  ServeOptions options;
  options.max_line_bytes = 64;
  PipeSession s(server, options);
  s.send(R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":")" + std::string(200, 'x') + "\"}}");
  auto rejected = s.read_message();
  CHECK(rejected.at("id") == 1);
  CHECK(error_of(rejected).at("code") == -32600);
  // An id past the first 64 KiB is not searched for: null, as before.
  s.send(R"({"jsonrpc":"2.0","method":"ping","params":{"pad":")" + std::string(70 * 1024, 'x') + R"("},"id":3})");
  CHECK(s.read_message().at("id").is_null());
  CHECK(s.call(2, "ping").contains("result"));
}

TEST_CASE("a request with an unpaired surrogate escape or invalid UTF-8 gets -32700 with its id") {
  const Server server = test_server();
  PipeSession s(server);
  s.send(R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a\udc80b"}}})");
  auto surrogate = s.read_message();
  CHECK(surrogate.at("id") == 5);
  CHECK(error_of(surrogate).at("code") == -32700);
  CHECK(std::string(error_of(surrogate).at("message").as_string()).find("surrogate") != std::string::npos);
  // The id after the bad text, as a client that writes it last sends it.
  s.send(R"({"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":"\ud800"}},"id":"s6"})");
  CHECK(s.read_message().at("id") == "s6");
  s.send("{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":"
         "{\"text\":\"a\xff\xfe" "b\"}},\"id\":7}");
  auto bytes = s.read_message();
  CHECK(bytes.at("id") == 7);
  CHECK(error_of(bytes).at("code") == -32700);
  CHECK(std::string(error_of(bytes).at("message").as_string()).find("UTF-8") != std::string::npos);
  CHECK(s.call(8, "ping").contains("result"));
}

TEST_CASE("tools/list pages with an opaque cursor and rejects a bad one") {
  const Server server = test_server();
  ServeOptions options;
  options.page_size = 2;
  PipeSession s(server, options);
  std::vector<std::string> names;
  json::object params;
  for (int page = 0; page < 10; ++page) {
    auto r = s.call(page, "tools/list", params).at("result").as_object();
    for (const auto& t : r.at("tools").as_array()) {
      names.emplace_back(t.at("name").as_string());
      CHECK(t.as_object().contains("inputSchema"));
    }
    if (!r.contains("nextCursor")) break;
    params = {{"cursor", r.at("nextCursor")}};
  }
  CHECK(names == std::vector<std::string>{"echo", "echo2", "boom", "block", "chatty"});
  CHECK(error_of(s.call(99, "tools/list", {{"cursor", "bogus"}})).at("code") == -32602);
}

TEST_CASE("tools/call returns content and structuredContent; failures are results with isError") {
  const Server server = test_server();
  PipeSession s(server);
  auto ok = s.call(1, "tools/call", {{"name", "echo"}, {"arguments", json::object{{"text", "hi"}}}}).at("result").as_object();
  CHECK(ok.at("structuredContent").at("echo") == "hi");
  CHECK(ok.at("content").at(0).at("type") == "text");
  CHECK_FALSE(ok.contains("isError"));
  auto bad_args = s.call(2, "tools/call", {{"name", "echo"}, {"arguments", json::object{{"text", 3}}}}).at("result").as_object();
  CHECK(bad_args.at("isError") == true);
  auto missing = s.call(3, "tools/call", {{"name", "echo"}, {"arguments", json::object{}}}).at("result").as_object();
  CHECK(missing.at("isError") == true);
  auto extra = s.call(4, "tools/call", {{"name", "echo"}, {"arguments", json::object{{"text", "a"}, {"x", 1}}}}).at("result").as_object();
  CHECK(extra.at("isError") == true);
  auto thrown = s.call(5, "tools/call", {{"name", "boom"}}).at("result").as_object();
  CHECK(thrown.at("isError") == true);
  CHECK(std::string(thrown.at("content").at(0).at("text").as_string()).find("kaput") != std::string::npos);
  CHECK(error_of(s.call(6, "tools/call", {{"name", "nope"}})).at("code") == -32602);
}

TEST_CASE("a blocked call sends progress, stops on notifications/cancelled and is never answered") {
  const Server server = test_server();
  PipeSession s(server);
  s.send(R"({"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"block","_meta":{"progressToken":"p1"}}})");
  auto progress = s.read_message();
  CHECK(progress.at("method") == "notifications/progress");
  CHECK(progress.at("params").at("progressToken") == "p1");
  // Other requests are answered while the call blocks.
  CHECK(s.call(11, "ping").contains("result"));
  const auto start = std::chrono::steady_clock::now();
  s.send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10,"reason":"test"}})");
  // The next message must be the ping's answer, not a response to id 10.
  auto next = s.call(12, "ping");
  CHECK(next.at("id") == 12);
  s.close_input();
  s.join();
  CHECK(std::chrono::steady_clock::now() - start < 10s);
  CHECK_FALSE(s.read_line(200ms).has_value());
}

TEST_CASE("a call without a progress token sends no progress") {
  std::atomic<bool> wanted{true};  // Catch assertions are not thread-safe: check on this thread
  Server server(ServerInfo{});
  server.add_tool(Tool{"p", "progress", json::object{{"type", "object"}}, {},
                       [&wanted](const json::object&, CallContext& ctx) {
                         wanted = ctx.wants_progress();
                         ctx.progress(1, 2);
                         return text_result("ok");
                       },
                       Execution::own_thread, {}});
  PipeSession s(server);
  s.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"p"}})");
  CHECK(s.read_message().at("id") == 1);
  CHECK_FALSE(wanted.load());
}

TEST_CASE("stdin EOF ends the session promptly even with a blocked call in flight") {
  const Server server = test_server();
  PipeSession s(server);
  s.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block"}})");
  CHECK(s.call(2, "ping").contains("result"));
  const auto start = std::chrono::steady_clock::now();
  s.close_input();
  s.join();
  CHECK(std::chrono::steady_clock::now() - start < 5s);
}

TEST_CASE("logging/setLevel filters notifications/message and rejects unknown levels") {
  const Server server = test_server();
  PipeSession s(server);
  CHECK(s.call(1, "logging/setLevel", {{"level", "debug"}}).contains("result"));
  s.send(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"chatty"}})");
  CHECK(s.read_message().at("params").at("data") == "debug line");
  CHECK(s.read_message().at("params").at("level") == "error");
  CHECK(s.read_message().at("id") == 2);
  CHECK(s.call(3, "logging/setLevel", {{"level", "warning"}}).contains("result"));
  s.send(R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"chatty"}})");
  CHECK(s.read_message().at("params").at("level") == "error");
  CHECK(s.read_message().at("id") == 4);
  CHECK(error_of(s.call(5, "logging/setLevel", {{"level", "loud"}})).at("code") == -32602);
}

TEST_CASE("a tool can ask the client and gets the client's answer") {
  Server server(ServerInfo{});
  server.add_tool(Tool{"ask", "asks", json::object{{"type", "object"}}, {},
                       [](const json::object&, CallContext& ctx) {
                         auto answer = ctx.request_client("sampling/createMessage", json::object{}, 5s);
                         return answer ? text_result(json::serialize(*answer)) : error_result(answer.error());
                       },
                       Execution::own_thread, {}});
  PipeSession s(server);
  s.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}})");
  auto request = s.read_message();
  CHECK(request.at("method") == "sampling/createMessage");
  s.send(json::object{{"jsonrpc", "2.0"}, {"id", request.at("id")}, {"result", json::object{{"x", 1}}}});
  auto done = s.read_message();
  CHECK(done.at("id") == 1);
  CHECK(done.at("result").at("content").at(0).at("text") == R"({"x":1})");
}

TEST_CASE("parse_line classifies requests, notifications and responses") {
  CHECK(std::holds_alternative<Request>(parse_line(R"({"jsonrpc":"2.0","id":1,"method":"a"})")));
  CHECK(std::holds_alternative<Notification>(parse_line(R"({"jsonrpc":"2.0","method":"a"})")));
  CHECK(std::holds_alternative<Response>(parse_line(R"({"jsonrpc":"2.0","id":1,"result":{}})")));
  CHECK(std::holds_alternative<Malformed>(parse_line(R"({"jsonrpc":"2.0","id":1.5,"method":"a"})")));
  CHECK(std::holds_alternative<Malformed>(parse_line("7")));
}

TEST_CASE("request_id_of reads a top-level id from text that does not parse") {
  CHECK(request_id_of(R"({"jsonrpc":"2.0","id":12,"method":"a","params":{"x":"\udc80"}})") == json::value(12));
  CHECK(request_id_of(R"({"params":{"id":1,"x":"\udc80"},"id":"b"})") == json::value("b"));
  CHECK(request_id_of(R"({"jsonrpc":"2.0","id":"pre)") == std::nullopt);  // cut inside the id
  CHECK(request_id_of(R"({"jsonrpc":"2.0","id":[1],"method":"a")") == std::nullopt);
  CHECK(request_id_of(R"({"jsonrpc":"2.0","id":1.5,"method":"a")") == std::nullopt);
  CHECK(request_id_of(R"({"jsonrpc":"2.0","id":3,"result":"\udc80"})") == std::nullopt);  // a response
  // An escaped backslash before "udc80" is text, not an escape: the line is fine up to the cut.
  CHECK(request_id_of(R"({"params":{"x":"\\udc80"},"id":4,)") == json::value(4));
}

TEST_CASE("every message written is valid UTF-8, whatever bytes a string held") {
  // Review II F6: a project path with invalid UTF-8 went raw into a tool's result, and a strict
  // client refused the line.
  const std::string bad = "/p/bad\xff\xfe" "bytes";
  for (const auto& line : {make_result(1, json::object{{"path", bad}}), make_error(2, RpcError::invalid_params, bad),
                           make_notification("notifications/message", json::object{{"data", bad}})}) {
    INFO(line);
    CHECK(harness::util::valid_utf8(line));
    CHECK(line.find("bad\xEF\xBF\xBD\xEF\xBF\xBD" "bytes") != std::string::npos); // each bad byte a U+FFFD
    CHECK_NOTHROW(json::parse(line));
  }
}
