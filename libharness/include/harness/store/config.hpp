#pragma once
// `.orchestration/config.yaml`: the project's settings for `orchestrate`, parsed with
// file:line:col diagnostics (H201 syntax, H202 bad value, H203 unknown key). Plain data: the
// orchestrator decides what each setting means for a run.

#include "harness/spec/diagnostic.hpp"

#include <chrono>
#include <expected>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace harness::store {

/// Settings of one agent CLI under `workers:` in config.yaml (every field optional).
struct AgentWorkerConfig {
  std::optional<std::string> binary;          ///< program to run (default: found on PATH)
  std::optional<std::vector<std::string>> allowed_tools; ///< claude: tools besides mcp__harness
  std::optional<std::string> permission_mode; ///< claude: --permission-mode
  std::optional<std::string> model;
  std::optional<std::string> base_url;        ///< codex: a model provider of its own
  std::optional<std::string> env_key;         ///< codex: the variable holding the API key
  /// codex: network for the commands the agent runs (its sandbox's `network_access`; off by default)
  std::optional<bool> network_access;
  bool operator==(const AgentWorkerConfig&) const = default;
};

/// `.orchestration/config.yaml`: the project's defaults for `orchestrate`. Every key is optional;
/// an absent key leaves the built-in default, and a command-line flag overrides both.
struct OrchestrationConfig {
  std::optional<int> slots;                   ///< concurrent workers
  std::optional<std::string> lookahead;       ///< phase gate: "0".."16" or "unlimited"
  std::optional<int> research_depth;          ///< phases researched/planned ahead (0..4)
  std::optional<int> max_attempts;            ///< attempts per task before it fails for good
  std::optional<int> plan_check_iterations;   ///< planner/checker rounds before asking a human
  std::optional<int> gap_rounds;              ///< gap-closure rounds per phase before a human
  std::optional<double> max_cost_usd;         ///< stop dispatching at this summed worker cost
  std::optional<std::chrono::seconds> task_timeout;
  std::optional<std::chrono::seconds> idle_timeout;
  std::optional<std::chrono::seconds> stop_grace;
  std::optional<std::chrono::seconds> disk_full_wait; ///< `timeouts.disk_full`: waiting for disk space
  std::optional<std::chrono::milliseconds> stagger; ///< delay between two agent starts
  std::optional<std::chrono::milliseconds> rate_limit_backoff;     ///< first wait after a rate limit
  std::optional<std::chrono::milliseconds> rate_limit_max_backoff; ///< cap of the doubling waits
  std::optional<int> rate_limit_retries;      ///< rate limits in a row that wait before one crashes
  std::optional<std::string> default_adapter;  ///< claude | codex | command | script
  /// Adapter per task kind (researcher, planner, plan_checker, executor); verification is the
  /// engine's, never a worker's (`verifier` is refused, H205).
  std::map<std::string, std::string> adapters;
  AgentWorkerConfig claude;
  AgentWorkerConfig codex;
  std::optional<std::string> command;          ///< command template of the `command` adapter

  bool operator==(const OrchestrationConfig&) const = default;
};

/// Parses config.yaml text; diagnostics carry `file:line:col` and codes H201-H203 (syntax, bad value, unknown key).
std::expected<OrchestrationConfig, std::vector<spec::Diagnostic>> parse_config(const std::string& text,
                                                                                const std::string& file_name);
/// Reads and parses a config file; a missing file yields the defaults.
std::expected<OrchestrationConfig, std::vector<spec::Diagnostic>> load_config(const std::filesystem::path& path);
/// YAML text of a config (parse_config(render_config(c)) == c); absent keys are not written.
std::string render_config(const OrchestrationConfig& config);

}  // namespace harness::store
