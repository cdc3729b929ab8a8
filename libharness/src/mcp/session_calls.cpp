// tools/call execution, cancellation and answers from the client.
#include "session.hpp"

#include <exception>
#include <thread>

namespace harness::mcp {
namespace json = boost::json;

namespace {

json::object tool_result_json(const ToolResult& result) {
  json::object out;
  out["content"] = result.content;
  if (!result.structured.is_null()) out["structuredContent"] = result.structured;
  if (result.is_error) out["isError"] = true;
  return out;
}

ToolResult run_handler(const Tool& tool, const json::object& args, CallContext& context) {
  try {
    return tool.handler(args, context);
  } catch (const std::exception& e) {
    return error_result(tool.name + " failed: " + e.what());
  } catch (...) {
    return error_result(tool.name + " failed");
  }
}

}  // namespace

std::string Session::call_tool(Request& request) {
  const json::value* name = request.params.if_contains("name");
  if (!name || !name->is_string()) return make_error(request.id, RpcError::invalid_params, "name is required");
  const Tool* tool = nullptr;
  for (const Tool& t : m_server.tools()) {
    if (t.name == name->as_string()) tool = &t;
  }
  if (!tool) return make_error(request.id, RpcError::invalid_params, "Unknown tool: " + std::string(name->as_string()));
  json::object args;
  if (const json::value* a = request.params.if_contains("arguments"); a && !a->is_null()) {
    if (!a->is_object()) return make_result(request.id, tool_result_json(error_result("arguments must be an object")));
    args = a->as_object();
  }
  if (auto problem = check_arguments(tool->input_schema, args)) {
    return make_result(request.id, tool_result_json(error_result("Invalid arguments: " + *problem)));
  }
  auto state = std::make_shared<CallState>();
  state->shared = m_shared;
  state->request_id = request.id;
  if (const json::value* meta = request.params.if_contains("_meta"); meta && meta->is_object()) {
    if (const json::value* token = meta->as_object().if_contains("progressToken")) state->progress_token = *token;
  }
  if (tool->execution == Execution::inline_call) {
    CallContext context(state);
    return make_result(request.id, tool_result_json(run_handler(*tool, args, context)));
  }
  {
    std::lock_guard lock(m_calls_mutex);
    m_in_flight[id_key(request.id)] = state;
    ++m_threads;
  }
  std::thread([this, tool, state, args = std::move(args)] { run_call(*tool, state, args); }).detach();
  return {};
}

void Session::run_call(const Tool& tool, const std::shared_ptr<CallState>& state, const json::object& args) {
  CallContext context(state);
  ToolResult result = run_handler(tool, args, context);
  finish_call(state, result);
  std::lock_guard lock(m_calls_mutex);
  --m_threads;
  m_calls_cv.notify_all();
}

void Session::finish_call(const std::shared_ptr<CallState>& state, const ToolResult& result) {
  {
    std::lock_guard calls(m_calls_mutex);
    m_in_flight.erase(id_key(state->request_id));
  }
  // Checked under the call's lock so that a cancel racing the finish either wins (no answer)
  // or arrives after the answer was written.
  std::lock_guard lock(state->mutex);
  if (state->cancelled) return;
  m_shared->write_line(make_result(state->request_id, tool_result_json(result)));
}

void Session::handle_notification(const Notification& note) {
  if (note.method != "notifications/cancelled") return;  // initialized, roots changes: nothing to do
  const json::value* id = note.params.if_contains("requestId");
  if (!id) return;
  std::shared_ptr<CallState> state;
  {
    std::lock_guard lock(m_calls_mutex);
    auto it = m_in_flight.find(id_key(*id));
    if (it == m_in_flight.end()) return;  // already answered or unknown: ignore, as the spec says
    state = it->second;
  }
  state->cancel();
}

void Session::handle_response(const Response& response) {
  {
    std::lock_guard lock(m_shared->pending_mutex);
    auto it = m_shared->pending.find(id_key(response.id));
    if (it == m_shared->pending.end()) return;
    it->second.done = true;
    it->second.result = response.result;
    it->second.error = response.error;
  }
  m_shared->pending_cv.notify_all();
}

void Session::shutdown() {
  std::unique_lock lock(m_calls_mutex);
  for (auto& [key, state] : m_in_flight) state->cancel();
  m_calls_cv.wait(lock, [&] { return m_threads == 0; });
}

}  // namespace harness::mcp
