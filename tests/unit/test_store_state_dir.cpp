// `.orchestration/`: config.yaml, projections, and the file transport ingested like MCP messages.
#include "harness/protocol/codec.hpp"
#include "harness/store/state_dir.hpp"
#include "harness/util/atomic_file.hpp"
#include "test_store_support.hpp"

#include <fmt/format.h>

#include <filesystem>

using namespace harness;
using namespace harness::store;
using store_test::TempDir;
namespace json = boost::json;

TEST_CASE("config.yaml round-trips and absent keys stay absent", "[store][config]") {
  OrchestrationConfig c;
  c.slots = 4;
  c.lookahead = "unlimited";
  c.max_cost_usd = 2.5;
  c.task_timeout = std::chrono::seconds(120);
  c.stagger = std::chrono::milliseconds(250);
  c.rate_limit_backoff = std::chrono::milliseconds(50);
  c.rate_limit_retries = 0;
  c.default_adapter = "codex";
  c.adapters["executor"] = "claude";
  c.claude.binary = "/opt/claude/bin/claude";
  c.claude.allowed_tools = std::vector<std::string>{"Read", "Bash(git commit:*)"};
  c.codex.base_url = "http://127.0.0.1:9/v1";
  c.codex.env_key = "STUB_KEY";
  c.codex.network_access = true;
  c.command = "my-agent --prompt '{prompt_file}'";
  auto back = parse_config(render_config(c), "config.yaml");
  REQUIRE(back);
  CHECK(*back == c);
  auto partial = parse_config("slots: 3\n", "config.yaml");
  REQUIRE(partial);
  CHECK(partial->slots == 3);
  CHECK_FALSE(partial->max_attempts.has_value());
  CHECK(parse_config("", "config.yaml").value() == OrchestrationConfig{});
  CHECK(parse_config(render_config(OrchestrationConfig{}), "config.yaml").value() == OrchestrationConfig{});
}

TEST_CASE("config.yaml refuses aliases, a second document, and a file that is no regular file", "[store][config]") {
  // Review FF F1, F2, F3, F6: `x: &a [*a]` crashed the repeated-keys walk, keys after `...` were
  // never read (`slots: banana` ran), and a link to /dev/zero was read until memory ran out.
  auto alias = parse_config("slots: 2\nx: &a [*a]\n", "config.yaml");
  REQUIRE_FALSE(alias);
  CHECK(alias.error().front().code == "H201");
  CHECK(alias.error().front().line == 2);
  auto second = parse_config("slots: 4\n...\nslots: banana\n", "config.yaml");
  REQUIRE_FALSE(second);
  CHECK(second.error().front().message.find("a second YAML document starts here") != std::string::npos);
  store_test::TempDir dir;
  std::filesystem::create_symlink("/dev/zero", dir.path / "config.yaml");
  auto device = load_config(dir.path / "config.yaml");
  REQUIRE_FALSE(device);
  CHECK(device.error().front().message == "it is not a regular file");
}

TEST_CASE("config.yaml integers are decimal even when zero-padded", "[store][config]") {
  auto padded = parse_config("slots: 010\nlookahead: 02\nstagger_ms: 0500\nmax_attempts: 09\n", "config.yaml");
  REQUIRE(padded);
  CHECK(padded->slots == 10);
  CHECK(padded->lookahead == "2");
  CHECK(padded->stagger == std::chrono::milliseconds(500));
  CHECK(padded->max_attempts == 9);
  CHECK(parse_config("slots: +4\n", "config.yaml").value().slots == 4);
  for (const char* bad : {"slots: 0x10\n", "slots: 4.0\n", "slots: 4 slots\n", "slots: ''\n"})
    CHECK_FALSE(parse_config(bad, "config.yaml").has_value());
}

TEST_CASE("config.yaml's rate_limit backoff is in milliseconds, each key range-checked", "[store][config]") {
  auto all = parse_config("rate_limit: {backoff_ms: 20, max_backoff_ms: 80, retries: 3}\n", "config.yaml");
  REQUIRE(all);
  CHECK(all->rate_limit_backoff == std::chrono::milliseconds(20));
  CHECK(all->rate_limit_max_backoff == std::chrono::milliseconds(80));
  CHECK(all->rate_limit_retries == 3);
  auto one = parse_config("rate_limit:\n  retries: 0\n", "config.yaml");
  REQUIRE(one);
  CHECK(one->rate_limit_retries == 0);
  CHECK_FALSE(one->rate_limit_backoff.has_value());
  CHECK_FALSE(one->rate_limit_max_backoff.has_value());
  // A first wait above the built-in cap is no mistake: the cap never shortens the first wait.
  CHECK(parse_config("rate_limit: {backoff_ms: 900000}\n", "config.yaml").has_value());
  CHECK(parse_config("rate_limit: {backoff_ms: 86400000, max_backoff_ms: 86400000, retries: 100}\n", "c.yaml"));

  auto zero = parse_config("rate_limit:\n  backoff_ms: 0\n", "c.yaml");
  REQUIRE_FALSE(zero.has_value());
  CHECK(spec::render(zero.error()[0]).starts_with(
      "c.yaml:2:15: error[H202]: `rate_limit.backoff_ms` must be between 1 and 86400000"));
  auto below = parse_config("rate_limit:\n  backoff_ms: 1000\n  max_backoff_ms: 999\n", "c.yaml");
  REQUIRE_FALSE(below.has_value());
  CHECK(below.error()[0].line == 3);
  CHECK(below.error()[0].code == "H202");
  CHECK(below.error()[0].message == "`rate_limit.max_backoff_ms` must be at least `rate_limit.backoff_ms` (1000)");
  for (const char* bad : {"rate_limit: {retries: 101}\n", "rate_limit: {retries: -1}\n", "rate_limit: {backoff_ms: 1.5}\n",
                          "rate_limit: {max_backoff_ms: 86400001}\n", "rate_limit: {backoff_ms: 30s}\n", "rate_limit: 30000\n"}) {
    INFO(bad);
    auto r = parse_config(bad, "c.yaml");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error()[0].code == "H202");
  }
  auto typo = parse_config("rate_limit:\n  backoff: 100\n", "c.yaml");
  REQUIRE_FALSE(typo.has_value());
  CHECK(typo.error()[0].code == "H203");
  CHECK(typo.error()[0].line == 2);
  CHECK(typo.error()[0].message == "unknown key `rate_limit.backoff` (expected backoff_ms, max_backoff_ms, retries)");
}

TEST_CASE("a key written twice in config.yaml is an error at the second, not last-one-wins", "[store][config]") {
  auto top = parse_config("slots: 4\nslots: 5\n", "c.yaml");
  REQUIRE_FALSE(top.has_value());
  REQUIRE(top.error().size() == 1);
  CHECK(spec::render(top.error()[0]).starts_with(
      "c.yaml:2:1: error[H204]: duplicate key `slots` (first on line 1); YAML keys must be unique"));
  auto nested = parse_config("adapters:\n  executor: script\n  default: claude\n  executor: claude\n", "c.yaml");
  REQUIRE_FALSE(nested.has_value());
  REQUIRE(nested.error().size() == 1);
  CHECK(nested.error()[0].code == "H204");
  CHECK(nested.error()[0].line == 4);
  CHECK(nested.error()[0].col == 3);
  CHECK(nested.error()[0].message == "duplicate key `adapters.executor` (first on line 2); YAML keys must be unique");
  // The same key in two different maps is no duplicate.
  CHECK(parse_config("timeouts: {task: 60}\nrate_limit: {retries: 1}\nworkers:\n  claude: {model: a}\n  codex: {model: b}\n",
                     "c.yaml"));
}

TEST_CASE("config.yaml errors carry file, line, column and code", "[store][config]") {
  auto r = parse_config("slots: 2\nlookahed: 1\nmax_attempts: lots\nadapters:\n  wizard: x\n", "cfg.yaml");
  REQUIRE_FALSE(r.has_value());
  REQUIRE(r.error().size() == 3);
  CHECK(r.error()[0].line == 2);
  CHECK(r.error()[0].code == "H203");
  CHECK(r.error()[0].message.find("lookahed") != std::string::npos);
  CHECK(r.error()[1].line == 3);
  CHECK(r.error()[1].col == 15);
  CHECK(r.error()[1].code == "H202");
  CHECK(r.error()[2].line == 5);
  CHECK(spec::render(r.error()[1]).starts_with("cfg.yaml:3:15: error[H202]: `max_attempts` must be an integer"));
  auto syntax = parse_config("slots: [1,\n", "c.yaml");
  REQUIRE_FALSE(syntax.has_value());
  CHECK(syntax.error()[0].code == "H201");
  auto range = parse_config("slots: 0\n", "c.yaml");
  REQUIRE_FALSE(range.has_value());
  CHECK(range.error()[0].message == "`slots` must be between 1 and 256");
  auto adapter = parse_config("adapters:\n  executor: gpt\n", "c.yaml");
  REQUIRE_FALSE(adapter.has_value());
  CHECK(adapter.error()[0].line == 2);
  CHECK(adapter.error()[0].message == "`adapters.executor` must be one of claude, codex, command, script");
  // Verification is the engine's: a worker named for it would be announced and never started.
  auto verifier = parse_config("adapters:\n  default: script\n  verifier: codex\n", "c.yaml");
  REQUIRE_FALSE(verifier.has_value());
  CHECK(verifier.error()[0].code == "H205");
  CHECK(verifier.error()[0].line == 3);
  CHECK(verifier.error()[0].message.starts_with("`adapters.verifier`: verification is never given to a worker"));
  auto gate = parse_config("lookahead: -1\n", "c.yaml");
  REQUIRE_FALSE(gate.has_value());
  CHECK(gate.error()[0].code == "H202");
  auto network = parse_config("workers:\n  codex: {network_access: yes}\n", "c.yaml");
  REQUIRE_FALSE(network.has_value());
  CHECK(network.error()[0].message == "`workers.codex.network_access` must be true or false");
  CHECK(parse_config("workers:\n  codex: {network_access: false}\n", "c.yaml").value().codex.network_access == false);
  auto worker_key = parse_config("workers:\n  claude:\n    base_url: x\n", "c.yaml");
  REQUIRE_FALSE(worker_key.has_value());
  CHECK(worker_key.error()[0].code == "H203");
  CHECK(worker_key.error()[0].line == 3);
  auto tools = parse_config("workers:\n  claude:\n    allowed_tools: Bash\n", "c.yaml");
  REQUIRE_FALSE(tools.has_value());
  CHECK(tools.error()[0].message == "`workers.claude.allowed_tools` must be a list of tool names");
}

TEST_CASE("The state directory writes its projections atomically as readable files", "[store][state_dir]") {
  TempDir dir;
  auto sd = StateDir::for_project(dir.path);
  OrchestrationConfig config;
  config.slots = 2;
  REQUIRE(sd.write_config(config));
  CHECK(sd.read_config()->slots == 2);
  REQUIRE(sd.write_dependency_graph(json::object{{"nodes", json::array{"01-01"}}}));
  REQUIRE(sd.write_active_files(json::object{{"s1", json::array{"src/a.cpp"}}}));
  WorkerStatus st{"s1", "2026-01-01T00:00:00.000Z", "running", "01", "01-02", 1, 3, "Task 1/3"};
  REQUIRE(sd.write_status(st));
  auto back = sd.read_status("s1");
  REQUIRE(back);
  REQUIRE(back->has_value());
  CHECK((*back)->plan == "01-02");
  CHECK((*back)->message == "Task 1/3");
  CHECK(sd.read_status("nobody")->has_value() == false);
  auto q = protocol::make_envelope("s1", protocol::DecisionNeeded{"q", {"a"}, std::nullopt});
  REQUIRE(sd.write_checkpoint(q));
  REQUIRE(sd.write_checkpoint_response(protocol::make_envelope("s1", protocol::DecisionMade{"a", std::nullopt})));
  auto text = util::read_file(sd.session_dir("s1") / "checkpoint_response.json");
  REQUIRE(text);
  CHECK(protocol::parse_envelope(*text)->type() == protocol::MessageType::decision_made);
  CHECK(util::read_file(dir.path / ".orchestration" / "dependency-graph.json").value() == "{\"nodes\":[\"01-01\"]}\n");
}

TEST_CASE("A file-transport worker is heard like an MCP worker, exactly once", "[store][state_dir]") {
  TempDir dir;
  auto s = store_test::open_store(dir.path);
  REQUIRE(s.create_session(store_test::session("s1")));
  auto sd = StateDir::for_project(dir.path);
  // The script worker's own formats (seed 000 camelCase).
  REQUIRE(util::write_file_atomic(sd.session_dir("s1") / "status.json",
      R"({"sessionId":"s1","token":"tok-s1","timestamp":"2026-01-01T00:00:01Z","state":"running","phase":"01","plan":"01-01",)"
      R"("currentTask":2,"totalTasks":3,"message":"Task 2/3: build"})"));
  auto checkpoint = protocol::make_envelope("s1", protocol::ActionNeeded{"log in", "needs a browser"});
  REQUIRE(sd.write_checkpoint(checkpoint, "tok-s1"));
  REQUIRE(util::write_file_atomic(sd.session_dir("s1") / "result.json",
      R"({"sessionId":"s1","token":"tok-s1","timestamp":"2026-01-01T00:00:09Z","status":"completed","summaryPath":"p/01-01-SUMMARY.md",)"
      R"("commits":["abc","def"],"filesTouched":["src/a.cpp"],"tasksRun":3,"tasksSkipped":0})"));
  auto r1 = sd.ingest(s);
  REQUIRE(r1);
  CHECK(r1->errors.empty());
  CHECK(r1->inserted == 3);
  auto r2 = sd.ingest(s);
  CHECK(r2->inserted == 0);
  CHECK(r2->duplicates == 3);
  auto all = s.messages_after(0);
  REQUIRE(all->size() == 3);
  CHECK((*all)[0].type == "progress_update");
  CHECK((*all)[1].id == checkpoint.id);
  CHECK((*all)[2].type == "task_completed");
  auto done = protocol::payload_from_json((*all)[2].type, json::parse((*all)[2].payload));
  REQUIRE(done);
  CHECK(std::get<protocol::TaskCompleted>(*done).commits == std::vector<std::string>{"abc", "def"});
  CHECK(s.pending_messages("s1")->size() == 1); // the checkpoint; progress and completion need no answer
  // A new status content is a new message.
  REQUIRE(sd.write_status({"s1", "2026-01-01T00:00:02Z", "running", "01", "01-01", 3, 3, std::nullopt, "tok-s1"}));
  CHECK(sd.ingest(s)->inserted == 1);
  // One session's directory alone, as the orchestrator reads it when that worker exits.
  REQUIRE(s.create_session(store_test::session("s2")));
  REQUIRE(sd.write_status({"s2", "2026-01-01T00:00:03Z", "running", "01", "01-02", 1, 1, std::nullopt, "tok-s2"}));
  REQUIRE(sd.write_status({"s1", "2026-01-01T00:00:04Z", "running", "01", "01-01", 3, 3, "again", "tok-s1"}));
  auto one = sd.ingest_session(s, "s2");
  CHECK(one.inserted == 1);
  CHECK(one.duplicates == 0);
  CHECK(s.messages_after(0)->back().session_id == "s2");
  CHECK(sd.ingest_session(s, "s2").duplicates == 1);
  CHECK(sd.ingest_session(s, "nobody").inserted == 0);
}

TEST_CASE("A failed result.json may forbid a retry, as task_failed does", "[store][state_dir]") {
  // The script worker's task commit lost its trailers to a hook: another attempt would do the
  // task again and lose them again.
  TempDir dir;
  auto s = store_test::open_store(dir.path);
  auto sd = StateDir::for_project(dir.path);
  auto failed = [&](const std::string& sid, const std::string& retry) {
    REQUIRE(s.create_session(store_test::session(sid)));
    REQUIRE(util::write_file_atomic(sd.session_dir(sid) / "result.json",
                                    fmt::format(R"({{"sessionId":"{0}","token":"tok-{0}","timestamp":"t","status":"failed",)"
                                                R"("error":"x"{1}}})",
                                                sid, retry)));
    return sd.ingest_session(s, sid);
  };
  auto retry_of = [&] {
    const auto m = s.messages_after(0)->back();
    auto p = protocol::payload_from_json(m.type, json::parse(m.payload));
    REQUIRE(p);
    return std::get<protocol::TaskFailed>(*p).retry;
  };
  CHECK(failed("s1", "").inserted == 1);
  CHECK(retry_of() == protocol::Retry::allowed);
  CHECK(failed("s2", R"(,"retry":"forbidden")").inserted == 1);
  CHECK(retry_of() == protocol::Retry::forbidden);
  const auto bad = failed("s3", R"(,"retry":"never")");
  CHECK(bad.inserted == 0);
  REQUIRE(bad.errors.size() == 1);
  CHECK_THAT(bad.errors[0], Catch::Contains("retry: unknown value \"never\" (expected allowed, forbidden)"));
}

TEST_CASE("Bad transport files are reported and skipped, not fatal", "[store][state_dir]") {
  TempDir dir;
  auto s = store_test::open_store(dir.path);
  REQUIRE(s.create_session(store_test::session("s1")));
  auto sd = StateDir::for_project(dir.path);
  REQUIRE(util::write_file_atomic(sd.session_dir("s1") / "status.json", "{broken"));
  REQUIRE(util::write_file_atomic(sd.session_dir("s1") / "result.json",
                                  R"({"sessionId":"s1","token":"tok-s1","timestamp":"t","status":"failed"})"));
  REQUIRE(util::write_file_atomic(sd.session_dir("ghost") / "result.json",
                                  R"({"sessionId":"ghost","timestamp":"t","status":"failed","error":"x"})"));
  REQUIRE(util::write_file_atomic(sd.session_dir("s2") / "result.json",
                                  R"({"sessionId":"s1","token":"tok-s2","timestamp":"t","status":"failed","error":"x"})"));
  REQUIRE(s.create_session(store_test::session("s2")));
  auto r = sd.ingest(s);
  REQUIRE(r);
  CHECK(r->inserted == 0);
  REQUIRE(r->errors.size() == 3);
  CHECK(r->errors[0].find("invalid JSON") != std::string::npos);
  CHECK(r->errors[1].find("error: missing required field") != std::string::npos);
  CHECK(r->errors[2].find("does not match its directory") != std::string::npos);
  CHECK(r->unrecorded_sessions == 1); // ghost: skipped, see below
}

TEST_CASE("A report file is read only with its session's token: another worker cannot report for it", "[store][state_dir]") {
  // One worker writing into a sibling's directory (a glob that matched too much) must not fail or
  // finish the sibling's task: only the session's own worker has its token (HARNESS_TOKEN).
  TempDir dir;
  auto s = store_test::open_store(dir.path);
  REQUIRE(s.create_session(store_test::session("s1")));
  REQUIRE(s.create_session(store_test::session("s2")));
  auto sd = StateDir::for_project(dir.path);
  REQUIRE(util::write_file_atomic(sd.session_dir("s1") / "result.json",
                                  R"({"sessionId":"s1","token":"tok-s2","timestamp":"t","status":"failed","error":"forged"})"));
  REQUIRE(sd.write_status({"s1", "t", "failed", "01", "01-01", 1, 1, "forged"}));
  REQUIRE(sd.write_checkpoint(protocol::make_envelope("s1", protocol::ActionNeeded{"forged", "x"}), "tok-s2"));
  auto r = sd.ingest(s);
  REQUIRE(r);
  CHECK(r->inserted == 0);
  REQUIRE(r->errors.size() == 3);
  CHECK(r->errors[0].find("status.json: token: missing required field (the session's HARNESS_TOKEN)") != std::string::npos);
  CHECK(r->errors[1].find("checkpoint.json: token: not session s1's (a worker wrote into another session's directory?)") !=
        std::string::npos);
  CHECK(r->errors[2].find("result.json: token: not session s1's") != std::string::npos);
  CHECK(s.messages_after(0)->empty());
  // The session's own worker, with its token, is heard.
  REQUIRE(util::write_file_atomic(sd.session_dir("s1") / "result.json",
                                  R"({"sessionId":"s1","token":"tok-s1","timestamp":"t","status":"failed","error":"real"})"));
  CHECK(sd.ingest_session(s, "s1").inserted == 1);
  CHECK(s.messages_after(0)->back().type == "task_failed");
}

TEST_CASE("A session directory no session row names is skipped quietly, at every ingest", "[store][state_dir]") {
  // An older harness ran script workers without a session row; their directories stay behind.
  TempDir dir;
  auto s = store_test::open_store(dir.path);
  auto sd = StateDir::for_project(dir.path);
  REQUIRE(sd.write_status({"execute-01-01-a1-cfcbd7", "2026-01-01T00:00:01Z", "completed", "01", "01-01", 2, 2, "all tasks done"}));
  REQUIRE(util::write_file_atomic(sd.session_dir("execute-01-01-a1-cfcbd7") / "result.json",
      R"({"sessionId":"execute-01-01-a1-cfcbd7","timestamp":"t","status":"failed","error":"x"})"));
  for (int run = 0; run < 2; ++run) {
    auto r = sd.ingest(s);
    REQUIRE(r);
    CHECK(r->errors.empty());
    CHECK(r->inserted == 0);
    CHECK(r->unrecorded_sessions == 1);
  }
  CHECK(sd.ingest_session(s, "execute-01-01-a1-cfcbd7").errors.empty());
  CHECK(s.messages_after(0)->empty());
  // The orchestrator's own checkpoint directories have no row either, and are no older harness's.
  REQUIRE(util::write_file_atomic(sd.session_dir("cp-SPC-001-x-final-abc123-1") / "checkpoint.json",
                                  R"({"question":"approve?","task":"final"})"));
  CHECK(sd.ingest(s)->unrecorded_sessions == 1);
}

TEST_CASE("A run's start does not read again the directories of sessions that ended", "[store][state_dir]") {
  // L3: every start read every session directory a project ever had (9,900 of them: 2.2 s before
  // the first task, even for a spec already complete). A session's row leaves `running` only
  // after its directory was read: by the run that watched it end, or by this ingest when a
  // killed run left it running.
  TempDir dir;
  auto s = store_test::open_store(dir.path);
  auto sd = StateDir::for_project(dir.path);
  for (const std::string sid : {"done", "failed", "ended", "killed"}) {
    REQUIRE(s.create_session(store_test::session(sid)));
    REQUIRE(util::write_file_atomic(sd.session_dir(sid) / "result.json",
                                    fmt::format(R"({{"sessionId":"{0}","token":"tok-{0}","timestamp":"t","status":"failed",)"
                                                R"("error":"x"}})",
                                                sid)));
  }
  REQUIRE(s.set_session_status("done", "completed"));
  REQUIRE(s.set_session_status("failed", "failed"));
  REQUIRE(s.set_session_status("ended", "ended", std::nullopt, "stopped: the run was interrupted"));
  auto r = sd.ingest(s);
  REQUIRE(r);
  CHECK(r->errors.empty());
  CHECK(r->inserted == 1); // the session a killed run left running
  REQUIRE(s.messages_after(0)->size() == 1);
  CHECK(s.messages_after(0)->front().session_id == "killed");
  // Its own directory is still read when asked for by name, as a run does when a worker exits.
  CHECK(sd.ingest_session(s, "done").inserted == 1);
}
