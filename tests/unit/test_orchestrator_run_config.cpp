// config.yaml → RunOptions: every key the file sets lands in the run, absent keys keep defaults.
#include "harness/orchestrator/run_config.hpp"
#include "harness/util/atomic_file.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

using namespace harness;
namespace fs = std::filesystem;

TEST_CASE("A project's config.yaml sets the run's slots, gate, adapters and agent settings", "[orchestrator][config]") {
  auto config = store::parse_config(R"(slots: 6
lookahead: unlimited
research_depth: 0
max_attempts: 4
plan_check_iterations: 2
gap_rounds: 1
max_cost_usd: 3.5
stagger_ms: 500
timeouts: {task: 600, idle: 60, stop_grace: 3, disk_full: 120}
rate_limit: {backoff_ms: 10, max_backoff_ms: 40, retries: 2}
adapters:
  default: codex
  executor: claude
workers:
  claude: {binary: /opt/claude, allowed_tools: [Read], permission_mode: default, model: m1}
  codex: {binary: /opt/codex, base_url: "http://127.0.0.1:1/v1", env_key: K, network_access: true}
  command: "agent {prompt_file}"
)", "config.yaml");
  REQUIRE(config);
  orchestrator::RunOptions o;
  orchestrator::apply_config(*config, o);
  CHECK(o.sched.slots == 6);
  CHECK_FALSE(o.sched.gate_lookahead.has_value());
  CHECK(o.sched.research_depth == 0);
  CHECK(o.sched.max_attempts == 4);
  CHECK(o.sched.max_revisions == 2);
  CHECK(o.sched.max_gap_rounds == 1);
  CHECK(o.max_cost_usd == 3.5);
  CHECK(o.stagger == std::chrono::milliseconds(500));
  CHECK(o.task_timeout == std::chrono::seconds(600));
  CHECK(o.idle_timeout == std::chrono::seconds(60));
  CHECK(o.stop_grace == std::chrono::seconds(3));
  CHECK(o.disk_full_wait == std::chrono::seconds(120));
  CHECK(o.rate_limit.first_wait == std::chrono::milliseconds(10));
  CHECK(o.rate_limit.max_wait == std::chrono::milliseconds(40));
  CHECK(o.rate_limit.retries == 2);
  CHECK(o.adapter == worker::AdapterKind::codex);
  CHECK(o.adapter_by_kind.at(sched::TaskKind::execute) == worker::AdapterKind::claude);
  CHECK(o.adapter_by_kind.at(sched::TaskKind::reconcile) == worker::AdapterKind::claude);
  CHECK(o.adapter_by_kind.count(sched::TaskKind::verify_phase) == 0); // always the engine's
  CHECK(o.adapter_by_kind.count(sched::TaskKind::plan) == 0);
  CHECK(o.adapter_settings.claude_binary == "/opt/claude");
  CHECK(o.adapter_settings.claude_allowed_tools == std::vector<std::string>{"Read"});
  CHECK(o.adapter_settings.claude_permission_mode == "default");
  CHECK(o.adapter_settings.claude_model == "m1");
  CHECK(o.adapter_settings.codex_binary == "/opt/codex");
  CHECK(o.adapter_settings.codex_base_url == "http://127.0.0.1:1/v1");
  CHECK(o.adapter_settings.codex_env_key == "K");
  CHECK(o.adapter_settings.codex_network_access);
  CHECK(o.adapter_settings.command_template == "agent {prompt_file}");
}

TEST_CASE("An empty config leaves every built-in default", "[orchestrator][config]") {
  orchestrator::RunOptions o;
  orchestrator::apply_config(store::OrchestrationConfig{}, o);
  const orchestrator::RunOptions d;
  CHECK(o.sched.slots == d.sched.slots);
  CHECK(o.sched.gate_lookahead == d.sched.gate_lookahead);
  CHECK(o.sched.max_attempts == d.sched.max_attempts);
  CHECK(o.adapter == d.adapter);
  CHECK(o.adapter_by_kind.empty());
  CHECK_FALSE(o.max_cost_usd.has_value());
  CHECK(o.adapter_settings.claude_binary == "claude");
  CHECK(o.rate_limit == d.rate_limit);
}

TEST_CASE("A rate_limit key the config leaves out keeps its default", "[orchestrator][config]") {
  orchestrator::RunOptions o;
  orchestrator::apply_config(store::parse_config("rate_limit: {backoff_ms: 250}\n", "config.yaml").value(), o);
  CHECK(o.rate_limit.first_wait == std::chrono::milliseconds(250));
  CHECK(o.rate_limit.max_wait == std::chrono::minutes(10));
  CHECK(o.rate_limit.retries == 8);
}

TEST_CASE("apply_project_config reads the config of the spec's project and reports its errors", "[orchestrator][config]") {
  test::TempDir dir;
  test::sh(dir.path, "git init -q");
  fs::create_directories(dir.path / "docs/specs/SPC-001-x");
  orchestrator::RunOptions o;
  o.spec_dir = dir.path / "docs/specs/SPC-001-x";
  REQUIRE(orchestrator::apply_project_config(o)); // no config: nothing changes
  CHECK(o.sched.slots == 4);
  fs::create_directories(dir.path / ".orchestration");
  REQUIRE(util::write_file_atomic(dir.path / ".orchestration/config.yaml", "slots: 2\n"));
  REQUIRE(orchestrator::apply_project_config(o));
  CHECK(o.sched.slots == 2);
  REQUIRE(util::write_file_atomic(dir.path / ".orchestration/config.yaml", "slots: 2\nslot: 3\n"));
  auto bad = orchestrator::apply_project_config(o);
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error()[0].line == 2);
  CHECK(bad.error()[0].file.ends_with(".orchestration/config.yaml"));
}

TEST_CASE("The lookahead is 0..16 or unlimited, nothing else", "[orchestrator][config]") {
  CHECK(orchestrator::parse_lookahead("0").value() == 0);
  CHECK(orchestrator::parse_lookahead("16").value() == 16);
  CHECK_FALSE(orchestrator::parse_lookahead("unlimited").value().has_value());
  for (const char* bad : {"", "-1", "17", "2x", " 1", "1.5", "999999999999", "Unlimited"}) {
    INFO(bad);
    CHECK_FALSE(orchestrator::parse_lookahead(bad).has_value());
  }
}

TEST_CASE("run_started names each worker the run launches, with the roles adapters give another", "[orchestrator][config]") {
  orchestrator::RunOptions o;
  o.adapter = worker::AdapterKind::script;
  CHECK(orchestrator::describe_workers(o) == "script worker");
  auto config = store::parse_config("adapters: {default: script, executor: command, planner: script}\n", "config.yaml");
  REQUIRE(config);
  orchestrator::apply_config(*config, o);
  // The planner's is the default's: not named again.
  CHECK(orchestrator::describe_workers(o) == "script worker, command for executor");
  o.adapter_by_kind[sched::TaskKind::check_plans] = worker::AdapterKind::command;
  CHECK(orchestrator::describe_workers(o) == "script worker, command for plan_checker and executor");
}

TEST_CASE("A cost limit with workers that report no cost starts the run with a note saying so", "[orchestrator][config]") {
  orchestrator::RunOptions o;
  o.adapter = worker::AdapterKind::codex;
  CHECK(orchestrator::cost_limit_note(o).empty()); // no limit, nothing to warn about
  o.max_cost_usd = 5;
  CHECK(orchestrator::cost_limit_note(o) ==
        "--max-cost $5.00 counts only the cost Claude Code workers report: the codex worker reports no cost, so the "
        "limit cannot see what it spends");
  o.adapter = worker::AdapterKind::claude;
  CHECK(orchestrator::cost_limit_note(o).empty());
  o.adapter_by_kind[sched::TaskKind::execute] = worker::AdapterKind::command;
  o.adapter_by_kind[sched::TaskKind::plan] = worker::AdapterKind::codex;
  CHECK(orchestrator::cost_limit_note(o).find("the codex and command workers report no cost") != std::string::npos);
  o.adapter = worker::AdapterKind::script; // the script worker costs nothing
  o.adapter_by_kind.clear();
  CHECK(orchestrator::cost_limit_note(o).empty());
}

TEST_CASE("The command worker is used when it is the default or some role's", "[orchestrator][config]") {
  orchestrator::RunOptions o;
  o.adapter = worker::AdapterKind::script;
  CHECK_FALSE(orchestrator::uses_command_worker(o)); // a --command then changes nothing: the CLI says so
  o.adapter_by_kind[sched::TaskKind::plan] = worker::AdapterKind::command;
  CHECK(orchestrator::uses_command_worker(o));
  o.adapter_by_kind.clear();
  o.adapter = worker::AdapterKind::command;
  CHECK(orchestrator::uses_command_worker(o));
}

TEST_CASE("A run in a GSD project with its config.json says harness reads none of it", "[orchestrator][config]") {
  test::TempDir dir;
  fs::create_directory(dir.path / ".git");
  dir.write(".planning/ROADMAP.md", "# Roadmap\n\n## Phase 1: Base\n");
  auto gsd = spec::discover_layout(dir.path, "/");
  REQUIRE(gsd);
  CHECK(orchestrator::gsd_config_note(*gsd).empty()); // no config.json: nothing to say
  dir.write(".planning/config.json", "{\"mode\": \"yolo\"}\n");
  CHECK(orchestrator::gsd_config_note(*gsd).starts_with(".planning/config.json is GSD's and not read by harness"));
  dir.write("docs/specs/SPC-001-x/SPEC.md", "# x\n");
  dir.write("docs/specs/SPC-001-x/config.json", "{}\n"); // a harness spec's file of that name is nobody's setting
  auto own = spec::discover_layout(dir.path / "docs/specs/SPC-001-x", "/");
  REQUIRE(own);
  CHECK(orchestrator::gsd_config_note(*own).empty());
}
