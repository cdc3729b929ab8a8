// The harness_* tools: catalog, options, worker authentication, and the report → pending →
// respond → await round trip between a worker server and an orchestrator server.
#include <catch2/catch.hpp>

#include "harness/mcp/app.hpp"
#include "harness/mcp/tool_store.hpp"
#include "harness/store/checkpoint_files.hpp"
#include "mcp_pipe_session.hpp"
#include "spec_test_util.hpp"

#include <filesystem>
#include <fstream>
#include <set>

using namespace harness::mcp;
using harness::mcp::test::PipeSession;
namespace json = boost::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

struct TempProject {
  fs::path root;
  TempProject() {
    char tmpl[] = "/tmp/harness-mcp-test-XXXXXX";
    root = ::mkdtemp(tmpl);
  }
  ~TempProject() { fs::remove_all(root); }
};

json::object call_tool(PipeSession& s, int id, std::string_view name, json::object args = {}) {
  return s.call(id, "tools/call", {{"name", name}, {"arguments", std::move(args)}}).at("result").as_object();
}

bool is_error(const json::object& result) {
  const json::value* e = result.if_contains("isError");
  return e && e->as_bool();
}

std::string text_of(const json::object& result) { return std::string(result.at("content").at(0).at("text").as_string()); }

McpOptions project_options(const fs::path& root, Role role) {
  McpOptions o;
  o.role = role;
  o.project = root;
  return o;
}

}  // namespace

TEST_CASE("the catalog lists every harness tool with input and output schemas") {
  const std::set<std::string> expected = {
      "harness_start_session", "harness_list_sessions", "harness_get_output", "harness_wait_for_state",
      "harness_respond", "harness_get_pending", "harness_get_project_state", "harness_end_session",
      "harness_sync_state", "harness_set_state", "harness_get_state", "harness_mark_phase_verified",
      "harness_worker_get_task", "harness_worker_report", "harness_worker_await", "harness_worker_commit"};
  std::set<std::string> names;
  for (const Tool& tool : harness_tool_catalog()) {
    names.insert(tool.name);
    CHECK(tool.input_schema.at("type") == "object");
    CHECK(tool.output_schema.at("type") == "object");
    CHECK(tool.description.size() < 100);  // every description costs model context
  }
  CHECK(names == expected);
}

TEST_CASE("options select the role, project, tool subset and reject unknown flags") {
  auto o = parse_options({"--worker", "--project", "/p", "--tools=a,b"});
  REQUIRE(o.has_value());
  CHECK(o->role == Role::worker);
  CHECK(o->project == "/p");
  CHECK(o->tools == std::vector<std::string>{"a", "b"});
  CHECK(parse_options({"--tools", "a, b ,,c"})->tools == std::vector<std::string>{"a", "b", "c"});
  CHECK_FALSE(parse_options({"--bogus"}).has_value());
  CHECK_FALSE(parse_options({"--project"}).has_value());
  CHECK(parse_options({"--conformance-fixture"})->role == Role::conformance_fixture);
}

TEST_CASE("--tools exposes only the named tools") {
  TempProject p;
  McpOptions o = project_options(p.root, Role::orchestrator);
  o.tools = {"harness_get_state", "harness_set_state"};
  const Server server = build_server(o, {});
  REQUIRE(server.tools().size() == 2);
  CHECK(server.tools()[0].name == "harness_set_state");
  CHECK_FALSE(unusable_options(o, {}));
}

TEST_CASE("harness-mcp refuses a --project that is no directory and a --tools name no tool has") {
  TempProject p;
  McpOptions o = project_options(p.root, Role::orchestrator);
  o.project = p.root / "missing";
  CHECK(unusable_options(o, {}) == "--project " + o.project.string() + " is not a directory");
  o = project_options(p.root, Role::worker);
  o.tools = {"harness_worker_report", "harness_get_state", "nope"};
  const auto why = unusable_options(o, {});
  REQUIRE(why);
  // Names the orchestrator's tool too: the worker role does not have it.
  CHECK(why->starts_with("--tools names no tool of this server: harness_get_state, nope (it has harness_worker_"));
  CHECK_FALSE(fs::exists(p.root / "missing"));
}

TEST_CASE("a worker without a session identity still lists tools but its calls fail clearly") {
  TempProject p;
  const Server server = build_server(project_options(p.root, Role::worker), {});
  PipeSession s(server);
  CHECK(s.call(1, "initialize", {{"protocolVersion", "2025-11-25"}}).contains("result"));
  CHECK(s.call(2, "tools/list").at("result").at("tools").as_array().size() == 4);
  auto r = call_tool(s, 3, "harness_worker_get_task");
  CHECK(is_error(r));
  CHECK(text_of(r).find("HARNESS_SESSION_ID") != std::string::npos);
  CHECK_FALSE(fs::exists(p.root / ".orchestration"));  // nothing written for a refused call
}

TEST_CASE("a worker with a wrong token is refused") {
  TempProject p;
  ToolStore store(p.root);
  REQUIRE(store.create_session("s1", "secret", "01-01"));
  const Server server = build_server(project_options(p.root, Role::worker), WorkerIdentity{"s1", "wrong", ""});
  PipeSession s(server);
  auto r = call_tool(s, 1, "harness_worker_report", {{"type", "task_started"}});
  CHECK(is_error(r));
  CHECK(text_of(r).find("does not match") != std::string::npos);
}

TEST_CASE("orchestrator tools that need the run loop say it is not running") {
  TempProject p;
  const Server server = build_server(project_options(p.root, Role::orchestrator), {});
  PipeSession s(server);
  auto r = call_tool(s, 1, "harness_start_session", {{"plan_id", "01-01"}});
  CHECK(is_error(r));
  CHECK(text_of(r).find("orchestrator not running") != std::string::npos);
  CHECK(is_error(call_tool(s, 2, "harness_end_session", {{"session_id", "x"}})));
}

TEST_CASE("state, phases and the projection round-trip through the store") {
  TempProject p;
  const Server server = build_server(project_options(p.root, Role::orchestrator), {});
  PipeSession s(server);
  CHECK(call_tool(s, 1, "harness_get_state").at("structuredContent").at("state").as_object().empty());
  CHECK_FALSE(fs::exists(p.root / ".orchestration"));  // reads create nothing
  CHECK_FALSE(is_error(call_tool(s, 2, "harness_set_state", {{"key", "phase"}, {"value", json::object{{"n", 2}}}})));
  CHECK(fs::exists(p.root / ".orchestration" / ".gitignore")); // the store made here holds tokens: never in git (review KK F3)
  CHECK(call_tool(s, 3, "harness_get_state", {{"key", "phase"}}).at("structuredContent").at("state").at("phase").at("n") == 2);
  CHECK(is_error(call_tool(s, 4, "harness_get_state", {{"key", "nope"}})));
  CHECK_FALSE(is_error(call_tool(s, 5, "harness_mark_phase_verified", {{"phase", "02"}, {"note", "ok"}})));
  auto state = call_tool(s, 6, "harness_get_project_state").at("structuredContent").as_object();
  CHECK(state.at("verified_phases").at(0).at("phase") == "02");
  CHECK_FALSE(is_error(call_tool(s, 7, "harness_sync_state")));
  CHECK(fs::exists(p.root / ".orchestration" / "state.json"));
  // The verified phases cannot be overwritten through the free-form state.
  CHECK(is_error(call_tool(s, 8, "harness_set_state", {{"key", "verified_phases"}, {"value", 1}})));
  auto after = call_tool(s, 9, "harness_get_project_state").at("structuredContent").as_object();
  CHECK(after.at("verified_phases").as_array().size() == 1);
}

TEST_CASE("a phase note needs a phase number, and with a spec a phase of that spec") {
  TempProject p;
  fs::create_directories(p.root / "docs/specs/SPC-001-a/planning/plans/01-core");
  const Server server = build_server(project_options(p.root, Role::orchestrator), {});
  PipeSession s(server);
  auto banana = call_tool(s, 1, "harness_mark_phase_verified", {{"phase", "banana"}});
  CHECK(is_error(banana));
  CHECK(text_of(banana) == "phase 'banana' is not a phase number (like 01 or 02.1)");
  CHECK(is_error(call_tool(s, 2, "harness_mark_phase_verified", {{"phase", ""}})));
  auto no_spec = call_tool(s, 3, "harness_mark_phase_verified", {{"phase", "01"}, {"spec", "SPC-009-x"}});
  CHECK(text_of(no_spec) == "no spec 'SPC-009-x' under docs/specs");
  CHECK(is_error(call_tool(s, 4, "harness_mark_phase_verified", {{"phase", "01"}, {"spec", "../docs"}})));
  auto no_phase = call_tool(s, 5, "harness_mark_phase_verified", {{"phase", "02"}, {"spec", "SPC-001-a"}});
  CHECK(text_of(no_phase) == "spec SPC-001-a has no phase 02 (no phase directory under docs/specs/SPC-001-a/planning/plans)");
  CHECK_FALSE(fs::exists(p.root / ".orchestration"));  // nothing refused was written
  auto ok = call_tool(s, 6, "harness_mark_phase_verified", {{"phase", "1"}, {"spec", "SPC-001-a"}, {"note", "by hand"}});
  REQUIRE_FALSE(is_error(ok));
  CHECK(ok.at("structuredContent").at("phase") == "01");
  CHECK(ok.at("structuredContent").at("spec") == "SPC-001-a");
  CHECK_FALSE(is_error(call_tool(s, 7, "harness_mark_phase_verified", {{"phase", "01"}})));
  auto phases = call_tool(s, 8, "harness_get_project_state").at("structuredContent").at("verified_phases").as_array();
  REQUIRE(phases.size() == 2);  // one spec's phase 01 and a note without a spec are two notes
  CHECK(phases[0].at("phase") == "01");
  CHECK_FALSE(phases[0].as_object().contains("spec"));
  CHECK(phases[1].at("spec") == "SPC-001-a");
  CHECK(phases[1].at("note") == "by hand");
  // What it does is said where a client reads it.
  for (const Tool& tool : harness_tool_catalog())
    if (tool.name == "harness_mark_phase_verified") CHECK(tool.description.find("VERIFICATION.md") != std::string::npos);
}

TEST_CASE("a worker report is answered by the orchestrator and its await returns the answer") {
  TempProject p;
  ToolStore seed(p.root);
  REQUIRE(seed.create_session("s1", "tok", "01-02"));
  const Server worker = build_server(project_options(p.root, Role::worker), WorkerIdentity{"s1", "tok", ""});
  const Server orchestrator = build_server(project_options(p.root, Role::orchestrator), {});
  PipeSession w(worker);
  PipeSession o(orchestrator);
  auto task = call_tool(w, 1, "harness_worker_get_task").at("structuredContent").as_object();
  CHECK(task.at("task").at("task_id") == "01-02");
  auto invalid = call_tool(w, 2, "harness_worker_report", {{"type", "decision_needed"}, {"payload", json::object{}}});
  CHECK(is_error(invalid));
  CHECK(text_of(invalid).find("question") != std::string::npos);  // the protocol codec names the field
  auto report = call_tool(w, 2, "harness_worker_report",
                          {{"type", "decision_needed"},
                           {"payload", json::object{{"question", "A or B?"}, {"options", json::array{"A", "B"}}}}});
  REQUIRE_FALSE(is_error(report));
  const std::string message(report.at("structuredContent").at("message_id").as_string());
  // The worker blocks; meanwhile the orchestrator sees and answers the question.
  w.send(json::object{{"jsonrpc", "2.0"}, {"id", 3}, {"method", "tools/call"},
                      {"params", json::object{{"name", "harness_worker_await"}, {"arguments", json::object{{"timeout_seconds", 20}}}}}});
  auto pending = call_tool(o, 1, "harness_get_pending").at("structuredContent").at("messages").as_array();
  REQUIRE(pending.size() == 1);
  CHECK(pending[0].at("payload").at("question") == "A or B?");
  auto sessions = call_tool(o, 2, "harness_list_sessions").at("structuredContent").at("sessions").as_array();
  CHECK(sessions.at(0).at("pending") == 1);
  CHECK_FALSE(is_error(call_tool(o, 3, "harness_respond",
                                 {{"message_id", message}, {"response", json::object{{"type", "decision_made"}, {"choice", "B"}}}})));
  CHECK(is_error(call_tool(o, 4, "harness_respond", {{"message_id", message}, {"response", json::object{}}})));
  auto answer = w.read_message(10000ms);
  INFO(json::serialize(answer));
  CHECK(answer.at("id") == 3);
  CHECK(answer.at("result").at("structuredContent").at("response").at("choice") == "B");
}

TEST_CASE("a worker's await tells the orchestrator how long it waits, unless the answer is there") {
  TempProject p;
  ToolStore seed(p.root);
  REQUIRE(seed.create_session("s1", "tok", "execute:01-01"));
  const Server worker = build_server(project_options(p.root, Role::worker), WorkerIdentity{"s1", "tok"});
  PipeSession w(worker);
  auto report = call_tool(w, 1, "harness_worker_report",
                          {{"type", "decision_needed"}, {"payload", json::object{{"question", "A or B?"}, {"options", json::array{"A", "B"}}}}});
  const std::string message(report.at("structuredContent").at("message_id").as_string());
  auto waited = call_tool(w, 2, "harness_worker_await", {{"message_id", message}, {"timeout_seconds", 0.2}});
  CHECK_FALSE(waited.at("structuredContent").at("answered").as_bool());
  REQUIRE(seed.respond(message, json::object{{"choice", "B"}}));
  auto answered = call_tool(w, 3, "harness_worker_await", {{"message_id", message}, {"timeout_seconds", 5}});
  CHECK(answered.at("structuredContent").at("answered").as_bool());
  // Reporting it by hand is not a report type.
  CHECK(is_error(call_tool(w, 4, "harness_worker_report",
                           {{"type", "awaiting_answer"}, {"payload", json::object{{"message_id", message}, {"timeout_ms", 1000}}}})));
  auto store = harness::store::Store::open_project(p.root);
  REQUIRE(store);
  auto messages = store->messages_after(0);
  REQUIRE(messages);
  std::vector<std::string> awaits;
  for (const auto& m : *messages)
    if (m.type == "awaiting_answer") {
      CHECK(m.status == harness::store::message_received); // nobody answers it
      awaits.push_back(m.payload);
    }
  // One for the wait that blocked; none for the one the answer was already there for.
  CHECK(awaits == std::vector<std::string>{json::serialize(json::object{{"message_id", message}, {"timeout_ms", 200}})});
}

TEST_CASE("a worker commits its plan's files through harness_worker_commit, and hears why a commit is refused") {
  TempProject p;
  const fs::path root = fs::canonical(p.root);
  const fs::path spec = harness::test::example_project(root);
  ToolStore seed(root);
  REQUIRE(seed.create_session("s1", "tok", "execute:01-01"));
  const Server worker = build_server(project_options(root, Role::worker), WorkerIdentity{"s1", "tok", spec.string()});
  PipeSession w(worker);
  std::ofstream(root / "app.py") << "x\n";
  auto made = call_tool(w, 1, "harness_worker_commit", {{"message", "feat(01-01): package layout"}, {"files", json::array{"app.py"}}, {"task", 1}});
  INFO(json::serialize(made));
  REQUIRE_FALSE(is_error(made));
  const auto& out = made.at("structuredContent").as_object();
  CHECK(out.at("commit").as_string().size() == 40);
  CHECK(out.at("undeclared") == json::array{"app.py"});
  CHECK(harness::test::sh(root, "git log -1 --format=%B") ==
        "feat(01-01): package layout\n\nPlan: 01-01, Task: 1/2\nSpec: SPC-001-task-tracker\n\n");
  // Task 0 is no task (a worker counting from 0): refused, not taken for the SUMMARY commit.
  std::ofstream(root / "app.py") << "y\n";
  auto zero = call_tool(w, 3, "harness_worker_commit", {{"message", "m"}, {"files", json::array{"app.py"}}, {"task", 0}});
  CHECK(is_error(zero));
  CHECK(text_of(zero).find("task") != std::string::npos);
  CHECK(harness::test::sh(root, "git log -1 --format=%s") == "feat(01-01): package layout\n");
  auto outside = call_tool(w, 2, "harness_worker_commit", {{"message", "m"}, {"files", json::array{"../x"}}});
  CHECK(is_error(outside));
  CHECK(text_of(outside).find("outside the project") != std::string::npos);
  const Server stranger = build_server(project_options(root, Role::worker), WorkerIdentity{"s1", "wrong", spec.string()});
  PipeSession x(stranger);
  CHECK(is_error(call_tool(x, 1, "harness_worker_commit", {{"message", "m"}, {"files", json::array{"app.py"}}})));
  // Once the session has ended, its token commits nothing (a process the worker left behind).
  REQUIRE(seed.set_status("s1", "completed"));
  auto late = call_tool(w, 4, "harness_worker_commit", {{"message", "m"}, {"files", json::array{"app.py"}}, {"task", 2}});
  CHECK(is_error(late));
  CHECK(text_of(late).find("session s1 has ended (completed)") != std::string::npos);
  CHECK(harness::test::sh(root, "git log -1 --format=%s") == "feat(01-01): package layout\n");
}

TEST_CASE("harness_get_pending lists the orchestrator's checkpoints and harness_respond answers them") {
  TempProject p;
  const fs::path state = p.root / ".orchestration";
  harness::store::CheckpointRecord r;
  r.id = "cp-SPC-001-x-verify-plan-02-03-abc-1";
  r.task = "verify-plan:02-03";
  r.spec = "SPC-001-x";
  r.head = "0123456789abcdef0123456789abcdef01234567";
  r.question = "verification of 02-03: automated checks passed (2/2 checks passed)";
  r.run = "abc"; // a run that has ended: the next one reads the answer
  r.opened_at = "2026-01-01T00:00:00Z";
  REQUIRE(harness::store::write_open_checkpoint(state, r));
  auto stale = r; // a worker's question of that run: nobody can answer it any more
  stale.id = "cp-execute-01-01-abc-2";
  stale.task = "execute:01-01";
  stale.asker = harness::store::CheckpointAsker::worker;
  REQUIRE(harness::store::write_open_checkpoint(state, stale));
  const Server orchestrator = build_server(project_options(p.root, Role::orchestrator), {});
  PipeSession o(orchestrator);
  auto pending = call_tool(o, 1, "harness_get_pending").at("structuredContent").at("messages").as_array();
  REQUIRE(pending.size() == 1);
  CHECK(pending[0].at("message_id").as_string() == r.id);
  CHECK(pending[0].at("type") == "checkpoint");
  CHECK(pending[0].at("task_id") == "verify-plan:02-03");
  CHECK(pending[0].at("spec") == "SPC-001-x"); // every spec has a verify-plan:02-03
  CHECK(pending[0].at("payload").at("head").as_string() == r.head);
  CHECK(pending[0].at("payload").at("question").as_string() == r.question);
  // The overview counts what harness_get_pending lists, the orchestrator's question included.
  CHECK(call_tool(o, 7, "harness_get_project_state").at("structuredContent").at("pending_messages") == 1);
  // Only a session's questions when one is named: a checkpoint belongs to no session.
  CHECK(call_tool(o, 2, "harness_get_pending", {{"session_id", "s1"}}).at("structuredContent").at("messages").as_array().empty());
  // A word that is neither approve nor refuse decides nothing; the stale one is refused.
  CHECK(is_error(call_tool(o, 3, "harness_respond", {{"message_id", r.id}, {"response", json::object{{"answer", "maybe"}}}})));
  auto refused = call_tool(o, 4, "harness_respond", {{"message_id", stale.id}, {"response", json::object{{"verdict", "approved"}}}});
  CHECK(is_error(refused));
  CHECK(text_of(refused).find("is stale") != std::string::npos);
  auto done = call_tool(o, 5, "harness_respond",
                        {{"message_id", r.id}, {"response", json::object{{"verdict", "approved"}, {"feedback", "looked"}}}});
  REQUIRE_FALSE(is_error(done));
  auto answer = harness::store::read_checkpoint_answer(state, r.id);
  REQUIRE(answer);
  CHECK(answer->approved);
  CHECK(answer->note == "looked");
  CHECK(call_tool(o, 6, "harness_get_pending").at("structuredContent").at("messages").as_array().empty());
}

/// A worker's decision ("Which greeting?": hello / hi there) in the store, and the checkpoint a
/// running orchestrate (its lock held) opened for it, as respond --list shows it.
struct AskedQuestion {
  TempProject p;
  fs::path state = p.root / ".orchestration";
  ToolStore seed{p.root};
  std::string message;
  std::optional<harness::store::RunLock> lock;
  harness::store::CheckpointRecord r;
  AskedQuestion() {
    REQUIRE(seed.create_session("s1", "tok", "execute:01-01"));
    auto m = seed.add_message("s1", "decision_needed", json::object{{"question", "Which greeting?"}, {"options", json::array{"hello", "hi there"}}});
    REQUIRE(m);
    message = *m;
    // The run that opened the checkpoint is alive: its answer is read.
    auto l = harness::store::RunLock::acquire(state, {0, "docs/specs/SPC-001-x", "", "abc"});
    REQUIRE(l);
    lock.emplace(std::move(*l));
    r.id = "cp-SPC-001-x-execute-01-01-abc-1";
    r.task = "execute:01-01";
    r.spec = "SPC-001-x";
    r.question = "decision_needed: Which greeting?";
    r.run = "abc";
    r.asker = harness::store::CheckpointAsker::worker;
    r.asks = harness::store::CheckpointAsks::decision;
    r.options = {"hello", "hi there"};
    r.message_id = message;
    r.opened_at = "2026-01-01T00:00:00Z";
    REQUIRE(harness::store::write_open_checkpoint(state, r));
  }
};

TEST_CASE("a worker's question is answered over MCP by the checkpoint id respond --list shows, as respond answers it") {
  AskedQuestion q;
  auto& [p, state, seed, message_id, lock, r] = q;
  const auto* message = &message_id;
  const Server orchestrator = build_server(project_options(p.root, Role::orchestrator), {});
  PipeSession o(orchestrator);
  // Listed once, as the worker's message, with the id respond --list shows.
  auto pending = call_tool(o, 1, "harness_get_pending").at("structuredContent").at("messages").as_array();
  REQUIRE(pending.size() == 1);
  CHECK(pending[0].at("message_id").as_string() == *message);
  CHECK(pending[0].at("checkpoint_id").as_string() == r.id);
  // An answer that is none of the options is refused naming them; the option's text is the choice.
  auto other = call_tool(o, 2, "harness_respond", {{"message_id", r.id}, {"response", json::object{{"choice", "howdy"}}}});
  REQUIRE(is_error(other));
  CHECK(text_of(other).find("1 hello, 2 'hi there'") != std::string::npos);
  auto chose = call_tool(o, 3, "harness_respond", {{"message_id", r.id}, {"response", json::object{{"choice", "hi there"}}}});
  REQUIRE_FALSE(is_error(chose));
  auto answer = harness::store::read_checkpoint_answer(state, r.id);
  REQUIRE(answer);
  CHECK(answer->approved);
  CHECK(answer->choice == "hi there");
  CHECK(answer->by.find("harness_respond over MCP") != std::string::npos);
}

TEST_CASE("a worker's question answered over MCP by its message id is checked as by its checkpoint id") {
  AskedQuestion q;
  auto& [p, state, seed, message_id, lock, r] = q;
  const auto* message = &message_id;
  const Server orchestrator = build_server(project_options(p.root, Role::orchestrator), {});
  PipeSession o(orchestrator);
  // The id harness_get_pending lists first is the message's: it must not bypass the options.
  auto other = call_tool(o, 1, "harness_respond", {{"message_id", *message}, {"response", json::object{{"choice", "bonjour"}}}});
  REQUIRE(is_error(other));
  CHECK(text_of(other).find("1 hello, 2 'hi there'") != std::string::npos);
  CHECK(seed.pending("s1")->size() == 1); // the worker got nothing
  auto chose = call_tool(o, 2, "harness_respond", {{"message_id", *message}, {"response", json::object{{"choice", "2"}}}});
  REQUIRE_FALSE(is_error(chose));
  CHECK(chose.at("structuredContent").at("message_id").as_string() == *message);
  auto answer = harness::store::read_checkpoint_answer(state, r.id); // through the checkpoint, which the run reads
  REQUIRE(answer);
  CHECK(answer->choice == "hi there");
}

TEST_CASE("a worker's question with no run to show it is answered over MCP checked, in the run's own form") {
  TempProject p;
  ToolStore seed(p.root);
  REQUIRE(seed.create_session("s1", "tok", "execute:01-01"));
  auto decision = seed.add_message("s1", "decision_needed", json::object{{"question", "Which?"}, {"options", json::array{"A", "B"}}});
  auto action = seed.add_message("s1", "action_needed", json::object{{"action", "plug it in"}, {"reason", "hardware"}});
  auto progress = seed.add_message("s1", "progress_update", json::object{{"message", "working"}});
  REQUIRE(decision);
  REQUIRE(action);
  REQUIRE(progress);
  const Server orchestrator = build_server(project_options(p.root, Role::orchestrator), {});
  PipeSession o(orchestrator);
  CHECK(is_error(call_tool(o, 1, "harness_respond", {{"message_id", *decision}, {"response", json::object{{"choice", "C"}}}})));
  CHECK(is_error(call_tool(o, 2, "harness_respond", {{"message_id", *action}, {"response", json::object{{"outcome", "maybe"}}}})));
  CHECK(is_error(call_tool(o, 3, "harness_respond", {{"message_id", *progress}, {"response", json::object{{"choice", "A"}}}})));
  CHECK(is_error(call_tool(o, 4, "harness_respond", {{"message_id", "no-such-id"}, {"response", json::object{{"choice", "A"}}}})));
  REQUIRE_FALSE(is_error(call_tool(o, 5, "harness_respond", {{"message_id", *decision}, {"response", json::object{{"choice", "2"}, {"note", "n"}}}})));
  REQUIRE_FALSE(is_error(call_tool(o, 6, "harness_respond", {{"message_id", *action}, {"response", json::object{{"outcome", "done"}}}})));
  // What the worker's await returns: the option's text, as when the run answers.
  auto got = seed.response_of("s1", *decision);
  REQUIRE(got);
  REQUIRE(got->has_value());
  CHECK((*got)->at("choice") == "B");
  CHECK((*got)->at("note") == "n");
  auto done = seed.response_of("s1", *action);
  REQUIRE(done);
  REQUIRE(done->has_value());
  CHECK((*done)->at("outcome") == "done");
  // A second answer finds it answered.
  CHECK(is_error(call_tool(o, 7, "harness_respond", {{"message_id", *decision}, {"response", json::object{{"choice", "A"}}}})));
}

TEST_CASE("harness_wait_for_state returns when the status changes and times out otherwise") {
  TempProject p;
  ToolStore seed(p.root);
  REQUIRE(seed.create_session("s1", "tok", "01-01"));
  const Server orchestrator = build_server(project_options(p.root, Role::orchestrator), {});
  PipeSession o(orchestrator);
  auto timed_out = call_tool(o, 1, "harness_wait_for_state", {{"session_id", "s1"}, {"timeout_seconds", 0.2}});
  CHECK(timed_out.at("structuredContent").at("changed") == false);
  o.send(json::object{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/call"},
                      {"params", json::object{{"name", "harness_wait_for_state"},
                                              {"arguments", json::object{{"session_id", "s1"}, {"from_status", "running"}, {"timeout_seconds", 20}}}}}});
  CHECK(o.call(3, "ping").contains("result"));  // the wait does not block the reader
  REQUIRE(seed.set_status("s1", "completed"));
  auto changed = o.read_message(10000ms);
  INFO(json::serialize(changed));
  CHECK(changed.at("id") == 2);
  CHECK(changed.at("result").at("structuredContent").at("status") == "completed");
  CHECK(is_error(call_tool(o, 4, "harness_wait_for_state", {{"session_id", "nope"}})));
}

TEST_CASE("harness_get_project_state summarises the specs under docs/specs") {
  TempProject p;
  fs::create_directories(p.root / "docs" / "specs");
  fs::copy(fs::path(HARNESS_SOURCE_DIR) / "examples" / "specs" / "SPC-001-task-tracker",
           p.root / "docs" / "specs" / "SPC-001-task-tracker", fs::copy_options::recursive);
  const Server server = build_server(project_options(p.root, Role::orchestrator), {});
  PipeSession s(server);
  auto state = call_tool(s, 1, "harness_get_project_state").at("structuredContent").as_object();
  const auto& spec = state.at("specs").at(0).as_object();
  CHECK(spec.at("name") == "SPC-001-task-tracker");
  CHECK(spec.at("plans").as_int64() > 0);
  CHECK(spec.at("errors") == 0);
  CHECK_FALSE(fs::exists(p.root / ".orchestration"));
}

TEST_CASE("harness_get_output returns the tail of a session's output log") {
  TempProject p;
  const fs::path dir = p.root / ".orchestration" / "sessions" / "s1";
  fs::create_directories(dir);
  std::ofstream(dir / "output.log") << "one\ntwo\nthree\n";
  const Server server = build_server(project_options(p.root, Role::orchestrator), {});
  PipeSession s(server);
  auto r = call_tool(s, 1, "harness_get_output", {{"session_id", "s1"}, {"lines", 2}});
  REQUIRE_FALSE(is_error(r));
  const std::string output(r.at("structuredContent").at("output").as_string());
  CHECK(output.find("three") != std::string::npos);
  CHECK(output.find("one") == std::string::npos);
  CHECK(is_error(call_tool(s, 2, "harness_get_output", {{"session_id", "../x"}})));
  CHECK(is_error(call_tool(s, 3, "harness_get_output", {{"session_id", "s2"}})));
}
