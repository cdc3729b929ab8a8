// `.orchestration/config.yaml`: parse with file:line diagnostics, render back.
#include "harness/store/state_dir.hpp"

#include "harness/util/atomic_file.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace harness::store {
namespace {

constexpr const char* code_syntax = "H201";
constexpr const char* code_value = "H202";
constexpr const char* code_unknown = "H203";
constexpr std::array<std::string_view, 5> task_kinds{"researcher", "planner", "plan_checker", "executor", "verifier"};

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

  /// An integer in [lo, hi] at `node`, or the previous value with a diagnostic.
  void integer(const YAML::Node& node, const std::string& key, int lo, int hi, int& out) {
    int v = 0;
    try {
      if (!node.IsScalar()) throw YAML::Exception(node.Mark(), "");
      v = node.as<int>();
    } catch (const YAML::Exception&) {
      report(node.Mark(), code_value, fmt::format("`{}` must be an integer", key));
      return;
    }
    if (v < lo || v > hi) return report(node.Mark(), code_value, fmt::format("`{}` must be between {} and {}", key, lo, hi));
    out = v;
  }

  void string(const YAML::Node& node, const std::string& key, std::string& out) {
    if (!node.IsScalar() || node.Scalar().empty())
      return report(node.Mark(), code_value, fmt::format("`{}` must be a non-empty string", key));
    out = node.Scalar();
  }

  void timeouts(const YAML::Node& node, OrchestrationConfig& c) {
    if (!node.IsMap()) return report(node.Mark(), code_value, "`timeouts` must be a mapping");
    for (const auto& kv : node) {
      const auto key = kv.first.Scalar();
      int secs = 0;
      if (key == "task") {
        secs = static_cast<int>(c.task_timeout.count());
        integer(kv.second, "timeouts.task", 1, 7 * 86400, secs);
        c.task_timeout = std::chrono::seconds(secs);
      } else if (key == "checkpoint") {
        secs = static_cast<int>(c.checkpoint_timeout.count());
        integer(kv.second, "timeouts.checkpoint", 1, 30 * 86400, secs);
        c.checkpoint_timeout = std::chrono::seconds(secs);
      } else {
        report(kv.first.Mark(), code_unknown, fmt::format("unknown key `timeouts.{}` (expected task, checkpoint)", key));
      }
    }
  }

  void adapters(const YAML::Node& node, OrchestrationConfig& c) {
    if (!node.IsMap()) return report(node.Mark(), code_value, "`adapters` must be a mapping");
    for (const auto& kv : node) {
      const auto key = kv.first.Scalar();
      if (key == "default") {
        string(kv.second, "adapters.default", c.default_adapter);
      } else if (std::find(task_kinds.begin(), task_kinds.end(), key) != task_kinds.end()) {
        std::string v;
        string(kv.second, "adapters." + key, v);
        if (!v.empty()) c.adapters[key] = v;
      } else {
        report(kv.first.Mark(), code_unknown,
               fmt::format("unknown key `adapters.{}` (expected default, researcher, planner, plan_checker, executor, "
                           "verifier)", key));
      }
    }
  }

  void top(const YAML::Node& root, OrchestrationConfig& c) {
    if (root.IsNull()) return;
    if (!root.IsMap()) return report(root.Mark(), code_value, "config.yaml must be a mapping");
    for (const auto& kv : root) {
      const auto key = kv.first.Scalar();
      const auto& v = kv.second;
      if (key == "slots") integer(v, key, 1, 64, c.slots);
      else if (key == "lookahead") integer(v, key, 0, 16, c.lookahead);
      else if (key == "research_depth") integer(v, key, 0, 4, c.research_depth);
      else if (key == "max_attempts") integer(v, key, 1, 20, c.max_attempts);
      else if (key == "plan_check_iterations") integer(v, key, 1, 20, c.plan_check_iterations);
      else if (key == "timeouts") timeouts(v, c);
      else if (key == "adapters") adapters(v, c);
      else
        report(kv.first.Mark(), code_unknown,
               fmt::format("unknown key `{}` (expected slots, lookahead, research_depth, max_attempts, "
                           "plan_check_iterations, timeouts, adapters)", key));
    }
  }
};

}  // namespace

const std::string& OrchestrationConfig::adapter_for(const std::string& kind) const {
  auto it = adapters.find(kind);
  return it == adapters.end() ? default_adapter : it->second;
}

std::expected<OrchestrationConfig, std::vector<spec::Diagnostic>> parse_config(const std::string& text,
                                                                                const std::string& file_name) {
  ConfigParser p{file_name, {}};
  OrchestrationConfig c;
  try {
    p.top(YAML::Load(text), c);
  } catch (const YAML::Exception& e) {
    p.report(e.mark, code_syntax, e.msg);
  }
  if (!p.diags.empty()) return std::unexpected(std::move(p.diags));
  return c;
}

std::expected<OrchestrationConfig, std::vector<spec::Diagnostic>> load_config(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return OrchestrationConfig{};
  auto text = util::read_file(path);
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
  std::string out = fmt::format(
      "# harness orchestration settings (see docs/readme/store.md)\n"
      "slots: {}\nlookahead: {}\nresearch_depth: {}\nmax_attempts: {}\nplan_check_iterations: {}\n"
      "timeouts:\n  task: {}\n  checkpoint: {}\nadapters:\n  default: {}\n",
      c.slots, c.lookahead, c.research_depth, c.max_attempts, c.plan_check_iterations, c.task_timeout.count(),
      c.checkpoint_timeout.count(), c.default_adapter);
  for (const auto& [kind, adapter] : c.adapters) out += fmt::format("  {}: {}\n", kind, adapter);
  return out;
}

}  // namespace harness::store
