#pragma once
// Internal helpers shared by the orchestrator and worker tool files.
#include "harness/mcp/harness_tools.hpp"
#include "harness/mcp/tool_store.hpp"

#include <initializer_list>
#include <memory>
#include <utility>

namespace harness::mcp::detail {

/// `{"type":"object","properties":..,"required":..,"additionalProperties":false}`.
boost::json::object object_schema(boost::json::object properties, std::initializer_list<std::string_view> required = {});
/// `{"type": type}` plus an optional description.
boost::json::object typed(std::string_view type, std::string_view description = {});
/// A string argument from already-validated arguments ("" when absent).
std::string string_arg(const boost::json::object& args, std::string_view key);
/// A number argument clamped to [low, high], `fallback` when absent.
double number_arg(const boost::json::object& args, std::string_view key, double fallback, double low, double high);
/// Turns a store error into a tool failure.
ToolResult store_failure(const std::string& error);
/// Registers one tool.
void add_tool(Server& server, std::string name, std::string description, boost::json::object input,
              boost::json::object output, ToolHandler handler, Execution execution = Execution::inline_call);

}  // namespace harness::mcp::detail
