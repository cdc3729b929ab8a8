// `.orchestration/config.yaml`: parse with file:line diagnostics, render back.
#include "harness/store/config.hpp"

#include "harness/spec/yaml_keys.hpp"
#include "harness/spec/yaml_load.hpp"

#include "harness/util/atomic_file.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <functional>
#include <map>

namespace harness::store {
namespace {

constexpr const char* code_syntax = "H201";
constexpr const char* code_value = "H202";
constexpr const char* code_unknown = "H203";
constexpr const char* code_duplicate = "H204";
constexpr const char* code_not_a_worker = "H205";
constexpr std::array<std::string_view, 4> task_kinds{"researcher", "planner", "plan_checker", "executor"};
constexpr std::array<std::string_view, 4> adapter_names{"claude", "codex", "command", "script"};

template <class Range> std::string joined(const Range& r) {
  std::string out;
  for (const auto& s : r) out += (out.empty() ? "" : ", ") + std::string(s);
  return out;
}

struct ConfigParser {
  const std::string& file;
  std::vector<spec::Diagnostic> diags;

  void report(const YAML::Mark& m, const char* code, std::string message) {
    spec::Diagnostic d;
    d.file = file;
    d.line = m.line + 1;
    d.col = m.column + 1;
    d.code = code;
    d.message = std::move(message);
    diags.push_back(std::move(d));
  }

  /// An integer in [lo, hi] at `node`; nullopt (with a diagnostic) otherwise.
  std::optional<long long> integer(const YAML::Node& node, const std::string& key, long long lo, long long hi) {
    // Decimal always, as YAML 1.2 reads it: yaml-cpp's own conversion takes a leading 0 for octal,
    // and zero-padded numbers ("slots: 08") are a habit of this project's users.
    long long v = 0;
    const std::string text = node.IsScalar() ? node.Scalar() : std::string();
    const char* first = text.data() + (text.starts_with('+') ? 1 : 0);
    const auto [end, err] = std::from_chars(first, text.data() + text.size(), v, 10);
    if (text.empty() || err != std::errc() || end != text.data() + text.size()) {
      report(node.Mark(), code_value, fmt::format("`{}` must be an integer", key));
      return std::nullopt;
    }
    if (v < lo || v > hi) {
      report(node.Mark(), code_value, fmt::format("`{}` must be between {} and {}", key, lo, hi));
      return std::nullopt;
    }
    return v;
  }

  void int_key(const YAML::Node& node, const std::string& key, int lo, int hi, std::optional<int>& out) {
    if (auto v = integer(node, key, lo, hi)) out = static_cast<int>(*v);
  }

  std::optional<std::string> string(const YAML::Node& node, const std::string& key) {
    if (!node.IsScalar() || node.Scalar().empty()) {
      report(node.Mark(), code_value, fmt::format("`{}` must be a non-empty string", key));
      return std::nullopt;
    }
    return node.Scalar();
  }

  std::optional<bool> boolean(const YAML::Node& node, const std::string& key) {
    // YAML 1.2's two words only: yaml-cpp would also take yes/no/on/off, which YAML 1.2 reads as strings.
    if (node.IsScalar() && (node.Scalar() == "true" || node.Scalar() == "false")) return node.Scalar() == "true";
    report(node.Mark(), code_value, fmt::format("`{}` must be true or false", key));
    return std::nullopt;
  }

  std::optional<std::string> adapter(const YAML::Node& node, const std::string& key) {
    auto v = string(node, key);
    if (v && std::find(adapter_names.begin(), adapter_names.end(), *v) == adapter_names.end()) {
      report(node.Mark(), code_value, fmt::format("`{}` must be one of {}", key, joined(adapter_names)));
      return std::nullopt;
    }
    return v;
  }

  /// Walks a mapping, calling `on_key` per entry; reports a non-mapping once.
  void mapping(const YAML::Node& node, const std::string& key,
               const std::function<void(const std::string&, const YAML::Node&, const YAML::Node&)>& on_key) {
    if (!node.IsMap()) return report(node.Mark(), code_value, fmt::format("`{}` must be a mapping", key));
    for (const auto& kv : node) on_key(kv.first.Scalar(), kv.first, kv.second);
  }

  void unknown(const YAML::Node& key_node, const std::string& key, std::string_view expected) {
    report(key_node.Mark(), code_unknown, fmt::format("unknown key `{}` (expected {})", key, expected));
  }

  void timeouts(const YAML::Node& node, OrchestrationConfig& c) {
    mapping(node, "timeouts", [&](const std::string& key, const YAML::Node& k, const YAML::Node& v) {
      const auto full = "timeouts." + key;
      auto secs = [&](long long hi) -> std::optional<std::chrono::seconds> {
        if (auto n = integer(v, full, 1, hi)) return std::chrono::seconds(*n);
        return std::nullopt;
      };
      if (key == "task") c.task_timeout = secs(7 * 86400);
      else if (key == "idle") c.idle_timeout = secs(7 * 86400);
      else if (key == "stop_grace") c.stop_grace = secs(3600);
      else if (key == "disk_full") c.disk_full_wait = secs(7 * 86400);
      else unknown(k, full, "task, idle, stop_grace, disk_full");
    });
  }

  void rate_limit(const YAML::Node& node, OrchestrationConfig& c) {
    constexpr long long day_ms = 86400000;
    YAML::Mark max_mark; // where a cap below the first wait is reported
    mapping(node, "rate_limit", [&](const std::string& key, const YAML::Node& k, const YAML::Node& v) {
      const auto full = "rate_limit." + key;
      auto ms = [&]() -> std::optional<std::chrono::milliseconds> {
        if (auto n = integer(v, full, 1, day_ms)) return std::chrono::milliseconds(*n);
        return std::nullopt;
      };
      if (key == "backoff_ms") c.rate_limit_backoff = ms();
      else if (key == "max_backoff_ms") {
        c.rate_limit_max_backoff = ms();
        max_mark = v.Mark();
      } else if (key == "retries") int_key(v, full, 0, 100, c.rate_limit_retries);
      else unknown(k, full, "backoff_ms, max_backoff_ms, retries");
    });
    // Only when both are written here: a cap below this file's first wait is a slip, whereas a
    // first wait above the built-in cap simply raises it.
    if (c.rate_limit_backoff && c.rate_limit_max_backoff && *c.rate_limit_max_backoff < *c.rate_limit_backoff)
      report(max_mark, code_value,
             fmt::format("`rate_limit.max_backoff_ms` must be at least `rate_limit.backoff_ms` ({})",
                         c.rate_limit_backoff->count()));
  }

  void adapters(const YAML::Node& node, OrchestrationConfig& c) {
    mapping(node, "adapters", [&](const std::string& key, const YAML::Node& k, const YAML::Node& v) {
      if (key == "default") {
        c.default_adapter = adapter(v, "adapters.default");
      } else if (std::find(task_kinds.begin(), task_kinds.end(), key) != task_kinds.end()) {
        if (auto a = adapter(v, "adapters." + key)) c.adapters[key] = *a;
      } else if (key == "verifier") {
        // Accepted once and ignored: a run announced "codex for verifier" and never started one.
        report(k.Mark(), code_not_a_worker,
               "`adapters.verifier`: verification is never given to a worker; harness runs its own checks "
               "(must_pass, artifacts, commits) for every plan, phase and the final; remove the key");
      } else {
        unknown(k, "adapters." + key, "default, " + joined(task_kinds));
      }
    });
  }

  void agent(const YAML::Node& node, const std::string& name, AgentWorkerConfig& w) {
    const bool is_claude = name == "claude";
    mapping(node, "workers." + name, [&](const std::string& key, const YAML::Node& k, const YAML::Node& v) {
      const auto full = "workers." + name + "." + key;
      if (key == "binary") w.binary = string(v, full);
      else if (key == "model") w.model = string(v, full);
      else if (is_claude && key == "permission_mode") w.permission_mode = string(v, full);
      else if (is_claude && key == "allowed_tools") {
        if (!v.IsSequence()) return report(v.Mark(), code_value, fmt::format("`{}` must be a list of tool names", full));
        std::vector<std::string> tools;
        for (const auto& t : v)
          if (auto s = string(t, full)) tools.push_back(*s);
        w.allowed_tools = std::move(tools);
      } else if (!is_claude && key == "base_url") w.base_url = string(v, full);
      else if (!is_claude && key == "env_key") w.env_key = string(v, full);
      else if (!is_claude && key == "network_access") w.network_access = boolean(v, full);
      else unknown(k, full, is_claude ? "binary, model, permission_mode, allowed_tools" : "binary, model, base_url, env_key, network_access");
    });
  }

  void workers(const YAML::Node& node, OrchestrationConfig& c) {
    mapping(node, "workers", [&](const std::string& key, const YAML::Node& k, const YAML::Node& v) {
      if (key == "claude") agent(v, key, c.claude);
      else if (key == "codex") agent(v, key, c.codex);
      else if (key == "command") c.command = string(v, "workers.command");
      else unknown(k, "workers." + key, "claude, codex, command");
    });
  }

  void lookahead(const YAML::Node& v, OrchestrationConfig& c) {
    if (v.IsScalar() && v.Scalar() == "unlimited") {
      c.lookahead = "unlimited";
      return;
    }
    if (!v.IsScalar() || !std::all_of(v.Scalar().begin(), v.Scalar().end(), ::isdigit) || v.Scalar().empty())
      return report(v.Mark(), code_value, "`lookahead` must be an integer between 0 and 16 or `unlimited`");
    if (auto n = integer(v, "lookahead", 0, 16)) c.lookahead = std::to_string(*n);
  }

  void max_cost(const YAML::Node& v, OrchestrationConfig& c) {
    try {
      if (!v.IsScalar()) throw YAML::Exception(v.Mark(), "");
      const double d = v.as<double>();
      if (!(d > 0)) throw YAML::Exception(v.Mark(), "");
      c.max_cost_usd = d;
    } catch (const YAML::Exception&) {
      report(v.Mark(), code_value, "`max_cost_usd` must be a positive number");
    }
  }

  /// The walk below would apply both entries of a repeated key, the last silently winning:
  /// `slots: 4` then `slots: 5` would run 5 slots with no word said.
  void unique_keys(const YAML::Node& root) {
    for (const auto& r : spec::repeated_keys(root))
      report(r.key.Mark(), code_duplicate,
             fmt::format("duplicate key `{}` (first on line {}); YAML keys must be unique", r.path, r.first.Mark().line + 1));
  }

  void top(const YAML::Node& root, OrchestrationConfig& c) {
    if (root.IsNull()) return;
    if (!root.IsMap()) return report(root.Mark(), code_value, "config.yaml must be a mapping");
    for (const auto& kv : root) {
      const auto key = kv.first.Scalar();
      const auto& v = kv.second;
      if (key == "slots") int_key(v, key, 1, 256, c.slots);
      else if (key == "lookahead") lookahead(v, c);
      else if (key == "research_depth") int_key(v, key, 0, 4, c.research_depth);
      else if (key == "max_attempts") int_key(v, key, 1, 20, c.max_attempts);
      else if (key == "plan_check_iterations") int_key(v, key, 1, 20, c.plan_check_iterations);
      else if (key == "gap_rounds") int_key(v, key, 0, 20, c.gap_rounds);
      else if (key == "max_cost_usd") max_cost(v, c);
      else if (key == "stagger_ms") {
        if (auto n = integer(v, key, 0, 600000)) c.stagger = std::chrono::milliseconds(*n);
      } else if (key == "timeouts") timeouts(v, c);
      else if (key == "rate_limit") rate_limit(v, c);
      else if (key == "adapters") adapters(v, c);
      else if (key == "workers") workers(v, c);
      else
        unknown(kv.first, key,
                "slots, lookahead, research_depth, max_attempts, plan_check_iterations, gap_rounds, "
                "max_cost_usd, stagger_ms, timeouts, rate_limit, adapters, workers");
    }
  }
};

void emit_agent(YAML::Emitter& out, const char* name, const AgentWorkerConfig& w) {
  if (w == AgentWorkerConfig{}) return;
  out << YAML::Key << name << YAML::Value << YAML::BeginMap;
  if (w.binary) out << YAML::Key << "binary" << YAML::Value << *w.binary;
  if (w.model) out << YAML::Key << "model" << YAML::Value << *w.model;
  if (w.permission_mode) out << YAML::Key << "permission_mode" << YAML::Value << *w.permission_mode;
  if (w.allowed_tools) out << YAML::Key << "allowed_tools" << YAML::Value << YAML::Flow << *w.allowed_tools;
  if (w.base_url) out << YAML::Key << "base_url" << YAML::Value << *w.base_url;
  if (w.env_key) out << YAML::Key << "env_key" << YAML::Value << *w.env_key;
  if (w.network_access) out << YAML::Key << "network_access" << YAML::Value << *w.network_access;
  out << YAML::EndMap;
}

}  // namespace

std::expected<OrchestrationConfig, std::vector<spec::Diagnostic>> parse_config(const std::string& text,
                                                                                const std::string& file_name) {
  ConfigParser p{file_name, {}};
  OrchestrationConfig c;
  try {
    const YAML::Node root = spec::load_yaml(text);
    p.unique_keys(root);
    p.top(root, c);
  } catch (const YAML::Exception& e) {
    p.report(e.mark, code_syntax, e.msg);
  }
  if (!p.diags.empty()) return std::unexpected(std::move(p.diags));
  return c;
}

std::expected<OrchestrationConfig, std::vector<spec::Diagnostic>> load_config(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return OrchestrationConfig{};
  // A device (a link to /dev/zero) or a pipe would be read until memory or patience ran out.
  auto text = std::filesystem::is_regular_file(path, ec)
                  ? util::read_file(path)
                  : std::expected<std::string, std::string>(std::unexpected("it is not a regular file"));
  if (!text) {
    spec::Diagnostic d;
    d.file = path.string();
    d.code = code_syntax;
    d.message = text.error();
    return std::unexpected(std::vector{d});
  }
  return parse_config(*text, path.string());
}

std::string render_config(const OrchestrationConfig& c) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  auto opt = [&](const char* key, const auto& v) {
    if (v) out << YAML::Key << key << YAML::Value << *v;
  };
  opt("slots", c.slots);
  if (c.lookahead) out << YAML::Key << "lookahead" << YAML::Value << *c.lookahead;
  opt("research_depth", c.research_depth);
  opt("max_attempts", c.max_attempts);
  opt("plan_check_iterations", c.plan_check_iterations);
  opt("gap_rounds", c.gap_rounds);
  opt("max_cost_usd", c.max_cost_usd);
  if (c.stagger) out << YAML::Key << "stagger_ms" << YAML::Value << c.stagger->count();
  if (c.task_timeout || c.idle_timeout || c.stop_grace || c.disk_full_wait) {
    out << YAML::Key << "timeouts" << YAML::Value << YAML::BeginMap;
    if (c.task_timeout) out << YAML::Key << "task" << YAML::Value << c.task_timeout->count();
    if (c.idle_timeout) out << YAML::Key << "idle" << YAML::Value << c.idle_timeout->count();
    if (c.stop_grace) out << YAML::Key << "stop_grace" << YAML::Value << c.stop_grace->count();
    if (c.disk_full_wait) out << YAML::Key << "disk_full" << YAML::Value << c.disk_full_wait->count();
    out << YAML::EndMap;
  }
  if (c.rate_limit_backoff || c.rate_limit_max_backoff || c.rate_limit_retries) {
    out << YAML::Key << "rate_limit" << YAML::Value << YAML::BeginMap;
    if (c.rate_limit_backoff) out << YAML::Key << "backoff_ms" << YAML::Value << c.rate_limit_backoff->count();
    if (c.rate_limit_max_backoff) out << YAML::Key << "max_backoff_ms" << YAML::Value << c.rate_limit_max_backoff->count();
    opt("retries", c.rate_limit_retries);
    out << YAML::EndMap;
  }
  if (c.default_adapter || !c.adapters.empty()) {
    out << YAML::Key << "adapters" << YAML::Value << YAML::BeginMap;
    if (c.default_adapter) out << YAML::Key << "default" << YAML::Value << *c.default_adapter;
    for (const auto& [kind, a] : c.adapters) out << YAML::Key << kind << YAML::Value << a;
    out << YAML::EndMap;
  }
  if (c.claude != AgentWorkerConfig{} || c.codex != AgentWorkerConfig{} || c.command) {
    out << YAML::Key << "workers" << YAML::Value << YAML::BeginMap;
    emit_agent(out, "claude", c.claude);
    emit_agent(out, "codex", c.codex);
    if (c.command) out << YAML::Key << "command" << YAML::Value << *c.command;
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  std::string text = "# harness orchestration settings (README: Configuration)\n";
  if (c == OrchestrationConfig{}) return text + "{}\n";
  return text + out.c_str() + "\n";
}

}  // namespace harness::store
