// Worker-side harness_worker_* tools: a worker sees and changes only its own session.
#include "tool_support.hpp"

#include "harness/worker/worker_commit.hpp"

#include <fmt/format.h>

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

/// The caller's session, or why the call is refused.
std::expected<SessionRow, std::string> authenticate(ToolStore& store, const WorkerIdentity& id) {
  if (id.session_id.empty() || id.token.empty()) {
    return std::unexpected(std::string(
        "not a worker session: HARNESS_SESSION_ID and HARNESS_TOKEN are not set in harness-mcp's environment"));
  }
  auto trusted = store.check_token(id.session_id, id.token);
  if (!trusted) return std::unexpected("harness state unavailable: " + trusted.error());
  if (!*trusted) return std::unexpected("HARNESS_TOKEN does not match session " + id.session_id + " (or no such session)");
  auto row = store.session(id.session_id);
  if (!row) return std::unexpected("harness state unavailable: " + row.error());
  if (!*row) return std::unexpected("unknown session " + id.session_id);
  return **row;
}

ToolResult await_answer(ToolStore& store, const WorkerIdentity& id, const json::object& args, CallContext& ctx) {
  auto me = authenticate(store, id);
  if (!me) return error_result(me.error());
  std::string message = string_arg(args, "message_id");
  if (message.empty()) {
    auto latest = store.latest_awaitable(me->id);
    if (!latest) return store_failure(latest.error());
    if (latest->empty()) return error_result("no question to await: report one with harness_worker_report first");
    message = *latest;
  }
  const double timeout = number_arg(args, "timeout_seconds", 300, 0, 86400);
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::milliseconds(static_cast<long long>(timeout * 1000));
  auto last_progress = start;
  bool announced = timeout <= 0;
  for (;;) {
    auto answer = store.response_of(me->id, message);
    if (!answer) return error_result(answer.error());
    if (*answer) return structured_result(json::object{{"message_id", message}, {"answered", true}, {"response", **answer}});
    if (!announced) {
      // The orchestrator cannot see a worker wait: told, it holds the worker's timeouts for as long
      // as this call may block (a question the worker went on from no longer holds them).
      announced = true;
      const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - start).count();
      auto said = store.add_message(me->id, "awaiting_answer", json::object{{"message_id", message}, {"timeout_ms", ms}});
      if (!said) return error_result(said.error());
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return structured_result(json::object{{"message_id", message}, {"answered", false}});
    if (now - last_progress >= 1s) {
      last_progress = now;
      ctx.progress(std::chrono::duration<double>(now - start).count(), timeout, "waiting for the orchestrator");
    }
    if (ctx.wait_cancelled_for(100ms)) return error_result("cancelled");
  }
}

/// harness_worker_commit: the session's plan and spec come from the store, not from the caller.
ToolResult commit(ToolStore& store, const ToolEnvironment& env, const json::object& args) {
  auto me = authenticate(store, env.identity);
  if (!me) return error_result(me.error());
  // The worker has exited (something it left behind calls with its token): its attempt has been
  // judged, and a commit now would land behind that judgement, in whichever attempt runs next.
  if (me->status != "running")
    return error_result(fmt::format("session {} has ended ({}): only a running session commits its plan's work",
                                    me->id, me->status));
  worker::WorkerCommitRequest req;
  req.task_id = string_arg(me->task, "task_id");
  req.spec_name = string_arg(me->task, "spec");
  req.spec_dir = !env.identity.spec_dir.empty() ? std::filesystem::path(env.identity.spec_dir)
                                                : env.project / "docs" / "specs" / req.spec_name;
  req.message = string_arg(args, "message");
  if (const json::value* files = args.if_contains("files"))
    for (const auto& f : files->as_array()) req.files.emplace_back(f.as_string());
  req.task = static_cast<int>(number_arg(args, "task", 0, -1, 1e6));
  auto made = worker::commit_worker_files(req);
  if (!made) return error_result(made.error());
  json::array files, undeclared;
  for (const auto& f : made->files) files.emplace_back(f);
  for (const auto& f : made->undeclared) undeclared.emplace_back(f);
  return structured_result(
      json::object{{"commit", made->hash}, {"files", std::move(files)}, {"undeclared", std::move(undeclared)}});
}

}  // namespace

void add_worker_tools(Server& server, const ToolEnvironment& env) {
  auto store = std::make_shared<ToolStore>(env.project, true);
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
           object_schema({{"type", std::move(type_schema)},
                          {"payload", typed("object", "fields of the type, e.g. decision_needed: question, options")}},
                         {"type"}),
           object_schema({{"message_id", typed("string")}}, {"message_id"}),
           [store, id](const json::object& args, CallContext&) {
             auto me = authenticate(*store, id);
             if (!me) return error_result(me.error());
             const std::string type = string_arg(args, "type");
             json::object payload;
             if (const json::value* p = args.if_contains("payload")) payload = p->as_object();
             auto message = store->add_message(me->id, type, payload);
             if (!message) return error_result(message.error());
             return structured_result(json::object{{"message_id", *message}});
           });
  add_tool(server, "harness_worker_await", "Wait for the orchestrator's answer to a report (cancellable).",
           object_schema({{"message_id", typed("string", "default: your latest question")},
                          {"timeout_seconds", typed("number", "default 300")}}),
           object_schema({{"message_id", typed("string")}, {"answered", typed("boolean")}, {"response", json::object{}}},
                         {"message_id", "answered"}),
           [store, id](const json::object& args, CallContext& ctx) { return await_answer(*store, id, args, ctx); },
           Execution::own_thread);
  json::object strings = typed("array", "paths relative to the project root: exactly what this commit holds");
  strings["items"] = typed("string");
  // 0 would read as "omitted": a worker counting from 0 would commit task 1's files as the SUMMARY's.
  json::object task = typed("integer", "1-based task of the plan; omit for the SUMMARY commit");
  task["minimum"] = 1;
  add_tool(server, "harness_worker_commit", "Commit the named files with this plan's trailers (never run git commit).",
           object_schema({{"message", typed("string", "subject line (and body); Plan/Task/Spec trailers are added")},
                          {"files", std::move(strings)},
                          {"task", std::move(task)}},
                         {"message", "files"}),
           object_schema({{"commit", typed("string")},
                          {"files", typed("array", "paths the commit changed")},
                          {"undeclared", typed("array", "of those, the ones files_modified does not cover: "
                                                        "say why in the SUMMARY")}},
                         {"commit", "files", "undeclared"}),
           [store, env](const json::object& args, CallContext&) { return commit(*store, env, args); }, Execution::own_thread);
}

std::vector<Tool> harness_tool_catalog() {
  Server server(ServerInfo{});
  ToolEnvironment env{".", WorkerIdentity{}};
  add_orchestrator_tools(server, env);
  add_worker_tools(server, env);
  return server.tools();
}

}  // namespace harness::mcp
