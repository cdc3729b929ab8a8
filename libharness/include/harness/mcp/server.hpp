#pragma once
// A small MCP server core (revision 2025-11-25, stdio): registry of tools, resources and prompts,
// and a session loop that answers JSON-RPC lines on a pair of file descriptors.
#include "harness/util/build_info.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <cstddef>
#include <expected>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace harness::mcp {

/// Protocol revisions this server speaks, newest first.
inline constexpr std::string_view k_latest_protocol = "2025-11-25";

/// Returns true when `version` is a revision this server can speak.
bool supported_protocol(std::string_view version);

/// RFC 5424 severities, as MCP logging uses them (ordered least to most severe).
enum class LogLevel { debug, info, notice, warning, error, critical, alert, emergency };

/// Parses a level name ("info", ...); nullopt when unknown.
std::optional<LogLevel> parse_log_level(std::string_view name);

/// What a tool returns: MCP content blocks, optional structured content, and whether the tool
/// itself failed (a failure is still a successful JSON-RPC result with `isError: true`).
struct ToolResult {
  boost::json::array content;
  boost::json::value structured = nullptr;
  bool is_error = false;
};

/// A result with one text block.
ToolResult text_result(std::string text);
/// A tool failure with one text block explaining it.
ToolResult error_result(std::string message);
/// A result whose structured content is `data`, with its compact JSON as the text block too
/// (clients that ignore structuredContent still see the data).
ToolResult structured_result(boost::json::object data);

struct CallState;

/// Given to a tool while it runs: cancellation, progress, logging, requests to the client.
class CallContext {
 public:
  /// Internal: built by the session for each call.
  explicit CallContext(std::shared_ptr<CallState> state);
  /// True once the client cancelled this request or the session is ending.
  bool cancelled() const;
  /// Sleeps up to `timeout`, waking early on cancellation; returns true when cancelled.
  bool wait_cancelled_for(std::chrono::milliseconds timeout) const;
  /// True when the request carried `_meta.progressToken`.
  bool wants_progress() const;
  /// Sends notifications/progress (no-op without a progress token).
  void progress(double value, std::optional<double> total = {}, std::string_view message = {}) const;
  /// Sends notifications/message when `level` passes the client's logging/setLevel threshold.
  void log(LogLevel level, std::string_view logger, boost::json::value data) const;
  /// Sends a request to the client (sampling/createMessage, elicitation/create) and waits for
  /// its answer; an error string on a JSON-RPC error, timeout or cancellation.
  std::expected<boost::json::value, std::string> request_client(
      std::string_view method, boost::json::object params, std::chrono::milliseconds timeout) const;
  /// The capabilities the client declared in initialize (a copy: a later initialize may replace them).
  boost::json::object client_capabilities() const;

 private:
  std::shared_ptr<CallState> m_state;
};

/// Where a tool runs. `inline_call` tools are quick and run on the reader; `own_thread` tools may
/// block (long polls, client requests) and run on a thread of their own so that cancellation and
/// other requests are still read.
enum class Execution { inline_call, own_thread };

/// Handler of a tool; `arguments` already passed the input schema check.
using ToolHandler = std::function<ToolResult(const boost::json::object& arguments, CallContext& context)>;

/// One tool: name, short description, JSON Schema 2020-12 input and (optional) output schema.
struct Tool {
  std::string name;
  std::string description;
  boost::json::object input_schema;
  boost::json::object output_schema;  ///< empty: no outputSchema advertised
  ToolHandler handler;
  Execution execution = Execution::inline_call;
  std::string title;
};

/// A direct resource: `read` returns the `contents` array for its uri.
struct Resource {
  std::string uri;
  std::string name;
  std::string description;
  std::string mime_type;
  std::function<boost::json::array(const std::string& uri)> read;
};

/// A resource template (RFC 6570 level 1: `{name}` segments); `read` gets the concrete uri.
struct ResourceTemplate {
  std::string uri_template;
  std::string name;
  std::string description;
  std::string mime_type;
  std::function<boost::json::array(const std::string& uri)> read;
};

/// A prompt; `arguments` is the MCP argument list; `get` returns the prompts/get result or an
/// error message (answered as -32602).
struct Prompt {
  std::string name;
  std::string description;
  boost::json::array arguments;
  std::function<std::expected<boost::json::object, std::string>(const boost::json::object& args)> get;
};

/// Server identity for initialize.
struct ServerInfo {
  std::string name = "harness-mcp";
  /// "0.1.0+88d91c9abcde": the release, and the commit as semver build metadata.
  std::string version = std::string(util::release_version()) + "+" + std::string(util::build_commit());
  std::string title;
  std::string instructions;
};

/// Whether serve() installs SIGINT/SIGTERM handlers (a library user may own signals).
enum class HandleSignals { yes, no };

/// Options of one stdio session.
struct ServeOptions {
  HandleSignals handle_signals = HandleSignals::yes;
  std::size_t max_line_bytes = 8 * 1024 * 1024;  ///< longer lines are rejected (-32600)
  std::size_t page_size = 100;                    ///< items per tools/list (etc.) page
};

/// The registry. Register everything, then call serve() once.
class Server {
 public:
  /// A server with this identity.
  explicit Server(ServerInfo info);
  /// Registers a tool (names must be unique; a later one replaces an earlier one).
  void add_tool(Tool tool);
  /// Registers a direct resource.
  void add_resource(Resource resource);
  /// Registers a resource template.
  void add_resource_template(ResourceTemplate resource_template);
  /// Registers a prompt.
  void add_prompt(Prompt prompt);
  /// Registered tools in registration order.
  const std::vector<Tool>& tools() const { return m_tools; }
  /// Runs the session: reads JSON-RPC lines from `in_fd`, writes answers to `out_fd` until EOF
  /// on input, a failed write, or SIGINT/SIGTERM. Returns the process exit code (0).
  int serve(int in_fd, int out_fd, const ServeOptions& options) const;

  const ServerInfo& info() const { return m_info; }
  const std::vector<Resource>& resources() const { return m_resources; }
  const std::vector<ResourceTemplate>& resource_templates() const { return m_templates; }
  const std::vector<Prompt>& prompts() const { return m_prompts; }

 private:
  ServerInfo m_info;
  std::vector<Tool> m_tools;
  std::vector<Resource> m_resources;
  std::vector<ResourceTemplate> m_templates;
  std::vector<Prompt> m_prompts;
};

/// The tools/list entry of a tool (name, description, inputSchema, outputSchema, ...).
boost::json::object describe_tool(const Tool& tool);

/// Checks `arguments` against the subset of JSON Schema the server's tools use (type, properties,
/// required, additionalProperties: false, enum, minimum, items); an error message on mismatch.
std::optional<std::string> check_arguments(const boost::json::object& schema, const boost::json::value& arguments);

}  // namespace harness::mcp
