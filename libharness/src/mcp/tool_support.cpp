#include "tool_support.hpp"

#include <algorithm>

namespace harness::mcp::detail {
namespace json = boost::json;

json::object object_schema(json::object properties, std::initializer_list<std::string_view> required) {
  json::object schema{{"type", "object"}, {"properties", std::move(properties)}};
  if (required.size() > 0) {
    json::array names;
    for (std::string_view r : required) names.push_back(json::string(r));
    schema["required"] = std::move(names);
  }
  schema["additionalProperties"] = false;
  return schema;
}

json::object typed(std::string_view type, std::string_view description) {
  json::object out{{"type", type}};
  if (!description.empty()) out["description"] = description;
  return out;
}

std::string string_arg(const json::object& args, std::string_view key) {
  const json::value* v = args.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

double number_arg(const json::object& args, std::string_view key, double fallback, double low, double high) {
  const json::value* v = args.if_contains(key);
  const double value = v && v->is_number() ? v->to_number<double>() : fallback;
  return std::clamp(value, low, high);
}

ToolResult store_failure(const std::string& error) { return error_result("harness state unavailable: " + error); }

void add_tool(Server& server, std::string name, std::string description, json::object input, json::object output,
              ToolHandler handler, Execution execution) {
  server.add_tool(Tool{std::move(name), std::move(description), std::move(input), std::move(output), std::move(handler), execution, {}});
}

}  // namespace harness::mcp::detail
