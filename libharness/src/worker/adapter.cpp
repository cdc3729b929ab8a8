#include "harness/worker/adapter.hpp"

#include "harness/util/shell_words.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

namespace harness::worker {
namespace fs = std::filesystem;
namespace {

namespace json = boost::json;

/// Variables every worker sees; the MCP server reads them to authenticate the session.
void add_session_env(std::map<std::string, std::string>& env, const LaunchRequest& req) {
  env["HARNESS_SESSION_ID"] = req.session_id;
  env["HARNESS_TOKEN"] = req.token;
  env["HARNESS_STATE_DIR"] = req.state_dir.string();
  env["HARNESS_DB"] = req.db_path.string();
  env["HARNESS_PROJECT"] = req.project_root.string();
  env["HARNESS_SPEC_DIR"] = req.spec_dir.string();
  env["HARNESS_TASK_ID"] = req.task_id;
  if (!req.plan_file.empty()) env["HARNESS_PLAN_FILE"] = req.plan_file.string();
  // Workers share one repository. Claude Code runs `git status` for its context, which takes
  // .git/index.lock to refresh the index as a side effect; a commit running at that moment (the
  // orchestrator's, another worker's) fails. Git skips such optional locks with this set.
  env["GIT_OPTIONAL_LOCKS"] = "0";
  // The worker prompt and the skills call a bare `harness-cli` (validate, status): the one that
  // started this run comes first, also when it is not on the user's PATH (a submodule build).
  if (!req.harness_cli.empty()) {
    const auto bin = req.harness_cli.parent_path().string();
    auto it = env.find("PATH"); // without one, a shell's default search path, after harness's own
    env["PATH"] = bin + ":" + (it != env.end() ? it->second : std::string("/usr/local/bin:/usr/bin:/bin"));
  }
}

std::string mcp_config_json(const LaunchRequest& req) {
  json::object env{{"HARNESS_SESSION_ID", req.session_id},
                   {"HARNESS_TOKEN", req.token},
                   {"HARNESS_STATE_DIR", req.state_dir.string()},
                   {"HARNESS_DB", req.db_path.string()},
                   {"HARNESS_SPEC_DIR", req.spec_dir.string()}};
  json::object server{{"type", "stdio"},
                      {"command", req.harness_mcp.string()},
                      {"args", json::array{"--worker", "--project", req.project_root.string()}},
                      {"env", std::move(env)}};
  json::object root{{"mcpServers", json::object{{"harness", std::move(server)}}}};
  return json::serialize(root) + "\n";
}

/// TOML basic string: quotes and backslashes escaped, control characters as \uXXXX.
std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\u{:04x}", c);
    else out += c;
  }
  return out + "\"";
}

LaunchSpec build_claude(const LaunchRequest& req, const AdapterSettings& s) {
  LaunchSpec spec;
  spec.cwd = req.project_root;
  const auto config = req.session_dir / "mcp-config.json";
  spec.files.push_back({config, mcp_config_json(req)});
  std::string allowed = "mcp__harness";
  for (const auto& t : s.claude_allowed_tools) allowed += "," + t;
  spec.argv = {s.claude_binary, "-p", req.prompt, "--output-format", "stream-json", "--verbose",
               "--mcp-config", config.string(), "--strict-mcp-config", "--allowedTools", allowed,
               "--permission-mode", s.claude_permission_mode};
  if (s.claude_model) spec.argv.insert(spec.argv.end(), {"--model", *s.claude_model});
  spec.env = req.inherited_env;
  add_session_env(spec.env, req);
  // Concurrent sessions sharing one ~/.claude.json corrupt it: each worker gets its own config dir.
  spec.env["CLAUDE_CONFIG_DIR"] = (req.session_dir / "claude-config").string();
  spec.env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1";
  spec.env["DISABLE_TELEMETRY"] = "1";
  spec.env["DISABLE_AUTOUPDATER"] = "1";
  // Without these the CLI may skip a slow MCP server or hide its tools behind a search tool.
  spec.env["MCP_CONNECTION_NONBLOCKING"] = "0";
  spec.env["ENABLE_TOOL_SEARCH"] = "false";
  return spec;
}

LaunchSpec build_codex(const LaunchRequest& req, const AdapterSettings& s) {
  LaunchSpec spec;
  spec.cwd = req.project_root;
  const auto home = req.session_dir / "codex-home";
  std::string toml;
  if (s.codex_model) toml += fmt::format("model = {}\n", toml_string(*s.codex_model));
  toml += "approval_policy = \"never\"\ncheck_for_update_on_startup = false\n";
  // Codex's workspace-write sandbox keeps .git read-only, and a worker must commit its tasks:
  // the repository's .git is added as a writable root; everything outside the project stays shut.
  toml += "sandbox_mode = \"workspace-write\"\n";
  if (s.codex_base_url) {
    toml += "model_provider = \"harness\"\n\n[model_providers.harness]\nname = \"harness\"\n";
    toml += fmt::format("base_url = {}\nwire_api = \"responses\"\n", toml_string(*s.codex_base_url));
    if (s.codex_env_key) toml += fmt::format("env_key = {}\n", toml_string(*s.codex_env_key));
  }
  toml += fmt::format("\n[sandbox_workspace_write]\nwritable_roots = [{}]\n", toml_string((req.project_root / ".git").string()));
  // Off by default in Codex, loopback included: a plan that installs packages or tests against a
  // local server needs it, and says so in config.yaml.
  if (s.codex_network_access) toml += "network_access = true\n";
  toml += "\n[features]\nplugins = false\n\n[analytics]\nenabled = false\n";
  toml += "\n[mcp_servers.harness]\n";
  toml += fmt::format("command = {}\n", toml_string(req.harness_mcp.string()));
  toml += fmt::format("args = [\"--worker\", \"--project\", {}]\n", toml_string(req.project_root.string()));
  toml += "default_tools_approval_mode = \"approve\"\n";
  toml += "\n[mcp_servers.harness.env]\n";
  toml += fmt::format("HARNESS_SESSION_ID = {}\nHARNESS_TOKEN = {}\nHARNESS_STATE_DIR = {}\nHARNESS_DB = {}\n"
                      "HARNESS_SPEC_DIR = {}\n",
                      toml_string(req.session_id), toml_string(req.token), toml_string(req.state_dir.string()),
                      toml_string(req.db_path.string()), toml_string(req.spec_dir.string()));
  spec.files.push_back({home / "config.toml", toml});
  spec.argv = {s.codex_binary, "exec", "--json", "--skip-git-repo-check", "--ephemeral", req.prompt};
  spec.env = req.inherited_env;
  add_session_env(spec.env, req);
  spec.env["CODEX_HOME"] = home.string();
  // Without base_url Codex talks to OpenAI itself, and a fresh CODEX_HOME holds no login: its
  // `exec` takes the key from CODEX_API_KEY, so env_key names where that value comes from.
  if (s.codex_env_key && !s.codex_base_url)
    if (auto it = req.inherited_env.find(*s.codex_env_key); it != req.inherited_env.end())
      spec.env["CODEX_API_KEY"] = it->second;
  return spec;
}

std::map<std::string, std::string> template_vars(const LaunchRequest& req) {
  return {{"session_id", req.session_id},       {"task_id", req.task_id},
          {"task_kind", req.task_kind},         {"plan_file", req.plan_file.string()},
          {"spec_dir", req.spec_dir.string()},  {"project_root", req.project_root.string()},
          {"prompt_file", (req.session_dir / "prompt.md").string()},
          {"mcp_config", (req.session_dir / "mcp-config.json").string()},
          {"harness_mcp", req.harness_mcp.string()}, {"harness_cli", req.harness_cli.string()}};
}

} // namespace

std::string_view to_string(AdapterKind k) {
  switch (k) {
  case AdapterKind::claude: return "claude";
  case AdapterKind::codex: return "codex";
  case AdapterKind::command: return "command";
  case AdapterKind::script: return "script";
  case AdapterKind::sim: return "sim";
  }
  return "claude";
}

std::optional<AdapterKind> parse_adapter_kind(std::string_view s) {
  for (auto k : {AdapterKind::claude, AdapterKind::codex, AdapterKind::command, AdapterKind::script,
                 AdapterKind::sim})
    if (to_string(k) == s) return k;
  return std::nullopt;
}

namespace {

/// True for the word after `sh -c` (or `bash -lc`, `env X=1 zsh -ec`): a shell reads it as code.
bool is_shell_code(const std::vector<std::string>& words, std::size_t i) {
  if (i < 2) return false;
  const std::string& opt = words[i - 1];
  if (opt.size() < 2 || opt[0] != '-' || opt.back() != 'c' ||
      !std::all_of(opt.begin() + 1, opt.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); }))
    return false;
  static const std::set<std::string> shells = {"sh", "bash", "dash", "zsh", "ksh", "ash", "mksh"};
  for (std::size_t k = 0; k + 1 < i; ++k)
    if (shells.contains(fs::path(words[k]).filename().string())) return true;
  return false;
}

enum class Quote { none, single, dbl };

/// `value` written where the shell code stands in quoting state `q`, so that the shell reads it
/// back as exactly that text: a path with blanks, quotes or `$(...)` is data, never code.
std::string shell_quoted(std::string_view value, Quote q) {
  std::string out;
  switch (q) {
  case Quote::none: return util::quote_shell_word(value);
  case Quote::single: return "'" + util::quote_shell_word(value) + "'"; // close, the quoted word, reopen
  case Quote::dbl:
    for (char c : value) {
      if (c == '"' || c == '\\' || c == '$' || c == '`') out += '\\';
      out += c;
    }
    return out;
  }
  return out;
}

} // namespace

std::expected<std::vector<std::string>, std::string>
expand_command_template(std::string_view tmpl, const std::map<std::string, std::string>& vars) {
  auto words = util::split_shell_words(tmpl);
  if (!words) return std::unexpected(words.error());
  // Substitute after splitting so that a value with blanks stays one argument. In the code of a
  // `sh -c` the value is quoted for the shell as well, for the quoting state it stands in.
  for (std::size_t k = 0; k < words->size(); ++k) {
    std::string& w = (*words)[k];
    const bool code = is_shell_code(*words, k);
    Quote q = Quote::none;
    std::string out;
    for (size_t i = 0; i < w.size();) {
      const char c = w[i];
      if (c == '{') {
        const size_t end = w.find('}', i);
        if (end != std::string::npos) {
          const std::string name = w.substr(i + 1, end - i - 1);
          auto it = vars.find(name);
          if (it == vars.end()) return std::unexpected(fmt::format("unknown placeholder {{{}}}", name));
          out += code ? shell_quoted(it->second, q) : it->second;
          i = end + 1;
          continue;
        }
      }
      if (code) {
        if (c == '\\' && q != Quote::single && i + 1 < w.size()) { // an escaped character is literal
          out += w.substr(i, 2);
          i += 2;
          continue;
        }
        if (c == '\'' && q != Quote::dbl) q = q == Quote::single ? Quote::none : Quote::single;
        else if (c == '"' && q != Quote::single) q = q == Quote::dbl ? Quote::none : Quote::dbl;
      }
      out += w[i++];
    }
    w = std::move(out);
  }
  if (words->empty()) return std::unexpected("empty command template");
  return words;
}

std::expected<LaunchSpec, std::string> build_launch(AdapterKind kind, const LaunchRequest& req,
                                                    const AdapterSettings& settings) {
  switch (kind) {
  case AdapterKind::claude: return build_claude(req, settings);
  case AdapterKind::codex: return build_codex(req, settings);
  case AdapterKind::command: {
    if (settings.command_template.empty())
      return std::unexpected("the command adapter needs `command` in .orchestration/config.yaml");
    auto argv = expand_command_template(settings.command_template, template_vars(req));
    if (!argv) return std::unexpected("command template: " + argv.error());
    LaunchSpec spec{*argv, req.inherited_env, req.project_root, {}};
    spec.files.push_back({req.session_dir / "prompt.md", req.prompt});
    spec.files.push_back({req.session_dir / "mcp-config.json", mcp_config_json(req)});
    add_session_env(spec.env, req);
    return spec;
  }
  case AdapterKind::script: {
    LaunchSpec spec;
    spec.cwd = req.project_root;
    spec.argv = {req.harness_cli.string(), "script-worker"};
    spec.env = req.inherited_env;
    add_session_env(spec.env, req);
    return spec;
  }
  case AdapterKind::sim:
    return std::unexpected("the sim adapter runs in virtual time and never starts a process");
  }
  return std::unexpected("unknown adapter");
}

} // namespace harness::worker
