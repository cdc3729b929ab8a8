// The registry side of Server, result helpers and the argument check.
#include "harness/mcp/server.hpp"

#include "harness/util/json_text.hpp"

#include <algorithm>
#include <array>

namespace harness::mcp {
namespace json = boost::json;

namespace {

constexpr std::array<std::string_view, 3> k_protocols = {"2025-11-25", "2025-06-18", "2025-03-26"};
constexpr std::array<std::string_view, 8> k_levels = {"debug", "info", "notice", "warning",
                                                      "error", "critical", "alert", "emergency"};

template <typename T>
void add_or_replace(std::vector<T>& items, T item, auto key) {
  auto it = std::find_if(items.begin(), items.end(), [&](const T& x) { return key(x) == key(item); });
  if (it != items.end()) {
    *it = std::move(item);
  } else {
    items.push_back(std::move(item));
  }
}

bool has_type(const json::value& value, std::string_view type) {
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  if (type == "string") return value.is_string();
  if (type == "boolean") return value.is_bool();
  if (type == "null") return value.is_null();
  if (type == "integer") {
    return value.is_int64() || value.is_uint64() || (value.is_double() && value.as_double() == static_cast<double>(static_cast<long long>(value.as_double())));
  }
  if (type == "number") return value.is_number();
  return true;
}

std::optional<std::string> check_value(const json::object& schema, const json::value& value, const std::string& where);

std::optional<std::string> check_object(const json::object& schema, const json::object& value, const std::string& where) {
  const json::value* props = schema.if_contains("properties");
  if (const json::value* required = schema.if_contains("required"); required && required->is_array()) {
    for (const json::value& name : required->as_array()) {
      if (name.is_string() && !value.contains(name.as_string())) {
        return where + ": missing required property '" + std::string(name.as_string()) + "'";
      }
    }
  }
  const json::value* additional = schema.if_contains("additionalProperties");
  for (const auto& [key, item] : value) {
    const json::value* sub = props && props->is_object() ? props->as_object().if_contains(key) : nullptr;
    if (sub == nullptr) {
      if (additional && additional->is_bool() && !additional->as_bool()) {
        return where + ": unknown property '" + std::string(key) + "'";
      }
      continue;
    }
    if (sub->is_object()) {
      if (auto err = check_value(sub->as_object(), item, where + "." + std::string(key))) return err;
    }
  }
  return std::nullopt;
}

std::optional<std::string> check_value(const json::object& schema, const json::value& value, const std::string& where) {
  if (const json::value* type = schema.if_contains("type"); type && type->is_string()) {
    if (!has_type(value, type->as_string())) {
      return where + ": expected " + std::string(type->as_string());
    }
  }
  if (const json::value* allowed = schema.if_contains("enum"); allowed && allowed->is_array()) {
    const auto& list = allowed->as_array();
    if (std::find(list.begin(), list.end(), value) == list.end()) return where + ": value not allowed";
  }
  if (const json::value* minimum = schema.if_contains("minimum"); minimum && minimum->is_number() && value.is_number()) {
    if (value.to_number<double>() < minimum->to_number<double>()) return where + ": below minimum";
  }
  if (const json::value* len = schema.if_contains("minLength"); len && len->is_number() && value.is_string()) {
    if (value.as_string().size() < len->to_number<std::size_t>()) return where + ": too short";
  }
  if (value.is_object()) return check_object(schema, value.as_object(), where);
  if (value.is_array()) {
    if (const json::value* items = schema.if_contains("items"); items && items->is_object()) {
      std::size_t i = 0;
      for (const json::value& item : value.as_array()) {
        if (auto err = check_value(items->as_object(), item, where + "[" + std::to_string(i++) + "]")) return err;
      }
    }
  }
  return std::nullopt;
}

}  // namespace

bool supported_protocol(std::string_view version) {
  return std::find(k_protocols.begin(), k_protocols.end(), version) != k_protocols.end();
}

std::optional<LogLevel> parse_log_level(std::string_view name) {
  for (std::size_t i = 0; i < k_levels.size(); ++i) {
    if (k_levels[i] == name) return static_cast<LogLevel>(i);
  }
  return std::nullopt;
}

ToolResult text_result(std::string text) {
  ToolResult result;
  result.content.push_back(json::object{{"type", "text"}, {"text", std::move(text)}});
  return result;
}

ToolResult error_result(std::string message) {
  ToolResult result = text_result(std::move(message));
  result.is_error = true;
  return result;
}

ToolResult structured_result(json::object data) {
  ToolResult result = text_result(util::json_text(data)); // as structuredContent is written
  result.structured = std::move(data);
  return result;
}

Server::Server(ServerInfo info) : m_info(std::move(info)) {}

void Server::add_tool(Tool tool) {
  add_or_replace(m_tools, std::move(tool), [](const Tool& t) { return t.name; });
}

void Server::add_resource(Resource resource) {
  add_or_replace(m_resources, std::move(resource), [](const Resource& r) { return r.uri; });
}

void Server::add_resource_template(ResourceTemplate resource_template) {
  add_or_replace(m_templates, std::move(resource_template), [](const ResourceTemplate& r) { return r.uri_template; });
}

void Server::add_prompt(Prompt prompt) {
  add_or_replace(m_prompts, std::move(prompt), [](const Prompt& p) { return p.name; });
}

json::object describe_tool(const Tool& tool) {
  json::object out;
  out["name"] = tool.name;
  if (!tool.title.empty()) out["title"] = tool.title;
  out["description"] = tool.description;
  out["inputSchema"] = tool.input_schema;
  if (!tool.output_schema.empty()) out["outputSchema"] = tool.output_schema;
  return out;
}

std::optional<std::string> check_arguments(const json::object& schema, const json::value& arguments) {
  return check_value(schema, arguments, "arguments");
}

}  // namespace harness::mcp
