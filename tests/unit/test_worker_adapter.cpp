#include "harness/worker/adapter.hpp"
#include "spec_test_util.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>

using namespace harness::worker;
namespace json = boost::json;

namespace {

LaunchRequest sample_request() {
  LaunchRequest r;
  r.session_id = "s-0001";
  r.token = "tok";
  r.task_id = "execute:03-02";
  r.task_kind = "execute";
  r.prompt = "do the plan";
  r.project_root = "/proj";
  r.spec_dir = "/proj/docs/specs/SPC-001-x";
  r.plan_file = "/proj/docs/specs/SPC-001-x/planning/plans/03-auth/03-02-PLAN.md";
  r.state_dir = "/proj/.orchestration";
  r.session_dir = "/proj/.orchestration/sessions/s-0001";
  r.db_path = "/proj/.orchestration/harness.db";
  r.harness_mcp = "/opt/harness/bin/harness-mcp";
  r.harness_cli = "/opt/harness/bin/harness-cli";
  r.inherited_env = {{"PATH", "/usr/bin"}, {"HOME", "/root"}};
  return r;
}

bool has_arg_pair(const std::vector<std::string>& argv, std::string_view flag, std::string_view value) {
  for (size_t i = 0; i + 1 < argv.size(); ++i)
    if (argv[i] == flag && argv[i + 1] == value) return true;
  return false;
}

} // namespace

TEST_CASE("the claude adapter runs claude -p with stream-json and a strict harness MCP config") {
  auto spec = build_launch(AdapterKind::claude, sample_request(), AdapterSettings{});
  REQUIRE(spec);
  CHECK(spec->argv.front() == "claude");
  CHECK(has_arg_pair(spec->argv, "-p", "do the plan"));
  CHECK(has_arg_pair(spec->argv, "--output-format", "stream-json"));
  CHECK(std::count(spec->argv.begin(), spec->argv.end(), "--strict-mcp-config") == 1);
  CHECK(std::count(spec->argv.begin(), spec->argv.end(), "--verbose") == 1);
  auto allowed = std::find(spec->argv.begin(), spec->argv.end(), "--allowedTools");
  REQUIRE(allowed != spec->argv.end());
  CHECK(allowed[1].starts_with("mcp__harness,"));
  CHECK(spec->cwd == "/proj");
  CHECK(spec->env.at("HARNESS_SESSION_ID") == "s-0001");
  CHECK(spec->env.at("CLAUDE_CONFIG_DIR") == "/proj/.orchestration/sessions/s-0001/claude-config");
  CHECK(spec->env.at("MCP_CONNECTION_NONBLOCKING") == "0");
  CHECK(spec->env.at("GIT_OPTIONAL_LOCKS") == "0"); // its `git status` must not block others' commits
  // The harness-cli that started the run first: the worker prompt calls a bare `harness-cli`.
  CHECK(spec->env.at("PATH") == "/opt/harness/bin:/usr/bin");

  REQUIRE(spec->files.size() == 1);
  CHECK(has_arg_pair(spec->argv, "--mcp-config", spec->files[0].path.string()));
  auto cfg = json::parse(spec->files[0].content).as_object();
  const auto& server = cfg.at("mcpServers").at("harness").as_object();
  CHECK(server.at("command").as_string() == "/opt/harness/bin/harness-mcp");
  CHECK(server.at("args").as_array().at(0).as_string() == "--worker");
  CHECK(server.at("env").at("HARNESS_TOKEN").as_string() == "tok");
  // harness_worker_commit finds the session's spec directory with it: Claude Code hands an MCP
  // server only the env of its config.
  CHECK(server.at("env").at("HARNESS_SPEC_DIR").as_string() == "/proj/docs/specs/SPC-001-x");
}

TEST_CASE("the codex adapter writes a CODEX_HOME config with the harness MCP server auto-approved") {
  AdapterSettings s;
  s.codex_base_url = "http://127.0.0.1:9999/v1";
  s.codex_env_key = "STUB_KEY";
  auto spec = build_launch(AdapterKind::codex, sample_request(), s);
  REQUIRE(spec);
  CHECK(spec->argv[0] == "codex");
  CHECK(spec->argv[1] == "exec");
  CHECK(spec->argv.back() == "do the plan");
  REQUIRE(spec->files.size() == 1);
  const auto& toml = spec->files[0].content;
  CHECK(spec->env.at("CODEX_HOME") == spec->files[0].path.parent_path().string());
  CHECK(toml.find("[mcp_servers.harness]") != std::string::npos);
  CHECK(toml.find("default_tools_approval_mode = \"approve\"") != std::string::npos);
  CHECK(toml.find("base_url = \"http://127.0.0.1:9999/v1\"") != std::string::npos);
  CHECK(toml.find("env_key = \"STUB_KEY\"") != std::string::npos);
  CHECK(toml.find("HARNESS_TOKEN = \"tok\"") != std::string::npos);
  CHECK(toml.find("HARNESS_SPEC_DIR = \"/proj/docs/specs/SPC-001-x\"") != std::string::npos);
  // Sandboxed, but the worker can commit: .git is the one writable root added.
  CHECK(toml.find("sandbox_mode = \"workspace-write\"") != std::string::npos);
  CHECK(toml.find("writable_roots = [\"" + (sample_request().project_root / ".git").string() + "\"]") != std::string::npos);
}

TEST_CASE("every worker finds the harness-cli that started the run first on its PATH") {
  // A submodule build is not on the user's PATH, and the worker prompt calls a bare harness-cli.
  AdapterSettings s;
  s.command_template = "my-agent {prompt_file}";
  for (auto k : {AdapterKind::claude, AdapterKind::codex, AdapterKind::command, AdapterKind::script}) {
    INFO(to_string(k));
    auto req = sample_request();
    CHECK(build_launch(k, req, s)->env.at("PATH") == "/opt/harness/bin:/usr/bin");
    req.inherited_env.erase("PATH");
    CHECK(build_launch(k, req, s)->env.at("PATH") == "/opt/harness/bin:/usr/local/bin:/usr/bin:/bin");
  }
}

TEST_CASE("the codex adapter leaves the sandbox's network off unless network_access is set") {
  AdapterSettings s;
  auto shut = build_launch(AdapterKind::codex, sample_request(), s);
  REQUIRE(shut);
  CHECK(shut->files[0].content.find("network_access") == std::string::npos); // Codex's default: off
  s.codex_network_access = true;
  auto open = build_launch(AdapterKind::codex, sample_request(), s);
  REQUIRE(open);
  const auto& toml = open->files[0].content;
  // In the [sandbox_workspace_write] table, the one Codex reads for its workspace-write sandbox.
  const auto table = toml.find("[sandbox_workspace_write]\n");
  const auto key = toml.find("\nnetwork_access = true\n");
  REQUIRE(table != std::string::npos);
  REQUIRE(key != std::string::npos);
  CHECK(key > table);
  CHECK(toml.find("\n[", table + 1) > key); // no other table in between
}

TEST_CASE("the codex adapter's env_key without base_url hands that key to Codex as CODEX_API_KEY") {
  // OpenAI's own endpoint: Codex's built-in provider reads CODEX_API_KEY (a fresh CODEX_HOME has
  // no login), and a provider block of our own would need a base_url.
  AdapterSettings s;
  s.codex_env_key = "MY_KEY";
  auto req = sample_request();
  req.inherited_env["MY_KEY"] = "sk-mine";
  auto spec = build_launch(AdapterKind::codex, req, s);
  REQUIRE(spec);
  CHECK(spec->env.at("CODEX_API_KEY") == "sk-mine");
  CHECK(spec->files[0].content.find("model_provider") == std::string::npos);
  // The variable unset: nothing invented; an orchestrator's own CODEX_API_KEY passes unchanged.
  req.inherited_env.erase("MY_KEY");
  req.inherited_env["CODEX_API_KEY"] = "sk-env";
  CHECK(build_launch(AdapterKind::codex, req, s)->env.at("CODEX_API_KEY") == "sk-env");
  // With base_url the key belongs to that provider, by name in config.toml, not to OpenAI.
  s.codex_base_url = "http://127.0.0.1:9999/v1";
  req.inherited_env["MY_KEY"] = "sk-mine";
  auto own = build_launch(AdapterKind::codex, req, s);
  CHECK(own->env.at("CODEX_API_KEY") == "sk-env");
  CHECK(own->files[0].content.find("env_key = \"MY_KEY\"") != std::string::npos);
}

TEST_CASE("the command adapter expands placeholders after splitting, keeping values whole") {
  AdapterSettings s;
  s.command_template = "my-agent --plan {plan_file} --prompt-file '{prompt_file}' --id={session_id}";
  auto req = sample_request();
  req.plan_file = "/proj/a dir/01-01-PLAN.md";
  auto spec = build_launch(AdapterKind::command, req, s);
  REQUIRE(spec);
  CHECK(spec->argv == std::vector<std::string>{"my-agent", "--plan", "/proj/a dir/01-01-PLAN.md", "--prompt-file",
                                               "/proj/.orchestration/sessions/s-0001/prompt.md", "--id=s-0001"});
  CHECK(spec->files.size() == 2);
}

TEST_CASE("in the code of sh -c a placeholder is quoted for the shell: any path stays data") {
  // Values a user's project can have: blanks, both quotes, a command substitution, a backslash.
  const std::map<std::string, std::string> vars = {{"a", "/p/my dir/x"}, {"b", "/p/it's \"q\" $(touch PWNED) `id` \\n"}};
  // The same two values bare, inside '...' and inside "..." of the shell code; the shell prints
  // each argument on a line of its own.
  auto argv = expand_command_template(
      R"(bash -c "printf '%s\n' {a} {b} '{a}' '{b}' \"{b}\" pre{a}post" ignored-argv0)", vars);
  REQUIRE(argv);
  CHECK(argv->size() == 4);
  CHECK((*argv)[3] == "ignored-argv0");
  std::string cmd;
  for (const auto& w : *argv) {
    cmd += " '";
    for (char c : w) cmd += c == '\'' ? std::string("'\\''") : std::string(1, c);
    cmd += "'";
  }
  harness::test::TempDir dir;
  FILE* pipe = ::popen(("cd '" + dir.path.string() + "' &&" + cmd).c_str(), "r");
  REQUIRE(pipe);
  std::string out;
  char buf[512];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  CHECK(::pclose(pipe) == 0);
  const std::string a = vars.at("a"), b = vars.at("b");
  CHECK(out == a + "\n" + b + "\n" + a + "\n" + b + "\n" + b + "\npre" + a + "post\n");
  CHECK_FALSE(std::filesystem::exists(dir.path / "PWNED"));
  // Outside a shell's code nothing is quoted: the value is one argument as it is.
  argv = expand_command_template("agent --spec={b} -c {a}", vars);
  REQUIRE(argv);
  CHECK((*argv)[1] == "--spec=" + b);
  CHECK((*argv)[3] == a);
}

TEST_CASE("a command template naming an unknown placeholder is rejected with its name") {
  AdapterSettings s;
  s.command_template = "x {nope}";
  auto spec = build_launch(AdapterKind::command, sample_request(), s);
  REQUIRE_FALSE(spec);
  CHECK(spec.error().find("{nope}") != std::string::npos);
  s.command_template.clear();
  CHECK_FALSE(build_launch(AdapterKind::command, sample_request(), s));
}

TEST_CASE("the script adapter runs harness-cli script-worker and sim never launches") {
  auto spec = build_launch(AdapterKind::script, sample_request(), AdapterSettings{});
  REQUIRE(spec);
  CHECK(spec->argv == std::vector<std::string>{"/opt/harness/bin/harness-cli", "script-worker"});
  CHECK(spec->env.at("HARNESS_PLAN_FILE") == sample_request().plan_file.string());
  CHECK_FALSE(build_launch(AdapterKind::sim, sample_request(), AdapterSettings{}));
}

TEST_CASE("adapter kinds parse from their names") {
  for (auto k : {AdapterKind::claude, AdapterKind::codex, AdapterKind::command, AdapterKind::script, AdapterKind::sim})
    CHECK(parse_adapter_kind(to_string(k)) == k);
  CHECK_FALSE(parse_adapter_kind("gpt"));
}
