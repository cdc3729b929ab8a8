#include "harness/mcp/jsonrpc.hpp"

#include "harness/util/json_text.hpp"
#include "harness/util/text.hpp"

namespace harness::mcp {
namespace json = boost::json;

namespace {

bool valid_id(const json::value& id) {
  return id.is_string() || id.is_int64() || id.is_uint64();
}

/// The -32700 reply for a line that does not parse. It carries the request's id when one can be
/// read, so that the caller, who waits for that id, fails at once instead of at its timeout.
std::string parse_error_reply(std::string_view line, const json::error_code& ec) {
  std::string message = "Parse error";
  if (ec == json::error::illegal_leading_surrogate || ec == json::error::illegal_trailing_surrogate) {
    message += ": a \\u escape is an unpaired surrogate (strings must be valid Unicode)";
  } else if (!util::valid_utf8(line)) {
    message += ": the line is not valid UTF-8";
  } else {
    message += ": " + ec.message();
  }
  return make_error(request_id_of(line).value_or(nullptr), RpcError::parse_error, message);
}

}  // namespace

Incoming parse_line(std::string_view line) {
  json::error_code ec;
  json::value doc = json::parse(line, ec);
  if (ec) {
    return Malformed{parse_error_reply(line, ec)};
  }
  if (doc.is_array()) {
    return Malformed{make_error(nullptr, RpcError::invalid_request, "Batches are not supported")};
  }
  if (!doc.is_object()) {
    return Malformed{make_error(nullptr, RpcError::invalid_request, "Invalid Request")};
  }
  json::object& msg = doc.as_object();
  const json::value* id = msg.if_contains("id");
  const json::value* version = msg.if_contains("jsonrpc");
  const json::value* method = msg.if_contains("method");
  const bool id_ok = id != nullptr && valid_id(*id);
  json::value reply_id = id_ok ? *id : json::value(nullptr);
  if (version == nullptr || !version->is_string() || version->as_string() != "2.0") {
    return Malformed{make_error(reply_id, RpcError::invalid_request, "Invalid Request: jsonrpc must be \"2.0\"")};
  }
  if (method == nullptr) {
    // A response to something we sent (we send no requests) or garbage: nothing to answer.
    if (id_ok && (msg.contains("result") || msg.contains("error"))) {
      const json::value* result = msg.if_contains("result");
      const json::value* error = msg.if_contains("error");
      return Response{*id, result ? *result : json::value(nullptr), error ? *error : json::value(nullptr)};
    }
    if (msg.contains("result") || msg.contains("error")) return Ignored{};
    return Malformed{make_error(reply_id, RpcError::invalid_request, "Invalid Request: no method")};
  }
  if (!method->is_string() || (id != nullptr && !id_ok)) {
    return Malformed{make_error(reply_id, RpcError::invalid_request, "Invalid Request")};
  }
  json::object params;
  if (const json::value* p = msg.if_contains("params")) {
    if (p->is_object()) {
      params = p->as_object();
    } else if (!p->is_null()) {
      if (id == nullptr) return Ignored{};
      return Malformed{make_error(reply_id, RpcError::invalid_params, "params must be an object")};
    }
  }
  std::string name(method->as_string());
  if (id == nullptr) return Notification{std::move(name), std::move(params)};
  return Request{*id, std::move(name), std::move(params)};
}

std::string make_result(const json::value& id, json::value result) {
  json::object out;
  out["jsonrpc"] = "2.0";
  out["id"] = id;
  out["result"] = std::move(result);
  return util::json_text(out); // valid UTF-8 whatever a string held (review II F6)
}

std::string make_error(const json::value& id, RpcError code, std::string_view message, json::value data) {
  json::object err;
  err["code"] = static_cast<int>(code);
  err["message"] = message;
  if (!data.is_null()) err["data"] = std::move(data);
  json::object out;
  out["jsonrpc"] = "2.0";
  out["id"] = id;
  out["error"] = std::move(err);
  return util::json_text(out); // valid UTF-8 whatever a string held (review II F6)
}

std::string make_notification(std::string_view method, json::object params) {
  json::object out;
  out["jsonrpc"] = "2.0";
  out["method"] = method;
  out["params"] = std::move(params);
  return util::json_text(out); // valid UTF-8 whatever a string held (review II F6)
}

}  // namespace harness::mcp
