#pragma once
// Launch adapters: how a task becomes a worker process. Pure functions from a launch request to
// argv, environment and the config files the process needs; the orchestrator starts it.

#include <expected>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace harness::worker {

enum class AdapterKind { claude, codex, command, script, sim };

std::string_view to_string(AdapterKind k);
std::optional<AdapterKind> parse_adapter_kind(std::string_view s);

/// Everything an adapter needs to know about one attempt of one task.
struct LaunchRequest {
  std::string session_id;
  std::string token;              ///< secret the worker presents to harness-mcp
  std::string task_id;            ///< "execute:03-02"
  std::string task_kind;          ///< "execute"
  std::string prompt;             ///< rendered worker prompt
  std::filesystem::path project_root;
  std::filesystem::path spec_dir;
  std::filesystem::path plan_file;     ///< empty for phase-level tasks
  std::filesystem::path state_dir;     ///< <project>/.orchestration
  std::filesystem::path session_dir;   ///< <state_dir>/sessions/<id>
  std::filesystem::path db_path;
  std::filesystem::path harness_mcp;   ///< absolute path of harness-mcp
  std::filesystem::path harness_cli;   ///< absolute path of harness-cli (script adapter)
  std::map<std::string, std::string> inherited_env; ///< the orchestrator's environment
};

/// Per-adapter settings from `.orchestration/config.yaml` (all optional).
struct AdapterSettings {
  std::string claude_binary = "claude";
  std::vector<std::string> claude_allowed_tools = {"Read", "Edit", "Write", "Glob", "Grep", "Bash"};
  std::string claude_permission_mode = "acceptEdits";
  std::optional<std::string> claude_model;
  std::string codex_binary = "codex";
  std::optional<std::string> codex_base_url; ///< a model provider of its own (tests, proxies)
  std::optional<std::string> codex_env_key;  ///< the variable holding the API key
  /// Network for the commands Codex runs in its workspace-write sandbox (off: not even loopback).
  bool codex_network_access = false;
  std::optional<std::string> codex_model;
  std::string command_template;              ///< for AdapterKind::command
};

/// A file the adapter needs written (atomically) before the process starts.
struct ConfigFile {
  std::filesystem::path path;
  std::string content;
};

struct LaunchSpec {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env; ///< complete environment of the child
  std::filesystem::path cwd;
  std::vector<ConfigFile> files;
};

/// Builds the launch of `kind` for `req`. Fails when the adapter cannot run this request (e.g. a
/// command template that names an unknown placeholder, or `sim`, which never launches).
std::expected<LaunchSpec, std::string> build_launch(AdapterKind kind, const LaunchRequest& req,
                                                    const AdapterSettings& settings);

/// Replaces `{name}` placeholders in a command template and splits it into argv like a POSIX shell
/// splits words (quotes, backslashes), without running a shell. Unknown names are an error.
std::expected<std::vector<std::string>, std::string>
expand_command_template(std::string_view tmpl, const std::map<std::string, std::string>& vars);

} // namespace harness::worker
