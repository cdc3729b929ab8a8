// Orchestrator-side harness_* tools.
#include "harness/spec/spec.hpp"
#include "harness/store/checkpoint_answers.hpp"
#include "harness/store/checkpoint_files.hpp"
#include "harness/store/ask_orchestrator.hpp"
#include "harness/store/run_lock.hpp"
#include "harness/store/worker_refusal.hpp"
#include "harness/util/atomic_file.hpp"
#include "harness/util/private_directory.hpp"
#include "harness/worker/output_log.hpp"
#include "tool_support.hpp"

#include <fmt/format.h>

#include <chrono>
#include <expected>
#include <filesystem>
#include <algorithm>
#include <map>
#include <set>

namespace harness::mcp {
namespace json = boost::json;
namespace fs = std::filesystem;
using namespace detail;
using namespace std::chrono_literals;

namespace {

using StorePtr = std::shared_ptr<ToolStore>;

/// Hands a request to the running orchestrator on a connection of its own (the call waits without
/// holding the shared store) and turns the answer into the tool's result.
ToolResult ask_orchestrator(const fs::path& project, const WorkerIdentity& caller, const std::string& kind,
                            const std::string& target, const json::object& args, CallContext& ctx) {
  const fs::path state_dir = project / ".orchestration";
  if (auto why = store::refuse_inside_worker(state_dir, caller.state_dir, caller.session_id, store::PersonsPart::steer_sessions))
    return error_result(*why);
  if (!store::running_orchestrator(state_dir)) return error_result(store::orchestrator_not_running(state_dir));
  auto db = store::Store::open_project(project);
  if (!db) return store_failure(db.error());
  auto answer = store::ask_orchestrator(*db, state_dir, kind, target, json::serialize(args), 30s,
                                        [&](std::chrono::milliseconds step) { return ctx.wait_cancelled_for(step); });
  if (!answer) return error_result(answer.error());
  boost::system::error_code ec;
  json::value result = json::parse(answer->result_json, ec);
  if (!ec && result.is_object() && answer->done) return structured_result(result.as_object());
  const json::value* why = !ec && result.is_object() ? result.as_object().if_contains("error") : nullptr;
  return error_result(why && why->is_string() ? std::string(why->as_string()) : answer->result_json);
}

void add_session_control(Server& s, const fs::path& project, const WorkerIdentity& caller) {
  add_tool(s, "harness_start_session",
           "Ask the running orchestrator to start a plan next (a blocked plan is retried).",
           object_schema({{"plan_id", typed("string", "plan id, e.g. 03-02")}}, {"plan_id"}),
           object_schema({{"plan_id", typed("string")},
                          {"status", typed("string", "started | running | queued")},
                          {"session_id", typed("string", "the worker session, when started or running")},
                          {"waiting_for", typed("string", "why a queued plan does not start yet")}},
                         {"plan_id", "status"}),
           [project, caller](const json::object& args, CallContext& ctx) {
             const std::string plan = string_arg(args, "plan_id");
             if (plan.empty()) return error_result("plan_id must not be empty");
             return ask_orchestrator(project, caller, "start_session", plan, args, ctx);
           },
           Execution::own_thread);
  add_tool(s, "harness_end_session",
           "Stop a running worker session; its task is blocked as refused for this run.",
           object_schema({{"session_id", typed("string")}, {"reason", typed("string", "recorded with the task")}},
                         {"session_id"}),
           object_schema({{"session_id", typed("string")}, {"ended", typed("boolean")}}, {"session_id", "ended"}),
           [project, caller](const json::object& args, CallContext& ctx) {
             const std::string id = string_arg(args, "session_id");
             if (id.empty()) return error_result("session_id must not be empty");
             return ask_orchestrator(project, caller, "end_session", id, args, ctx);
           },
           Execution::own_thread);
}

void add_session_reads(Server& s, const StorePtr& store, const fs::path& project) {
  add_tool(s, "harness_list_sessions", "List worker sessions with status and pending message count.",
           object_schema({}), object_schema({{"sessions", typed("array")}}, {"sessions"}),
           [store](const json::object&, CallContext&) {
             auto sessions = store->list_sessions();
             if (!sessions) return store_failure(sessions.error());
             return structured_result(json::object{{"sessions", std::move(*sessions)}});
           });
  json::object lines = typed("integer", "last N lines (default 50)");
  lines["minimum"] = 1;
  add_tool(s, "harness_get_output", "Tail of a session's output log.",
           object_schema({{"session_id", typed("string")}, {"lines", lines}}, {"session_id"}),
           object_schema({{"session_id", typed("string")}, {"output", typed("string")}}, {"session_id", "output"}),
           [store, project](const json::object& args, CallContext&) {
             const std::string id = string_arg(args, "session_id");
             if (id.empty() || id.find('/') != std::string::npos || id.starts_with(".")) return error_result("invalid session_id");
             auto row = store->session(id);
             if (!row) return store_failure(row.error());
             // The store's log_path when the orchestrator recorded one, else the conventional place.
             fs::path log = project / ".orchestration" / "sessions" / id / "output.log";
             if (*row && !(*row)->log_path.empty()) {
               log = (*row)->log_path;
               if (log.is_relative()) log = project / log;
             }
             std::error_code ec;
             if (!fs::exists(log, ec)) return error_result("no output log for session " + id);
             const auto n = static_cast<std::size_t>(number_arg(args, "lines", 50, 1, 10000));
             return structured_result(json::object{{"session_id", id}, {"output", worker::tail_file(log, n)}});
           });
}

ToolResult wait_for_state(ToolStore& store, const json::object& args, CallContext& ctx) {
  const std::string id = string_arg(args, "session_id");
  auto first = store.session(id);
  if (!first) return store_failure(first.error());
  if (!*first) return error_result("unknown session " + id);
  std::string from = string_arg(args, "from_status");
  if (from.empty()) from = (*first)->status;
  const double timeout = number_arg(args, "timeout_seconds", 30, 0, 3600);
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::milliseconds(static_cast<long long>(timeout * 1000));
  auto last_progress = start;
  for (;;) {
    auto row = store.session(id);
    if (!row) return store_failure(row.error());
    const std::string status = *row ? (*row)->status : "gone";
    const auto now = std::chrono::steady_clock::now();
    if (status != from || now >= deadline) {
      return structured_result(json::object{{"session_id", id}, {"status", status}, {"changed", status != from}});
    }
    if (now - last_progress >= 1s) {
      last_progress = now;
      ctx.progress(std::chrono::duration<double>(now - start).count(), timeout, "waiting for " + id + " to leave " + from);
    }
    // SQLite has no cross-process change notification; a short poll keeps the answer prompt.
    if (ctx.wait_cancelled_for(100ms)) return error_result("cancelled");
  }
}

/// An orchestrator's checkpoint (a verification, an escalation), or a worker's question kept for
/// its task's next worker (its worker was stopped while it waited), as harness_get_pending lists
/// it beside the workers' questions: these live in files, not in the store.
json::object checkpoint_json(const store::PendingCheckpointView& v) {
  json::array options;
  for (const auto& x : store::answer_options(v.record.asks, v.record.options)) options.emplace_back(x);
  const char* how = v.record.asks == store::CheckpointAsks::decision
                        ? "harness_respond with response {\"choice\": <one of the options>} (or {\"choice\":\"refuse\"})"
                    : v.record.asks == store::CheckpointAsks::action
                        ? "harness_respond with response {\"outcome\":\"done\"} or {\"outcome\":\"refused\"}"
                        : "harness_respond with response {\"verdict\":\"approved\"} or {\"verdict\":\"rejected\"}";
  json::object payload{{"task_id", v.record.task}, {"spec", v.record.spec}, {"question", v.record.question},
                       {"options", std::move(options)}, {"how_to_answer", how}};
  if (!v.hint.empty()) payload["note"] = v.hint;
  if (!v.record.head.empty()) payload["head"] = v.record.head; // the commit asked about
  // The spec too: every spec has its own verify-plan:01-01.
  return json::object{{"message_id", v.record.id}, {"task_id", v.record.task}, {"spec", v.record.spec}, {"type", "checkpoint"},
                      {"payload", std::move(payload)}, {"created_at", v.record.opened_at}};
}

/// harness_respond for a checkpoint id, read as `harness-cli respond` reads its answer: strictly as
/// a verification's for an approval, as the worker's own answer (`choice`, `outcome`) for a
/// worker's question, or as a word (`{"answer": "approve"}`).
ToolResult answer_checkpoint(const fs::path& state_dir, const std::string& id, const std::string& asked_id,
                             const json::value& response) {
  // Whether anybody reads an answer comes first: "stale" says more than "not one of the options".
  auto cp = store::answerable_checkpoint(state_dir, id);
  if (!cp) return error_result(cp.error().message);
  const json::object none;
  auto answer = store::read_response_answer(cp->asks, cp->options, response.is_object() ? response.as_object() : none);
  if (!answer) return error_result(answer.error());
  answer->by = store::who_answers("harness_respond over MCP");
  if (auto r = store::answer_checkpoint(state_dir, id, *answer); !r) return error_result(r.error().message);
  return structured_result(json::object{{"message_id", asked_id}, {"responded", true}});
}

/// harness_respond for a worker's question no running orchestrate shows as a checkpoint: checked
/// against the question's kind and options as respond checks an answer, and stored in the form
/// the run itself answers with (store::worker_response), which the worker's await returns.
ToolResult answer_message(ToolStore& store, const std::string& id, const json::value& response) {
  auto msg = store.message(id);
  if (!msg) return store_failure(msg.error());
  if (!*msg || (*msg)->status != store::message_pending) return error_result("message " + id + " is unknown or already answered");
  boost::system::error_code ec;
  const auto payload = json::parse((*msg)->payload, ec);
  const json::object none;
  const auto form = store::worker_question_form((*msg)->type, !ec && payload.is_object() ? payload.as_object() : none);
  if (!form) return error_result("message " + id + " asks nothing: only a worker's question takes an answer");
  auto answer = store::read_response_answer(form->asks, form->options, response.is_object() ? response.as_object() : none);
  if (!answer) return error_result(answer.error());
  auto done = store.respond(id, store::worker_response((*msg)->type, *answer));
  if (!done) return store_failure(done.error());
  if (!*done) return error_result("message " + id + " is unknown or already answered");
  return structured_result(json::object{{"message_id", id}, {"responded", true}});
}

/// What waits for a person: the store's pending worker messages and, unless one session is asked
/// for, the orchestrator's own checkpoints (those live only in files; they belong to no session).
/// A worker's question the running orchestrate shows as a checkpoint is listed once, as its
/// message, with the `checkpoint_id` that `harness-cli respond --list` shows for it.
std::expected<json::array, std::string> pending_questions(ToolStore& store, const fs::path& project,
                                                          const std::string& session) {
  auto messages = store.pending(session);
  if (!messages) return messages;
  std::map<std::string, std::string> checkpoint_of; // a worker's message id -> its checkpoint's id
  std::set<std::string> asked; // the pending messages' ids
  for (const auto& m : *messages) asked.insert(std::string(m.at("message_id").as_string()));
  json::array own;
  for (const auto& v : store::pending_checkpoint_views(project / ".orchestration")) {
    // A worker's question whose worker was stopped while it waited has no pending message any
    // more: the checkpoint is the question now.
    if (v.record.asker == store::CheckpointAsker::worker && asked.contains(v.record.message_id))
      checkpoint_of[v.record.message_id] = v.record.id;
    else if (v.record.asker != store::CheckpointAsker::worker || v.record.kept_for_task)
      own.push_back(checkpoint_json(v));
  }
  for (auto& m : *messages)
    if (auto c = checkpoint_of.find(std::string(m.at("message_id").as_string())); c != checkpoint_of.end())
      m.as_object()["checkpoint_id"] = c->second;
  if (session.empty())
    for (auto& c : own) messages->push_back(std::move(c));
  return messages;
}

void add_messaging(Server& s, const StorePtr& store, const fs::path& project, const WorkerIdentity& caller) {
  add_tool(s, "harness_wait_for_state", "Wait until a session's status changes (long-poll, cancellable).",
           object_schema({{"session_id", typed("string")},
                          {"from_status", typed("string", "status to wait away from (default: current)")},
                          {"timeout_seconds", typed("number", "default 30")}},
                         {"session_id"}),
           object_schema({{"session_id", typed("string")}, {"status", typed("string")}, {"changed", typed("boolean")}},
                         {"session_id", "status", "changed"}),
           [store](const json::object& args, CallContext& ctx) { return wait_for_state(*store, args, ctx); },
           Execution::own_thread);
  add_tool(s, "harness_get_pending",
           "Questions for a person: workers' (with respond --list's checkpoint_id) and the orchestrator's.",
           object_schema({{"session_id", typed("string", "only this session's questions")}}),
           object_schema({{"messages", typed("array")}}, {"messages"}),
           [store, project](const json::object& args, CallContext&) {
             auto messages = pending_questions(*store, project, string_arg(args, "session_id"));
             if (!messages) return store_failure(messages.error());
             return structured_result(json::object{{"messages", std::move(*messages)}});
           });
  add_tool(s, "harness_respond", "Answer a pending worker message or checkpoint.",
           object_schema({{"message_id", typed("string", "a message_id or checkpoint_id from harness_get_pending")},
                          {"response", typed("object", "a decision: {\"choice\":\"B\"}; an action: {\"outcome\":\"done\"}; a verification: {\"verdict\":\"approved\"}")}},
                         {"message_id", "response"}),
           object_schema({{"message_id", typed("string")}, {"responded", typed("boolean")}}, {"message_id", "responded"}),
           [store, project, caller](const json::object& args, CallContext&) {
             const std::string id = string_arg(args, "message_id");
             const fs::path state_dir = project / ".orchestration";
             if (auto why = store::refuse_inside_worker(state_dir, caller.state_dir, caller.session_id,
                                                        store::PersonsPart::answer_checkpoint))
               return error_result(*why);
             if (store::read_checkpoint(state_dir, id)) return answer_checkpoint(state_dir, id, id, args.at("response"));
             // A worker's question the running orchestrate shows as a checkpoint takes the same
             // answer by either id: through the checkpoint, checked as respond checks it.
             for (const auto& v : store::pending_checkpoint_views(state_dir))
               if (v.record.asker == store::CheckpointAsker::worker && v.record.message_id == id)
                 return answer_checkpoint(state_dir, v.record.id, id, args.at("response"));
             return answer_message(*store, id, args.at("response"));
           });
}

/// Plan counts of one spec directory; parsed only when this tool runs, never at start-up.
json::object spec_overview(const fs::path& dir, const std::string& name) {
  json::object out{{"name", name}};
  auto loaded = spec::load_spec(dir, dir.parent_path());
  if (!loaded) {
    out["error"] = loaded.error();
    return out;
  }
  std::int64_t errors = 0;
  for (const auto& d : loaded->diagnostics) errors += d.severity == spec::Severity::error ? 1 : 0;
  out["plans"] = static_cast<std::int64_t>(loaded->plans.size());
  out["plans_with_summary"] = static_cast<std::int64_t>(loaded->summaries.size());
  out["phases_with_verification"] = static_cast<std::int64_t>(loaded->verifications.size());
  out["errors"] = errors;
  return out;
}

/// The phase as harness writes it ("1" gives "01"), or why it cannot be noted: not a phase number
/// ("banana"), or, with a spec, a spec or phase that does not exist.
std::expected<std::string, std::string> phase_to_note(const fs::path& project, const std::string& spec_name,
                                                      const std::string& phase) {
  const auto n = spec::parse_phase_number(phase);
  if (!n) return std::unexpected(fmt::format("phase '{}' is not a phase number (like 01 or 02.1)", phase));
  if (spec_name.empty()) return spec::to_string(*n);
  const fs::path dir = project / "docs" / "specs" / spec_name;
  std::error_code ec;
  if (spec_name.find('/') != std::string::npos || spec_name.starts_with('.') || !fs::is_directory(dir, ec))
    return std::unexpected(fmt::format("no spec '{}' under docs/specs", spec_name));
  auto layout = spec::discover_layout(dir, project);
  if (!layout) return std::unexpected(layout.error());
  if (!layout->find_phase(*n))
    return std::unexpected(fmt::format("spec {} has no phase {} (no phase directory under {})", spec_name, spec::to_string(*n),
                                       fs::relative(layout->plans_dir, project, ec).generic_string()));
  return spec::to_string(*n);
}

json::object project_state(ToolStore& store, const fs::path& project, std::string& error) {
  std::string root = fs::absolute(project).lexically_normal().string();
  if (root.size() > 1 && root.back() == '/') root.pop_back();
  json::object out{{"project", root}};
  auto sessions = store.list_sessions();
  auto pending = pending_questions(store, project, "");
  auto phases = store.verified_phases();
  auto state = store.get_state();
  if (!sessions || !pending || !phases || !state) {
    error = !sessions ? sessions.error() : !pending ? pending.error() : !phases ? phases.error() : state.error();
    return out;
  }
  std::map<std::string, std::int64_t> by_status;
  for (const json::value& row : *sessions) by_status[std::string(row.at("status").as_string())]++;
  json::object counts;
  for (const auto& [status, n] : by_status) counts[status] = n;
  json::array specs;
  std::error_code ec;
  std::vector<std::string> names;
  for (auto it = fs::directory_iterator(project / "docs" / "specs", ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (it->is_directory(ec)) names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());  // stable output, not directory order
  for (auto& n : names) specs.push_back(spec_overview(project / "docs" / "specs" / n, n));
  out["specs"] = std::move(specs);
  out["sessions"] = json::object{{"total", static_cast<std::int64_t>(sessions->size())}, {"by_status", std::move(counts)}};
  out["pending_messages"] = static_cast<std::int64_t>(pending->size());
  out["verified_phases"] = std::move(*phases);
  out["state"] = std::move(*state);
  return out;
}

void add_state_tools(Server& s, const StorePtr& store, const fs::path& project) {
  add_tool(s, "harness_get_project_state", "Project overview: specs, sessions, pending messages, verified phases.",
           object_schema({}),
           // Every key the result carries: clients (the official SDKs) check the result against it.
           object_schema({{"project", typed("string")},
                          {"specs", typed("array")},
                          {"sessions", typed("object")},
                          {"pending_messages", typed("integer")},
                          {"verified_phases", typed("array")},
                          {"state", typed("object")}},
                         {"project"}),
           [store, project](const json::object&, CallContext&) {
             std::string error;
             json::object out = project_state(*store, project, error);
             if (!error.empty()) return store_failure(error);
             return structured_result(std::move(out));
           });
  add_tool(s, "harness_sync_state", "Write the readable projection .orchestration/state.json.",
           object_schema({}), object_schema({{"path", typed("string")}}, {"path"}),
           [store, project](const json::object&, CallContext&) {
             std::string error;
             json::object out = project_state(*store, project, error);
             if (!error.empty()) return store_failure(error);
             const fs::path file = store->state_dir() / "state.json";
             (void)util::create_state_directory(store->state_dir()); // the write says what failed
             if (auto written = util::write_file_atomic(file, json::serialize(out) + "\n"); !written) {
               return error_result("cannot write " + written.error()); // it names the file
             }
             return structured_result(json::object{{"path", file.string()}});
           });
  add_tool(s, "harness_set_state", "Set an execution-state key to a JSON value.",
           object_schema({{"key", typed("string")}, {"value", json::object{}}}, {"key", "value"}),
           object_schema({{"key", typed("string")}}, {"key"}),
           [store](const json::object& args, CallContext&) {
             const std::string key = string_arg(args, "key");
             if (key.empty()) return error_result("key must not be empty");
             if (auto done = store->set_state(key, args.at("value")); !done) return store_failure(done.error());
             return structured_result(json::object{{"key", key}});
           });
  add_tool(s, "harness_get_state", "Read execution state (one key or all).",
           object_schema({{"key", typed("string")}}), object_schema({{"state", typed("object")}}, {"state"}),
           [store](const json::object& args, CallContext&) {
             auto state = store->get_state();
             if (!state) return store_failure(state.error());
             const std::string key = string_arg(args, "key");
             if (key.empty()) return structured_result(json::object{{"state", std::move(*state)}});
             const json::value* v = state->if_contains(key);
             if (!v) return error_result("no state key " + key);
             return structured_result(json::object{{"state", json::object{{key, *v}}}});
           });
  add_tool(s, "harness_mark_phase_verified",
           // Descriptions cost model context: the rest is in docs/readme/mcp.md.
           "Note that a phase was verified. Verifies nothing: harness reads only the phase's VERIFICATION.md.",
           object_schema({{"phase", typed("string", "phase number, e.g. 01 or 02.1")},
                          {"spec", typed("string", "spec directory under docs/specs, e.g. SPC-001-auth; the phase must exist in it")},
                          {"note", typed("string")}},
                         {"phase"}),
           object_schema({{"phase", typed("string")}, {"spec", typed("string")}, {"verified", typed("boolean")}},
                         {"phase", "verified"}),
           [store, project](const json::object& args, CallContext&) {
             const std::string spec_name = string_arg(args, "spec");
             auto phase = phase_to_note(project, spec_name, string_arg(args, "phase"));
             if (!phase) return error_result(phase.error());
             if (auto done = store->mark_phase_verified(*phase, string_arg(args, "note"), spec_name); !done)
               return store_failure(done.error());
             json::object out{{"phase", *phase}, {"verified", true}};
             if (!spec_name.empty()) out["spec"] = spec_name;
             return structured_result(std::move(out));
           });
}

}  // namespace

void add_orchestrator_tools(Server& server, const ToolEnvironment& env) {
  auto store = std::make_shared<ToolStore>(env.project);
  add_session_control(server, env.project, env.identity);
  add_session_reads(server, store, env.project);
  add_messaging(server, store, env.project, env.identity);
  add_state_tools(server, store, env.project);
}

}  // namespace harness::mcp
