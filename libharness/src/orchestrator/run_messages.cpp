// Worker reports written into the store by harness-mcp --worker, and requests from harness-mcp
// (harness_start_session, harness_end_session), read whenever the database changes.
#include "run_loop.hpp"

#include "harness/protocol/codec.hpp"
#include "harness/store/checkpoint_answers.hpp"
#include "harness/store/state_dir.hpp"
#include "harness/util/text.hpp"

namespace harness::orchestrator {

void Orchestrator::Impl::schedule_pump() {
  pump_timer.expires_after(std::chrono::milliseconds(10));
  pump_timer.async_wait([this](boost::system::error_code e) {
    if (e || done) return;
    // A PLAN file edited while nothing ends: looked at once the burst of writes is over (an
    // event the scheduler handles meanwhile looks at once).
    if (plan_watch && plan_watch->changed()) plans_dirty = true;
    if (plans_dirty && deferred_events.empty() &&
        std::chrono::steady_clock::now() - plan_watch->last_change() >= std::chrono::milliseconds(30))
      notice_plan_edits();
    if (done) return;
    if (watcher && watcher->changed()) {
      pump_messages();
      pump_requests();
    } else if (++quiet_pumps % 100 == 0) {
      pump_requests(); // about once a second anyway: a read that failed must not strand a request
    }
    // A branch switched meanwhile is noticed within half a second, while workers run: one small
    // file read, no git process.
    if (++pump_ticks % 50 == 0 && !draining && head_moved()) maybe_stop_after_drain();
    if (pump_ticks % 25 == 0) show_live_status(); // a stat per running script worker
    schedule_pump();
  });
}

void Orchestrator::Impl::show_live_status() {
  for (auto& [sid, s] : sessions) {
    if (s.adapter != worker::AdapterKind::script || !host->has_process(sid)) continue;
    std::error_code ec;
    const auto written = fs::last_write_time(s.dir / "status.json", ec);
    if (ec || written == s.status_seen) continue;
    s.status_seen = written;
    // Shown only: what the run acts on comes from the store, after the exit's checked reading.
    const auto status = store::StateDir(state_dir).read_status(sid);
    if (!status || !*status || !(*status)->message) continue;
    const std::string text = util::clipped(*(*status)->message, 500);
    if (text.empty() || text == s.last_progress) continue;
    s.last_progress = text;
    host->touch(sid); // activity, as the same report over MCP is
    emit(RunEventKind::task_progress, s.action.task, s.action.slot, s.action.attempt, text);
  }
}

void Orchestrator::Impl::pump_messages() {
  if (!db) return;
  for (;;) {
    auto batch = db->messages_after(last_seq, 256);
    if (!batch || batch->empty()) return;
    for (const auto& m : *batch) {
      last_seq = m.seq;
      handle_message(m);
    }
  }
}

namespace {

/// How a request is said in the run's log: who asked what, and what became of it ("start of plan
/// 01-04 asked (harness_start_session): queued", "end of session X asked (harness-cli
/// end-session): ended", "...: refused: no plan 09-09 in SPC-001-x").
std::string request_note(const std::string& kind, const std::string& target, const std::string& body,
                         const std::string& status, const boost::json::object& result) {
  boost::system::error_code ec;
  const auto args = boost::json::parse(body, ec);
  std::string by = !ec && args.is_object() ? protocol::field_text(args.as_object(), "requested_by") : "";
  if (by.empty()) by = "harness_" + kind; // over MCP: the tool
  const std::string what = kind == "start_session" ? "start of plan " + target
                           : kind == "end_session" ? "end of session " + target
                                                   : kind + " " + target;
  std::string outcome = status == "refused" ? "refused: " + protocol::field_text(result, "error")
                        : kind == "end_session" ? std::string("ended")
                                                : protocol::field_text(result, "status");
  if (const auto waiting = protocol::field_text(result, "waiting_for"); !waiting.empty()) outcome += " (" + waiting + ")";
  return fmt::format("{} asked ({}): {}", what, by, outcome);
}

} // namespace

void Orchestrator::Impl::pump_requests() {
  if (!db) return;
  auto pending = db->pending_requests(last_request_seq);
  if (!pending) return;
  for (const auto& r : *pending) {
    last_request_seq = r.seq;
    // Taken before acting: an asker that gave up meanwhile has withdrawn it, and it is not done.
    if (auto taken = db->claim_request(r.id); !taken || !*taken) continue;
    auto [status, result] = r.kind == "start_session" ? start_requested(r.target)
                            : r.kind == "end_session" ? end_requested(r.target, r.body)
                                                      : refuse("unknown request " + r.kind);
    emit(RunEventKind::note, r.kind == "start_session" ? "execute:" + r.target : "", -1, 0,
         request_note(r.kind, r.target, r.body, status, result));
    // Not recorded, the request stays `handling` and its asker waits until its own timeout.
    if (auto f = db->finish_request(r.id, status, boost::json::serialize(result)); !f)
      store_failed("", "store: " + f.error());
  }
}

/// Requests written before this run took the lock were meant for an orchestrator that is gone;
/// one written since (the asker saw this run holding the lock) waits for the loop's pump.
void Orchestrator::Impl::refuse_stale_requests() {
  if (!db) return;
  // Taken ones too: a run killed between taking a request and answering it leaves it 'handling'.
  const std::string gone = boost::json::serialize(refuse("the orchestrator asked has stopped; ask again").second);
  if (auto r = db->refuse_requests_before(lock_taken_at, gone); !r)
    emit(RunEventKind::note, "", -1, 0, "could not refuse the requests of an earlier run: " + r.error());
}

Orchestrator::Impl::Answer Orchestrator::Impl::start_requested(const std::string& plan) {
  const std::string task = "execute:" + plan;
  const auto* t = scheduler->find_task(task);
  if (!t) return refuse(fmt::format("no plan {} in {}", plan, spec.layout.spec_name));
  if (draining) return refuse("the run is stopping: no new tasks");
  auto answer = [&](std::string status) {
    boost::json::object o{{"plan_id", plan}, {"status", status}};
    if (auto it = task_session.find(task); it != task_session.end()) o["session_id"] = it->second;
    else o["waiting_for"] = scheduler->why_waiting(task);
    return Answer{"done", std::move(o)};
  };
  using sched::TaskState;
  if (t->state == TaskState::running) return answer("running");
  // Executed, but its verification is blocked (refused by a person, failed its checks): starting
  // the execute again is not what reopens it.
  if (const auto* v = scheduler->find_task("verify-plan:" + plan); t->state == TaskState::done && v && v->state == TaskState::blocked)
    return refuse(fmt::format("{} has run, and its verification is blocked ({}): the next orchestrate verifies it again "
                              "(and asks again), or harness-cli redo {} {} runs the plan again",
                              task, v->reason, spec_arg(), plan));
  if (t->state != TaskState::pending && t->state != TaskState::ready && t->state != TaskState::blocked)
    return refuse(fmt::format("{} is {}", task, sched::to_string(t->state)));
  feed(sched::make_event(EventType::requested, task));
  forget_unblocked();
  return answer(task_session.contains(task) ? "started" : "queued");
}

void Orchestrator::Impl::forget_unblocked() {
  auto still_blocked = [&](const std::string& task) {
    const auto* t = scheduler->find_task(task);
    return t && t->state == sched::TaskState::blocked;
  };
  std::erase_if(blocked_tasks, [&](const spec::BlockedTask& b) { return !still_blocked(b.task); });
  std::erase_if(summary.blocked, [&](const std::string& line) { // "execute:01-02: why"; "run: why" stays
    const auto colon = line.find(": ");
    return colon != std::string::npos && line.compare(0, colon, "run") != 0 && !still_blocked(line.substr(0, colon));
  });
}

Orchestrator::Impl::Answer Orchestrator::Impl::end_requested(const std::string& sid, const std::string& body) {
  auto it = sessions.find(sid);
  if (it == sessions.end()) return refuse(fmt::format("session {} is not running in this orchestrator", sid));
  if (!host->has_process(sid))
    return refuse(fmt::format("session {} runs no worker process (verification runs inside the orchestrator)", sid));
  boost::system::error_code ec;
  auto args = boost::json::parse(body, ec);
  // The CLI says it asked; harness_end_session over MCP sends no `requested_by`.
  std::string by = !ec && args.is_object() ? field(args.as_object(), "requested_by") : "";
  std::string reason = "ended by " + (by.empty() ? std::string("harness_end_session") : by);
  if (!ec && args.is_object())
    if (auto why = field(args.as_object(), "reason"); !why.empty()) reason += ": " + why;
  ended_by_request.insert(sid);
  ended_by_person[it->second.action.task] = reason; // its next attempt (start-session) is told
  host->stop(sid, reason, std::chrono::seconds(2));
  return {"done", boost::json::object{{"session_id", sid}, {"ended", true}}};
}

std::string Orchestrator::Impl::field(const boost::json::object& o, std::string_view key) {
  return protocol::field_text(o, key);
}

void Orchestrator::Impl::handle_message(const store::MessageRecord& m) {
  auto it = sessions.find(m.session_id);
  if (it == sessions.end()) return; // another run's or a finished session's message
  Session& s = it->second;
  boost::system::error_code ec;
  auto parsed = boost::json::parse(m.payload, ec);
  const boost::json::object payload = !ec && parsed.is_object() ? parsed.as_object() : boost::json::object{};
  if (m.type == "awaiting_answer") return hold_while_awaiting(s, payload);
  const bool asks = m.type == "verification_needed" || m.type == "decision_needed" || m.type == "action_needed";
  // A question puts the worker to wait for a person, which no timeout should count; any other
  // report means it is working (again, if it went on without its answer).
  if (asks) host->hold(s.id);
  else {
    host->release(s.id);
    host->touch(s.id); // a message is activity: the idle timeout starts again
  }
  const auto& a = s.action;
  if (m.type == "progress_update") {
    // Shown on one line of the run's output: the store keeps the whole message. A script
    // worker's status shown live already (show_live_status) is not said twice.
    const std::string text = util::clipped(util::printable(field(payload, "message"), false), 500);
    const bool shown = s.adapter == worker::AdapterKind::script && text == s.last_progress;
    s.last_progress = text;
    if (!shown) emit(RunEventKind::task_progress, a.task, a.slot, a.attempt, s.last_progress);
  } else if (m.type == "task_completed") {
    s.reported_completed = true;
    if (auto v = field(payload, "verdict"); !v.empty()) s.report.verdict = v;
    if (auto f = payload.if_contains("findings"); f && f->is_array())
      for (const auto& x : f->as_array())
        if (x.is_string()) s.report.findings.emplace_back(x.as_string());
  } else if (m.type == "task_failed") {
    s.reported_failure = util::clipped(util::printable(field(payload, "error"), false), 2000);
    s.retry_forbidden = field(payload, "retry") == "forbidden";
  } else if (asks) {
    // Shown to a person on one line (respond --list, status, the run's output): a worker's line
    // breaks and escape sequences must not draw lines of its own, such as a forged "answer with".
    const std::string question = util::clipped(util::printable(worker_question_text(m.type, payload), false), 4000);
    auto form = store::worker_question_form(m.type, payload).value_or(store::WorkerQuestionForm{});
    WorkerQuestion q{m.id, form.asks, std::move(form.options)};
    worker_question[a.task] = std::move(q);
    if (a.kind == TaskKind::execute) note_executor_asked(a.subject);
    auto e = sched::make_event(EventType::checkpoint, a.task);
    e.worker_alive = true; // the worker waits in harness_worker_await, holding its slot
    e.detail = fmt::format("{}: {}", m.type, question);
    feed(e);
    stop_workers_waiting_for_people(); // asked while the run drains: nothing else would end it
  }
}

/// The worker blocks in harness_worker_await, on its question or on one it went on from (its
/// progress report released what the question held): its timeouts wait while it may block, and
/// no longer: a question's hold ends with the wait, too.
/// The answer (answer_checkpoint) and its next report end the hold sooner.
void Orchestrator::Impl::hold_while_awaiting(const Session& s, const boost::json::object& payload) {
  if (!db) return;
  // Answered meanwhile: the await has returned or is about to, and the worker goes on.
  auto question = db->message(field(payload, "message_id"));
  if (!question || !*question || (*question)->session_id != s.id || (*question)->status != store::message_pending) return;
  const auto* ms = payload.if_contains("timeout_ms");
  if (!ms || !ms->is_int64() || ms->as_int64() <= 0) return;
  // A little past the wait's end: a worker that waits again, 1 s at a time say, is not counted
  // idle (or charged task time) between one wait and the next.
  host->hold_for(s.id, std::chrono::milliseconds(ms->as_int64()) + std::chrono::seconds(2));
  stop_workers_waiting_for_people(); // waits again while the run drains
}

/// Answers the worker's question in the store; its harness_worker_await returns with it.
void Orchestrator::Impl::answer_worker(const std::string& message_id, const store::CheckpointAnswer& answer) {
  if (!db) return;
  auto msg = db->message(message_id);
  const std::string type = msg && *msg ? (*msg)->type : "";
  if (auto r = db->respond(message_id, boost::json::serialize(store::worker_response(type, answer))); !r)
    store_failed("", "store: " + r.error());
}

} // namespace harness::orchestrator
