// Worker-side harness_worker_* tools: a worker sees and changes only its own session.
#include "tool_support.hpp"

#include <array>
#include <chrono>

namespace harness::mcp {
namespace json = boost::json;
using namespace detail;
using namespace std::chrono_literals;

namespace {

using StorePtr = std::shared_ptr<ToolStore>;

constexpr std::array<std::string_view, 8> k_report_types = {
    "session_ready", "task_started", "progress_update", "verification_needed",
    "decision_needed", "action_needed", "task_completed", "task_failed"};

/// The session status a report moves the session to ("" keeps it).
std::string status_after(std::string_view type) {
  if (type == "session_ready") return "ready";
  if (type == "task_started" || type == "progress_update") return "running";
  if (type == "task_completed") return "completed";
  if (type == "task_failed") return "failed";
  return "waiting";  // verification, decision or action needed: the orchestrator must answer
}

/// The caller's session, or why the call is refused.
std::expected<SessionRow, std::string> authenticate(ToolStore& store, const WorkerIdentity& id) {
  if (id.session_id.empty() || id.token.empty()) {
    return std::unexpected(std::string(
        "not a worker session: HARNESS_SESSION_ID and HARNESS_TOKEN are not set in harness-mcp's environment"));
  }
  auto row = store.session(id.session_id);
  if (!row) return std::unexpected("harness state unavailable: " + row.error());
  if (!*row) return std::unexpected("unknown session " + id.session_id);
  if ((*row)->token != id.token) return std::unexpected("HARNESS_TOKEN does not match session " + id.session_id);
  return **row;
}

ToolResult await_answer(ToolStore& store, const WorkerIdentity& id, const json::object& args, CallContext& ctx) {
  auto me = authenticate(store, id);
  if (!me) return error_result(me.error());
  std::int64_t message = 0;
  if (const json::value* m = args.if_contains("message_id")) message = m->to_number<std::int64_t>();
  if (message == 0) {
    auto latest = store.latest_message(me->id);
    if (!latest) return store_failure(latest.error());
    if (*latest == 0) return error_result("no message to await: report one with harness_worker_report first");
    message = *latest;
  }
  const double timeout = number_arg(args, "timeout_seconds", 300, 0, 86400);
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::milliseconds(static_cast<long long>(timeout * 1000));
  auto last_progress = start;
  for (;;) {
    auto answer = store.response_of(me->id, message);
    if (!answer) return error_result(answer.error());
    if (*answer) return structured_result(json::object{{"message_id", message}, {"answered", true}, {"response", **answer}});
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return structured_result(json::object{{"message_id", message}, {"answered", false}});
    if (now - last_progress >= 1s) {
      last_progress = now;
      ctx.progress(std::chrono::duration<double>(now - start).count(), timeout, "waiting for the orchestrator");
    }
    if (ctx.wait_cancelled_for(100ms)) return error_result("cancelled");
  }
}

}  // namespace

void add_worker_tools(Server& server, const ToolEnvironment& env) {
  auto store = std::make_shared<ToolStore>(env.project);
  const WorkerIdentity id = env.identity;
  add_tool(server, "harness_worker_get_task", "This worker's task and session status.", object_schema({}),
           object_schema({{"session_id", typed("string")}, {"status", typed("string")}, {"task", json::object{}}},
                         {"session_id", "status", "task"}),
           [store, id](const json::object&, CallContext&) {
             auto me = authenticate(*store, id);
             if (!me) return error_result(me.error());
             return structured_result(json::object{{"session_id", me->id}, {"status", me->status}, {"task", me->task}});
           });
  json::array types;
  for (std::string_view t : k_report_types) types.push_back(json::string(t));
  json::object type_schema = typed("string");
  type_schema["enum"] = std::move(types);
  add_tool(server, "harness_worker_report", "Report progress, a question or the result to the orchestrator.",
           object_schema({{"type", std::move(type_schema)}, {"message", typed("string", "short human summary")},
                          {"payload", typed("object", "details (files, question, options...)")}},
                         {"type"}),
           object_schema({{"message_id", typed("integer")}, {"status", typed("string")}}, {"message_id", "status"}),
           [store, id](const json::object& args, CallContext&) {
             auto me = authenticate(*store, id);
             if (!me) return error_result(me.error());
             const std::string type = string_arg(args, "type");
             json::object payload;
             if (const json::value* p = args.if_contains("payload")) payload = p->as_object();
             if (const json::value* m = args.if_contains("message")) payload["message"] = *m;
             auto message = store->add_message(me->id, type, payload);
             if (!message) return store_failure(message.error());
             const std::string status = status_after(type);
             if (auto done = store->set_status(me->id, status); !done) return store_failure(done.error());
             return structured_result(json::object{{"message_id", *message}, {"status", status}});
           });
  add_tool(server, "harness_worker_await", "Wait for the orchestrator's answer to a report (cancellable).",
           object_schema({{"message_id", typed("integer", "default: your latest report")},
                          {"timeout_seconds", typed("number", "default 300")}}),
           object_schema({{"message_id", typed("integer")}, {"answered", typed("boolean")}, {"response", json::object{}}},
                         {"message_id", "answered"}),
           [store, id](const json::object& args, CallContext& ctx) { return await_answer(*store, id, args, ctx); },
           Execution::own_thread);
}

std::vector<Tool> harness_tool_catalog() {
  Server server(ServerInfo{});
  ToolEnvironment env{".", WorkerIdentity{}};
  add_orchestrator_tools(server, env);
  add_worker_tools(server, env);
  return server.tools();
}

}  // namespace harness::mcp
