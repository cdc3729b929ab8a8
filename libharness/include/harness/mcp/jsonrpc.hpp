#pragma once
// JSON-RPC 2.0 framing for MCP over stdio: one compact JSON object per line.
#include <boost/json.hpp>

#include <string>
#include <string_view>
#include <variant>

namespace harness::mcp {

/// Standard JSON-RPC error codes used by the server.
enum class RpcError : int {
  parse_error = -32700,
  invalid_request = -32600,
  method_not_found = -32601,
  invalid_params = -32602,
  internal_error = -32603,
};

/// A request: has a method and an id (string or integer, echoed with its JSON type).
struct Request {
  boost::json::value id;
  std::string method;
  boost::json::object params;
};

/// A notification: a method without an id; never answered.
struct Notification {
  std::string method;
  boost::json::object params;
};

/// A message the server cannot accept; `reply` is the error response to send (id may be null).
struct Malformed {
  std::string reply;
};

/// A response to a request the server sent to the client (`error` null on success).
struct Response {
  boost::json::value id;
  boost::json::value result;
  boost::json::value error;
};

/// Anything else, dropped silently.
struct Ignored {};

/// One incoming line, classified.
using Incoming = std::variant<Request, Notification, Response, Malformed, Ignored>;

/// Classifies one line of input: parse errors (-32700, id null), batches and invalid shapes
/// (-32600) become `Malformed` with the error reply already serialised.
Incoming parse_line(std::string_view line);

/// Serialises a success response `{"jsonrpc":"2.0","id":..,"result":..}` as one compact line.
std::string make_result(const boost::json::value& id, boost::json::value result);

/// Serialises an error response; `data` is omitted when null.
std::string make_error(const boost::json::value& id, RpcError code, std::string_view message,
                       boost::json::value data = nullptr);

/// Serialises a notification `{"jsonrpc":"2.0","method":..,"params":..}`.
std::string make_notification(std::string_view method, boost::json::object params);

}  // namespace harness::mcp
