#pragma once
// JSON-RPC 2.0 framing for MCP over stdio: one compact JSON object per line.
#include <boost/json.hpp>

#include <optional>
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

/// Classifies one line of input: parse errors (-32700), batches and invalid shapes (-32600)
/// become `Malformed` with the error reply already serialised. A parse error's reply carries
/// the id `request_id_of` reads (null when there is none), and says when the cause is invalid
/// UTF-8 or an unpaired surrogate escape.
Incoming parse_line(std::string_view line);

/// The top-level `"id"` (string or integer) of a request in `text`, which need not parse as a
/// whole: it may be a prefix of a longer line, hold invalid UTF-8 or unpaired surrogate
/// escapes (`\u` and D800-DFFF). Read up to where the text stops being JSON; nullopt when no
/// usable id came before that, or when the message is a response (it has "result" or "error").
std::optional<boost::json::value> request_id_of(std::string_view text);

/// Serialises a success response `{"jsonrpc":"2.0","id":..,"result":..}` as one compact line.
std::string make_result(const boost::json::value& id, boost::json::value result);

/// Serialises an error response; `data` is omitted when null.
std::string make_error(const boost::json::value& id, RpcError code, std::string_view message,
                       boost::json::value data = nullptr);

/// Serialises a notification `{"jsonrpc":"2.0","method":..,"params":..}`.
std::string make_notification(std::string_view method, boost::json::object params);

}  // namespace harness::mcp
