#pragma once
// Internal: reading typed values out of yaml-cpp nodes while recording diagnostics with the
// file position of the offending node. Not part of the public API.

#include "harness/spec/diagnostic.hpp"

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace harness::spec::detail {

/// Where diagnostics go and how YAML marks map to file lines.
class YamlReader {
public:
  YamlReader(std::string file, std::string_view text, int yaml_first_line, std::vector<Diagnostic>& out)
      : m_file(std::move(file)), m_text(text), m_first_line(yaml_first_line), m_out(out) {}

  /// File line (1-based) of a node.
  int line_of(const YAML::Node& n) const { return n.Mark().line >= 0 ? n.Mark().line + m_first_line : 0; }
  int col_of(const YAML::Node& n) const { return n.Mark().column >= 0 ? n.Mark().column + 1 : 0; }

  void error(const YAML::Node& at, std::string code, std::string message) { add(at, Severity::error, code, message); }
  void warning(const YAML::Node& at, std::string code, std::string message) { add(at, Severity::warning, code, message); }
  void add_at(int line, int col, Severity sev, std::string code, std::string message);

  /// A scalar as a string; a non-scalar is a type error naming `what`.
  std::optional<std::string> string(const YAML::Node& n, std::string_view what);
  std::optional<int> integer(const YAML::Node& n, std::string_view what);
  std::optional<double> number(const YAML::Node& n, std::string_view what);
  std::optional<bool> boolean(const YAML::Node& n, std::string_view what);
  /// A list of strings; a single scalar is accepted as a one-element list.
  std::optional<std::vector<std::string>> string_list(const YAML::Node& n, std::string_view what);
  /// Seconds from a number or "30s", "5m", "1h", "500ms".
  std::optional<double> duration(const YAML::Node& n, std::string_view what);
  /// H024 for every key that repeats an earlier key of the same map, at any depth. yaml-cpp keeps
  /// both entries, and `node[key]` would silently read the first while a loop reads both.
  void check_unique_keys(const YAML::Node& n);

  const std::string& file() const { return m_file; }

private:
  void add(const YAML::Node& at, Severity sev, std::string code, std::string message) {
    add_at(line_of(at), col_of(at), sev, std::move(code), std::move(message));
  }
  std::string m_file;
  std::string_view m_text;
  int m_first_line;
  std::vector<Diagnostic>& m_out;
};

/// Serializes a YAML node as compact JSON text (maps, lists, scalars; numbers and booleans keep
/// their type when they look like one).
std::string yaml_to_json(const YAML::Node& n);

} // namespace harness::spec::detail
