// config.yaml → RunOptions.
#include "harness/orchestrator/run_config.hpp"

#include "harness/spec/layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>

namespace harness::orchestrator {
namespace {

using sched::TaskKind;

/// The config's role names (the seeds' agent roles) for each scheduler task kind.
constexpr std::pair<const char*, TaskKind> role_kinds[] = {
    {"researcher", TaskKind::research},     {"planner", TaskKind::plan},
    {"planner", TaskKind::plan_gaps},       {"plan_checker", TaskKind::check_plans},
    {"executor", TaskKind::execute},        {"executor", TaskKind::reconcile},
};

void apply_agent(const store::AgentWorkerConfig& w, std::string& binary, std::optional<std::string>& model) {
  if (w.binary) binary = *w.binary;
  if (w.model) model = *w.model;
}

} // namespace

std::expected<std::optional<int>, std::string> parse_lookahead(std::string_view text) {
  if (text == "unlimited") return std::optional<int>();
  const bool digits = !text.empty() && text.size() <= 2 && std::ranges::all_of(text, [](char c) { return c >= '0' && c <= '9'; });
  const int k = digits ? std::stoi(std::string(text)) : -1;
  if (k < 0 || k > 16) return std::unexpected(std::string("the lookahead is an integer from 0 to 16 or 'unlimited'"));
  return std::optional<int>(k);
}

std::string describe_workers(const RunOptions& options) {
  std::string out = fmt::format("{} worker", worker::to_string(options.adapter));
  // By the roles config.yaml's `adapters:` names, in the table's order, each once.
  std::map<worker::AdapterKind, std::vector<std::string_view>> others;
  for (const auto& [role, kind] : role_kinds) {
    auto it = options.adapter_by_kind.find(kind);
    if (it == options.adapter_by_kind.end() || it->second == options.adapter) continue;
    auto& roles = others[it->second];
    if (std::find(roles.begin(), roles.end(), role) == roles.end()) roles.push_back(role);
  }
  for (const auto& [adapter, kinds] : others) {
    std::string names;
    for (std::size_t i = 0; i < kinds.size(); ++i)
      names += fmt::format("{}{}", i == 0 ? "" : i + 1 == kinds.size() ? " and " : ", ", kinds[i]);
    out += fmt::format(", {} for {}", worker::to_string(adapter), names);
  }
  return out;
}

bool uses_command_worker(const RunOptions& options) {
  if (options.adapter == worker::AdapterKind::command) return true;
  return std::ranges::any_of(options.adapter_by_kind,
                             [](const auto& role) { return role.second == worker::AdapterKind::command; });
}

std::string gsd_config_note(const spec::Layout& layout) {
  std::error_code ec;
  if (layout.kind != spec::LayoutKind::legacy_gsd || !std::filesystem::exists(layout.spec_dir / "config.json", ec)) return {};
  return ".planning/config.json is GSD's and not read by harness (its parallelization, mode and workflow switches): "
         "harness's settings are the command's options and .orchestration/config.yaml (slots, adapters, timeouts)";
}

std::string cost_limit_note(const RunOptions& options) {
  if (!options.max_cost_usd) return {};
  // Only Claude Code reports what an attempt cost; the script worker costs nothing.
  std::vector<std::string_view> blind;
  for (const auto& [role, kind] : role_kinds) {
    const auto a = adapter_for(options, kind);
    if ((a == worker::AdapterKind::codex || a == worker::AdapterKind::command) &&
        std::find(blind.begin(), blind.end(), worker::to_string(a)) == blind.end())
      blind.push_back(worker::to_string(a));
  }
  if (blind.empty()) return {};
  const std::string names = blind.size() == 1 ? fmt::format("the {} worker reports", blind[0])
                                              : fmt::format("the {} and {} workers report", blind[0], blind[1]);
  return fmt::format("--max-cost ${:.2f} counts only the cost Claude Code workers report: {} no cost, so the limit "
                     "cannot see what {} spend{}",
                     *options.max_cost_usd, names, blind.size() == 1 ? "it" : "they", blind.size() == 1 ? "s" : "");
}

void apply_config(const store::OrchestrationConfig& c, RunOptions& o) {
  if (c.slots) o.sched.slots = *c.slots;
  if (c.lookahead)
    if (auto k = parse_lookahead(*c.lookahead)) o.sched.gate_lookahead = *k; // the config parser checked it
  if (c.research_depth) o.sched.research_depth = *c.research_depth;
  if (c.max_attempts) o.sched.max_attempts = *c.max_attempts;
  if (c.plan_check_iterations) o.sched.max_revisions = *c.plan_check_iterations;
  if (c.gap_rounds) o.sched.max_gap_rounds = *c.gap_rounds;
  if (c.max_cost_usd) o.max_cost_usd = *c.max_cost_usd;
  if (c.task_timeout) o.task_timeout = *c.task_timeout;
  if (c.idle_timeout) o.idle_timeout = *c.idle_timeout;
  if (c.stop_grace) o.stop_grace = *c.stop_grace;
  if (c.disk_full_wait) o.disk_full_wait = *c.disk_full_wait;
  if (c.stagger) o.stagger = *c.stagger;
  if (c.rate_limit_backoff) o.rate_limit.first_wait = *c.rate_limit_backoff;
  if (c.rate_limit_max_backoff) o.rate_limit.max_wait = *c.rate_limit_max_backoff;
  if (c.rate_limit_retries) o.rate_limit.retries = *c.rate_limit_retries;
  if (c.default_adapter)
    if (auto k = worker::parse_adapter_kind(*c.default_adapter)) o.adapter = *k;
  for (const auto& [role, kind] : role_kinds) {
    auto it = c.adapters.find(role);
    if (it == c.adapters.end()) continue;
    if (auto k = worker::parse_adapter_kind(it->second)) o.adapter_by_kind[kind] = *k;
  }
  auto& s = o.adapter_settings;
  apply_agent(c.claude, s.claude_binary, s.claude_model);
  if (c.claude.allowed_tools) s.claude_allowed_tools = *c.claude.allowed_tools;
  if (c.claude.permission_mode) s.claude_permission_mode = *c.claude.permission_mode;
  apply_agent(c.codex, s.codex_binary, s.codex_model);
  if (c.codex.base_url) s.codex_base_url = *c.codex.base_url;
  if (c.codex.env_key) s.codex_env_key = *c.codex.env_key;
  if (c.codex.network_access) s.codex_network_access = *c.codex.network_access;
  if (c.command) s.command_template = *c.command;
}

std::expected<void, std::vector<spec::Diagnostic>> apply_project_config(RunOptions& options) {
  std::error_code ec;
  auto layout = spec::discover_layout(options.spec_dir, std::filesystem::current_path(ec));
  if (!layout) return {}; // the run reports an unusable spec directory itself
  return apply_project_config(options, *layout);
}

std::expected<void, std::vector<spec::Diagnostic>> apply_project_config(RunOptions& options, const spec::Layout& layout) {
  auto config = store::load_config(layout.project_root / ".orchestration" / "config.yaml");
  if (!config) return std::unexpected(config.error());
  apply_config(*config, options);
  return {};
}

} // namespace harness::orchestrator
