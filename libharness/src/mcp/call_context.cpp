#include "session_state.hpp"

#include "harness/mcp/jsonrpc.hpp"
#include "harness/util/json_text.hpp"

#include <cerrno>
#include <unistd.h>

namespace harness::mcp {
namespace json = boost::json;

void SessionShared::write_line(const std::string& line) {
  std::lock_guard lock(write_mutex);
  if (write_failed) return;
  std::string buffer = line;
  buffer.push_back('\n');
  const char* data = buffer.data();
  std::size_t left = buffer.size();
  while (left > 0) {
    ssize_t n = ::write(out_fd, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      write_failed = true;  // the client went away (EPIPE: SIGPIPE is ignored)
      return;
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
}

void CallState::cancel() {
  {
    std::lock_guard lock(mutex);
    cancelled = true;
  }
  cv.notify_all();
  // A waiter on pending_cv checks `cancelled` under pending_mutex: taking it here (after our own
  // mutex, never inside it) means the flag is seen either by its check or by this wake-up.
  { std::lock_guard pending(shared->pending_mutex); }
  shared->pending_cv.notify_all();
}

std::string id_key(const json::value& id) { return json::serialize(id); }

CallContext::CallContext(std::shared_ptr<CallState> state) : m_state(std::move(state)) {}

bool CallContext::cancelled() const {
  std::lock_guard lock(m_state->mutex);
  return m_state->cancelled;
}

bool CallContext::wait_cancelled_for(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(m_state->mutex);
  return m_state->cv.wait_for(lock, timeout, [&] { return m_state->cancelled; });
}

bool CallContext::wants_progress() const { return !m_state->progress_token.is_null(); }

void CallContext::progress(double value, std::optional<double> total, std::string_view message) const {
  if (!wants_progress() || cancelled()) return;
  json::object params;
  params["progressToken"] = m_state->progress_token;
  params["progress"] = value;
  if (total) params["total"] = *total;
  if (!message.empty()) params["message"] = message;
  m_state->shared->write_line(make_notification("notifications/progress", std::move(params)));
}

void CallContext::log(LogLevel level, std::string_view logger, json::value data) const {
  if (static_cast<int>(level) < m_state->shared->log_level.load()) return;
  static constexpr std::string_view names[] = {"debug", "info", "notice", "warning",
                                               "error", "critical", "alert", "emergency"};
  json::object params;
  params["level"] = names[static_cast<int>(level)];
  if (!logger.empty()) params["logger"] = logger;
  params["data"] = std::move(data);
  m_state->shared->write_line(make_notification("notifications/message", std::move(params)));
}

std::expected<json::value, std::string> CallContext::request_client(std::string_view method, json::object params,
                                                                    std::chrono::milliseconds timeout) const {
  SessionShared& shared = *m_state->shared;
  json::value id;
  {
    std::lock_guard lock(shared.pending_mutex);
    id = "harness-" + std::to_string(shared.next_request_id++);
    shared.pending[id_key(id)] = {};
  }
  json::object request;
  request["jsonrpc"] = "2.0";
  request["id"] = id;
  request["method"] = method;
  request["params"] = std::move(params);
  shared.write_line(util::json_text(request));
  std::unique_lock lock(shared.pending_mutex);
  const std::string key = id_key(id);
  const bool answered = shared.pending_cv.wait_for(lock, timeout, [&] {
    return shared.pending[key].done || cancelled();
  });
  SessionShared::Pending pending = std::move(shared.pending[key]);
  shared.pending.erase(key);
  if (!answered || !pending.done) return std::unexpected(std::string(cancelled() ? "cancelled" : "timed out"));
  if (!pending.error.is_null()) {
    const json::value* message = pending.error.is_object() ? pending.error.as_object().if_contains("message") : nullptr;
    return std::unexpected(message && message->is_string() ? std::string(message->as_string()) : "client error");
  }
  return pending.result;
}

json::object CallContext::client_capabilities() const {
  std::lock_guard lock(m_state->shared->caps_mutex);
  return m_state->shared->client_capabilities;
}

}  // namespace harness::mcp
