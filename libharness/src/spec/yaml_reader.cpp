#include "yaml_reader.hpp"

#include "harness/spec/frontmatter.hpp"
#include "harness/spec/yaml_keys.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <charconv>
#include <map>

namespace harness::spec::detail {
namespace {

std::string_view kind_name(const YAML::Node& n) {
  switch (n.Type()) {
  case YAML::NodeType::Map: return "a map";
  case YAML::NodeType::Sequence: return "a list";
  case YAML::NodeType::Scalar: return "a scalar";
  case YAML::NodeType::Null: return "null";
  default: return "nothing";
  }
}

boost::json::value to_json_value(const YAML::Node& n) {
  switch (n.Type()) {
  case YAML::NodeType::Map: {
    boost::json::object o;
    for (const auto& kv : n) o[kv.first.Scalar()] = to_json_value(kv.second);
    return o;
  }
  case YAML::NodeType::Sequence: {
    boost::json::array a;
    for (const auto& v : n) a.push_back(to_json_value(v));
    return a;
  }
  case YAML::NodeType::Scalar: {
    const std::string& s = n.Scalar();
    if (n.Tag() == "!") return boost::json::value(s); // quoted in the source: stays a string
    if (s == "true") return true;
    if (s == "false") return false;
    if (s == "null" || s == "~") return nullptr;
    long long i = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), i);
    if (ec == std::errc{} && p == s.data() + s.size()) return i;
    double d = 0;
    auto [p2, ec2] = std::from_chars(s.data(), s.data() + s.size(), d);
    if (ec2 == std::errc{} && p2 == s.data() + s.size()) return d;
    return boost::json::value(s);
  }
  default: return nullptr;
  }
}

} // namespace

void YamlReader::add_at(int line, int col, Severity sev, std::string code, std::string message) {
  Diagnostic d;
  d.file = m_file;
  d.line = line;
  d.col = col;
  d.severity = sev;
  d.code = std::move(code);
  d.message = std::move(message);
  d.source_line = std::string(line_at(m_text, line));
  m_out.push_back(std::move(d));
}

std::optional<std::string> YamlReader::string(const YAML::Node& n, std::string_view what) {
  if (!n.IsScalar()) {
    error(n, "H004", fmt::format("{} must be a string, not {}", what, kind_name(n)));
    return std::nullopt;
  }
  return n.Scalar();
}

std::optional<int> YamlReader::integer(const YAML::Node& n, std::string_view what) {
  if (n.IsScalar()) {
    const std::string& s = n.Scalar();
    int v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc{} && p == s.data() + s.size()) return v;
  }
  error(n, "H004", fmt::format("{} must be an integer, not {}", what, n.IsScalar() ? "'" + n.Scalar() + "'" : std::string(kind_name(n))));
  return std::nullopt;
}

std::optional<double> YamlReader::number(const YAML::Node& n, std::string_view what) {
  if (n.IsScalar()) {
    const std::string& s = n.Scalar();
    double v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc{} && p == s.data() + s.size()) return v;
  }
  error(n, "H004", fmt::format("{} must be a number, not {}", what, n.IsScalar() ? "'" + n.Scalar() + "'" : std::string(kind_name(n))));
  return std::nullopt;
}

std::optional<bool> YamlReader::boolean(const YAML::Node& n, std::string_view what) {
  if (n.IsScalar()) {
    const std::string& s = n.Scalar();
    if (s == "true" || s == "yes" || s == "True") return true;
    if (s == "false" || s == "no" || s == "False") return false;
  }
  error(n, "H004", fmt::format("{} must be true or false", what));
  return std::nullopt;
}

std::optional<std::vector<std::string>> YamlReader::string_list(const YAML::Node& n, std::string_view what) {
  std::vector<std::string> out;
  if (n.IsNull()) return out;
  if (n.IsScalar()) return std::vector<std::string>{n.Scalar()};
  if (!n.IsSequence()) {
    error(n, "H004", fmt::format("{} must be a list of strings, not {}", what, kind_name(n)));
    return std::nullopt;
  }
  size_t i = 0;
  for (const auto& item : n) {
    if (!item.IsScalar()) {
      error(item, "H004", fmt::format("{}[{}] must be a string, not {}", what, i, kind_name(item)));
      return std::nullopt;
    }
    out.push_back(item.Scalar());
    ++i;
  }
  return out;
}

std::optional<double> YamlReader::duration(const YAML::Node& n, std::string_view what) {
  if (n.IsScalar()) {
    std::string_view s = n.Scalar();
    double v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc{} && v >= 0) {
      std::string_view unit = s.substr(static_cast<size_t>(p - s.data()));
      if (unit.empty() || unit == "s") return v;
      if (unit == "ms") return v / 1000.0;
      if (unit == "m") return v * 60.0;
      if (unit == "h") return v * 3600.0;
    }
  }
  error(n, "H004", fmt::format("{} must be a duration in seconds or like 30s, 5m, 1h", what));
  return std::nullopt;
}

void YamlReader::check_unique_keys(const YAML::Node& n) {
  for (const auto& r : repeated_keys(n))
    error(r.key, "H024", fmt::format("duplicate key '{}' (first on line {}); YAML keys must be unique", r.key.Scalar(),
                                     line_of(r.first)));
}

std::string yaml_to_json(const YAML::Node& n) { return boost::json::serialize(to_json_value(n)); }

} // namespace harness::spec::detail
