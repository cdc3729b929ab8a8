// The run loop: scheduler events in, actions out; worker processes; the run's start and end.
// The loop's state is Orchestrator::Impl (run_loop.hpp).
#include "run_loop.hpp"

#include "harness/orchestrator/changes_since_final.hpp"
#include "harness/orchestrator/redo.hpp"

#include "harness/orchestrator/display.hpp"
#include "harness/orchestrator/run_config.hpp"
#include "harness/orchestrator/prune.hpp"
#include "harness/orchestrator/session_id.hpp"
#include "harness/orchestrator/uncommitted_verdicts.hpp"
#include "harness/util/text.hpp"
#include "harness/util/private_directory.hpp"
#include "harness/worker/index_lock.hpp"
#include "harness/worker/spawn.hpp"

#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <iterator>

namespace harness::orchestrator {

RunView Orchestrator::Impl::view() const {
  RunView v;
  v.elapsed_seconds = elapsed();
  for (int s = 0; s < opt.sched.slots; ++s) {
    SlotView sv{s, "", 0, ""};
    if (auto it = slot_task.find(s); it != slot_task.end()) {
      sv.task_id = it->second;
      if (auto ts = task_session.find(it->second); ts != task_session.end()) {
        const auto& sess = sessions.at(ts->second);
        sv.started_at = std::chrono::duration<double>(sess.started - t0).count();
        sv.last_progress = sess.last_progress;
      }
    }
    v.slots.push_back(sv);
  }
  if (scheduler) // none yet while the run recovers what an earlier one left: no plan counted
    for (const auto& t : scheduler->tasks())
      // A plan dropped during the run (its PLAN file removed) is no plan of it any more.
      if (t.kind == TaskKind::verify_plan && t.state != sched::TaskState::dropped) {
        ++v.plans_total;
        v.plans_verified += t.state == sched::TaskState::done;
      }
  v.waiting_checkpoints = static_cast<int>(checkpoints.size());
  v.cost_usd = summary.cost_usd;
  v.prompt = tty_prompt;
  v.lines_typed = tty_lines_read;
  if (tty_mode && tty_mode->active()) v.typed = util::printable(tty_editor.partial(), false);
  return v;
}

void Orchestrator::Impl::emit(RunEventKind kind, const std::string& task, int slot, int attempt, std::string message) {
  RunEvent e{kind, 0, task, slot, attempt, std::move(message)};
  if (const auto s = task_session.find(task); s != task_session.end()) e.session_id = s->second;
  emit(std::move(e));
}

void Orchestrator::Impl::emit(RunEvent e) {
  e.elapsed_seconds = elapsed();
  observer.on_event(e, view());
  check_output();
}

void Orchestrator::Impl::check_output() {
  if (output_gone || observer.output_error() != EPIPE) return;
  output_gone = true;
  // Not from inside the emit: its caller is half-way through its own step.
  asio::post(ctx, [this] {
    if (draining || done) return; // an interrupt drains already: this is no second one
    emit(RunEventKind::note, "", -1, 0, "standard output is closed: no new tasks; running ones finish, as after Ctrl-C");
    on_interrupt();
  });
}

void Orchestrator::Impl::feed(const sched::Event& e) {
  deferred_events.push_back(e);
  if (deferred_events.size() > 1) return; // re-entrant call: the outer loop drains the queue
  while (!deferred_events.empty()) {
    notice_plan_edits();
    const auto& front = deferred_events.front();
    auto actions = scheduler->handle(front);
    for (const auto& a : actions) apply(a);
    if (front.type == EventType::succeeded && !front.plans.empty()) remember_own_plans(front);
    if (front.type == EventType::succeeded) last_failure.erase(front.task); // a later pass is told no stale failure
    if (const auto* t = scheduler->find_task(front.task)) { // its kind and subject, not its id taken apart
      if (front.type == EventType::succeeded && t->kind == TaskKind::execute) note_reconciled(t->subject, false);
      if ((front.type == EventType::succeeded || front.type == EventType::answered) &&
          (t->kind == TaskKind::check_plans || t->kind == TaskKind::verify_phase))
        save_loop_rounds(t->subject);
    }
    // A change its own writer was making, left for later: looked at again now that it ended.
    if (plan_edits_deferred && (front.task.starts_with("plan:") || front.task.starts_with("plan-gaps:") ||
                                front.task.starts_with("reconcile:")))
      plans_dirty = true;
    deferred_events.pop_front();
  }
  if (!planning_marked.empty()) clear_checked_planning();
  // Draining, the last running task (a worker or a verification) just ended: nothing else will
  // wake the loop, so the run ends here.
  if (draining) maybe_stop_after_drain();
}

void Orchestrator::Impl::notice_plan_edits() {
  if (!plan_watch || !scheduler || done) return;
  if (plan_watch->changed()) plans_dirty = true;
  if (!plans_dirty) return;
  plans_dirty = false;
  reload_spec();
  auto fate = [this](const std::string& id, const spec::PhaseNumber& n) { return scheduler->edit_fate(id, n); };
  auto own = [this](const std::string& id, const spec::PhaseNumber& n) {
    const auto phase = spec::to_string(n);
    const auto* plan = scheduler->find_task("plan:" + phase);
    const auto* gaps = scheduler->find_task("plan-gaps:" + phase);
    const auto* reconcile = scheduler->find_task("reconcile:" + id);
    using S = sched::TaskState;
    return (plan && plan->state != S::done) || (gaps && gaps->state != S::done && gaps->state != S::blocked) ||
           (reconcile && (reconcile->state == S::running || reconcile->state == S::waiting));
  };
  auto found = find_plan_edits(plans_seen, spec, fate, own);
  plans_seen = std::move(found.seen);
  plan_edits_deferred = found.deferred;
  for (auto& n : found.notes) emit(RunEventKind::note, n.task, -1, 0, std::move(n.message));
  if (found.empty()) return;
  for (const auto& a : scheduler->handle(found.event)) apply(a);
}

void Orchestrator::Impl::remember_own_plans(const sched::Event& e) {
  std::set<std::string> written;
  for (const auto& wp : e.plans) {
    written.insert(wp.id);
    if (const auto* p = spec.find_plan(wp.id)) plans_seen[wp.id] = snapshot_plan(*p);
  }
  if (!e.task.starts_with("plan:")) return;
  // A planning pass writes its phase's plans: those it left out are gone from the graph too.
  const auto phase = spec::parse_phase_number(e.task.substr(5));
  std::erase_if(plans_seen, [&](const auto& kv) { return phase && kv.second.frontmatter.phase == *phase && !written.contains(kv.first); });
}

void Orchestrator::Impl::succeed(const std::string& task, sched::Verdict verdict, bool deviations, std::string detail) {
  auto e = sched::make_event(EventType::succeeded, task);
  e.verdict = verdict;
  e.has_deviations = deviations;
  e.detail = std::move(detail);
  feed(e);
  refresh_status_soon(task);
}

void Orchestrator::Impl::put_back_reconciled_plan(const std::string& task) {
  const auto it = reconcile_start.find(task);
  if (it == reconcile_start.end()) return;
  const auto [rel, was] = std::move(it->second);
  reconcile_start.erase(it);
  if (util::read_file(spec.layout.project_root / rel) == was.text) return;
  const auto where = put_back_plans(spec.layout, {rel}, {{rel, was}});
  reload_spec();
  emit(RunEventKind::note, task, -1, 0,
       where ? fmt::format("its edit of {} is put back as the plan was when the attempt started (kept in {}): the next "
                           "attempt reconciles the plan once, not over its own edit",
                           rel, *where)
             : fmt::format("its edit of {} could not be put back ({}): look at it before the next attempt edits it again",
                           rel, where.error()));
}

void Orchestrator::Impl::fail(const std::string& task, sched::FailureClass why, std::string detail) {
  put_back_reconciled_plan(task); // a reconcile's (review TT L2: a retry edited its edit again)
  if (why != sched::FailureClass::rate_limited) last_failure[task] = detail; // told to its next attempt
  expire_carried(task, "the task failed in this run (" + detail + "); it asks again if it gets there");
  // Before the event: the retry it may start must find the SUMMARY already discounted.
  if (const auto* t = scheduler->find_task(task); t && t->kind == TaskKind::execute) discount_failed_summary(task, t->subject);
  auto e = sched::make_event(EventType::failed, task);
  e.failure = why;
  e.detail = std::move(detail);
  feed(e);
  refresh_status_soon(task);
}

void Orchestrator::Impl::apply(const sched::Action& a) {
  switch (a.type) {
  case ActionType::start: start_task(a); break;
  case ActionType::resume:
    // Nothing to say: answer_checkpoint said what was answered, and the worker goes on by itself.
    if (is_verify(a.kind)) asio::post(ctx, [this, t = a.task] { succeed(t); });
    break;
  case ActionType::ask_human: ask_human(a); break;
  case ActionType::defer: {
    if (disk_waits.contains(a.task)) return wait_for_space(a);
    const auto wait = rate_limit_wait(opt.rate_limit, rate_limits[a.task]);
    // The attempt's task_failed (with the API's message) was emitted as its session ended: this
    // is the plan for it, not a second failure.
    emit(RunEventKind::note, a.task, a.slot, a.attempt,
         fmt::format("rate-limited; retrying in {:g} s (costs no attempt)", std::chrono::duration<double>(wait).count()));
    auto timer = std::make_shared<asio::steady_timer>(ctx, wait);
    timer->async_wait([this, timer, t = a.task](boost::system::error_code e) {
      if (!e) feed(sched::make_event(EventType::retry_due, t));
    });
    break;
  }
  case ActionType::blocked: {
    const std::string reason = a.reason + attempt_leftovers_note(a);
    summary.blocked.push_back(fmt::format("{}: {}", a.task, reason));
    blocked_tasks.push_back({a.task, reason});
    emit(RunEventKind::task_blocked, a.task, -1, 0, reason);
    break;
  }
  case ActionType::finished:
    summary.outcome = a.reason;
    summary.exit_code = a.reason == "complete" ? 0 : 1;
    finish_run();
    break;
  case ActionType::rejected: emit(RunEventKind::note, a.task, -1, 0, "scheduler ignored an event: " + a.reason); break;
  }
}

worker::AdapterKind Orchestrator::Impl::adapter_for(TaskKind k) const { return orchestrator::adapter_for(opt, k); }

void Orchestrator::Impl::start_task(const sched::Action& a) {
  // Nothing new after the first Ctrl-C; the next run resumes it. A cost limit stops the workers
  // only: the engine's verifications cost nothing, and the work just paid for gets verified.
  if (draining && !(summary.outcome == "cost_limit" && is_verify(a.kind))) return;
  if (head_moved()) return; // not on the run's branch: nothing new starts (begins the drain)
  if (hold_start_for_space(a)) return;
  ++summary.attempts;
  slot_task[a.slot] = a.task;
  Session s;
  // A task reopened by harness_start_session counts its attempts from 1 again.
  const int use = ++session_id_uses[session_id(a.task, a.attempt, run_id)];
  s.id = session_id(a.task, a.attempt, run_id, use);
  s.action = a;
  s.started = std::chrono::steady_clock::now();
  s.dir = state_dir / "sessions" / s.id;
  s.adapter = adapter_for(a.kind);
  task_session[a.task] = s.id;
  const std::string sid = s.id;
  sessions.emplace(sid, std::move(s));
  emit(RunEventKind::task_started, a.task, a.slot, a.attempt, a.continuation ? "continuation" : "");
  if (a.kind == TaskKind::plan && sessions.at(sid).adapter != worker::AdapterKind::script) mark_planning(a.subject, PlanningStage::planning);
  if (a.kind == TaskKind::execute) {
    note_executed_again(a);
    remember_plan_as_started(a);
  }
  if (a.kind == TaskKind::verify_plan && a.continuation) {
    // The checks passed before the checkpoint and a human approved: nothing to run again.
    asio::post(ctx, [this, sid, a] {
      mark_plan_verified(a);
      end_session(sid, "approved");
      succeed(a.task);
    });
    return;
  }
  if (is_verify(a.kind)) return run_verification(sessions.at(sid));
  // What an agent's planning task may not change is compared with this when it ends (plan_guard).
  if ((is_planning(a.kind) || a.kind == TaskKind::reconcile) && sessions.at(sid).adapter != worker::AdapterKind::script) {
    sessions.at(sid).plans_before = read_plan_files(spec);
    sessions.at(sid).guard_plans = true;
    if (a.kind == TaskKind::reconcile) // its own plan, put back if the attempt does not succeed
      for (const auto& [rel, was] : sessions.at(sid).plans_before)
        if (was.plan == a.subject) reconcile_start[a.task] = {rel, was};
  }
  if (a.kind != TaskKind::execute && sessions.at(sid).adapter == worker::AdapterKind::script) {
    // The script worker has no agent for research, planning or reconciling: the engine's part
    // is done by the harness (plans must already exist on disk), and the run says so.
    if (is_planning(a.kind)) return asio::post(ctx, [this, sid] { finish_planning(sid); });
    asio::post(ctx, [this, sid] {
      auto& sess = sessions.at(sid);
      const auto task = sess.action.task;
      end_session(sid, "script worker: nothing mechanical to do for " + std::string(sched::to_string(sess.action.kind)));
      succeed(task);
    });
    return;
  }
  if (sessions.at(sid).adapter != worker::AdapterKind::script && opt.stagger.count() > 0) {
    // Agent CLIs started in the same instant contend for their config files and the API's
    // connection limits: starts are spaced by `stagger`, the rest of the loop runs meanwhile.
    const auto now = std::chrono::steady_clock::now();
    const auto at = std::max(now, next_agent_start);
    next_agent_start = at + opt.stagger;
    if (at > now) {
      // task_started came with the dispatch: said, so its worker's silence meanwhile is no fault.
      const auto& held = sessions.at(sid).action;
      emit(RunEventKind::note, held.task, held.slot, held.attempt,
           fmt::format("its worker starts in {:.1f} s (stagger_ms spaces agent starts)",
                       std::chrono::duration<double>(at - now).count()));
      auto timer = std::make_shared<asio::steady_timer>(ctx, at);
      timer->async_wait([this, timer, sid](boost::system::error_code e) {
        auto it = sessions.find(sid);
        if (e || it == sessions.end()) return;
        if (draining) {
          end_session(sid, "not started: the run is stopping", false);
          return maybe_stop_after_drain();
        }
        launch_worker(it->second);
      });
      return;
    }
  }
  launch_worker(sessions.at(sid));
}

void Orchestrator::Impl::end_session(const std::string& sid, const std::string& message, bool ok) {
  auto it = sessions.find(sid);
  if (it == sessions.end()) return;
  const auto& a = it->second.action;
  slot_task.erase(a.slot);
  close_answers_in_flight(a.task);
  emit(ok ? RunEventKind::task_succeeded : RunEventKind::task_failed, a.task, a.slot, a.attempt, message);
  task_session.erase(a.task); // after its last event, which names the session
  sessions.erase(it);
}

std::vector<std::pair<int, std::string>> Orchestrator::Impl::committed_tasks(const sched::Action& a) {
  const auto* p = plan_of(a);
  if (!p || a.kind != TaskKind::execute) return {};
  if (a.attempt > 1) trailers->refresh(); // a retry within this run may follow an attempt that committed
  return trailers->standing_tasks(p->id, ours());
}

std::string Orchestrator::Impl::render_prompt(const Session& s) {
  static const std::vector<std::string> none;
  auto findings = revision_findings.find(s.action.subject);
  auto task = task_brief(spec, s.action, opt.worker_prompt_template.parent_path(),
                         s.action.kind == TaskKind::plan && findings != revision_findings.end() ? findings->second : none,
                         committed_tasks(s.action), person_notes_for(s.action),
                         s.action.attempt > 1 && last_failure.contains(s.action.task) ? last_failure.at(s.action.task) : "");
  if (auto kept = carried_questions.find(s.action.task); kept != carried_questions.end()) {
    for (auto& r : kept->second) r.answer = store::read_checkpoint_answer(state_dir, r.id); // answered since, perhaps
    task["earlier_questions"] = earlier_questions_input(kept->second);
  }
  auto tmpl = util::read_file(opt.worker_prompt_template);
  const std::string task_json = boost::json::serialize(task);
  if (!tmpl) return "You are a harness worker. Task: " + task_json;
  auto r = worker::render_template(*tmpl, {{"session_id", s.id}, {"task_id", s.action.task}, {"task_json", task_json},
                                           {"task_kind", std::string(sched::to_string(s.action.kind))},
                                           {"adapter", std::string(worker::to_string(s.adapter))},
                                           {"spec_dir", spec.layout.spec_dir.string()}, {"subject", s.action.subject}});
  return r ? *r : "You are a harness worker. Task: " + task_json;
}

std::vector<std::string> Orchestrator::Impl::person_notes_for(const sched::Action& a) {
  std::vector<std::string> notes;
  if (const auto* p = plan_of(a); p && a.kind == TaskKind::execute)
    if (const auto marker = trailers->pending_redo(p->id, ours())) {
      // Only a redone plan pays for this read: one commit's message.
      const auto shown = worker::run_git(spec.layout.project_root, {"show", "-s", "--format=%B", marker->hash});
      if (const auto note = shown.exit_code == 0 ? redo_note_of(shown.out, p->id) : ""; !note.empty())
        notes.push_back(fmt::format("asked to run again (harness-cli redo, commit {}): {}", marker->hash.substr(0, 7), note));
    }
  if (const auto ended = ended_by_person.find(a.task); ended != ended_by_person.end())
    notes.push_back("an earlier attempt was " + ended->second);
  if (a.kind == TaskKind::plan || a.kind == TaskKind::plan_gaps)
    if (auto refusal = refusal_of_loop(a); !refusal.empty()) notes.push_back(std::move(refusal));
  return notes;
}

std::string Orchestrator::Impl::refusal_of_loop(const sched::Action& a) const {
  // The loop's bound asked a person about the plans (check-plans) or the gaps (verify-phase); the
  // newest answer counts. Planning is rare: one walk of the session directories is affordable.
  const std::string asked = (a.kind == TaskKind::plan ? "check-plans:" : "verify-phase:") + a.subject;
  std::optional<store::CheckpointAnswer> newest;
  for (const auto& r : store::read_checkpoints(state_dir))
    if (r.task == asked && r.spec == spec.layout.spec_name && r.answer && (!newest || r.answer->at > newest->at))
      newest = r.answer;
  if (!newest || newest->approved || newest->note.empty()) return {};
  return fmt::format("{} refused {} at {}: {}", newest->by.empty() ? "a person" : newest->by,
                     a.kind == TaskKind::plan ? "this phase's plans when the checker kept sending them back"
                                              : "this phase's verification with the gaps left after the gap-closure rounds",
                     newest->at, newest->note);
}

void Orchestrator::Impl::fail_start(const std::string& sid, const std::string& task, const std::string& why, int error_number) {
  // Never started: the store says so at once, also before a pause a kill may cut short, or the
  // next run took it for a worker that had ended while no orchestrator watched (review II F8, KK F2).
  if (db)
    if (auto r = db->set_session_status(sid, "failed"); !r) store_failed(task, "store: " + r.error());
  // Out of descriptors or processes, a retry at once meets the same limit (both attempts went in
  // 10 ms): the slot is held a little first, while other workers may end and free some.
  auto failed = [this, sid, task, why] {
    // A session directory or prompt a full disk could not take (review OO F1): the disk's fault.
    if (defer_for_space(sid, task, why)) return;
    end_session(sid, why, false);
    fail(task, sched::FailureClass::crashed, why);
  };
  if (!out_of_resources(error_number)) return asio::post(ctx, failed);
  auto timer = std::make_shared<asio::steady_timer>(ctx, start_retry_pause);
  timer->async_wait([timer, failed](boost::system::error_code) { failed(); });
}

void Orchestrator::Impl::launch_worker(Session& s) {
  // A reconcile is told which SUMMARYs deviated: written by workers of this run, after the spec
  // was last read.
  if (s.action.kind == TaskKind::reconcile) reload_spec();
  worker::LaunchRequest req;
  req.session_id = s.id;
  req.token = random_hex(16);
  req.task_id = s.action.task;
  req.task_kind = std::string(sched::to_string(s.action.kind));
  req.project_root = spec.layout.project_root;
  req.spec_dir = spec.layout.spec_dir;
  if (const auto* p = plan_of(s.action)) req.plan_file = spec.layout.spec_dir / p->file;
  req.state_dir = state_dir;
  req.session_dir = s.dir;
  req.db_path = state_dir / "harness.db";
  req.harness_mcp = opt.harness_mcp;
  req.harness_cli = opt.harness_cli;
  req.inherited_env = worker::current_environment();
  if (s.adapter != worker::AdapterKind::script) req.prompt = render_prompt(s);
  else if (const auto* p = plan_of(s.action); p && s.action.kind == TaskKind::execute) {
    // The script worker skips tasks already committed; tell it which, so it need not walk the
    // history.
    // And a commit the history behind that list reached at least (taken first: the index may read
    // further meanwhile), from which a worker that cannot take the list as whole reads on.
    const std::string at = trailers ? trailers->head() : std::string();
    req.inherited_env["HARNESS_DONE_TASKS"] = worker::format_done_tasks(committed_tasks(s.action));
    req.inherited_env.erase("HARNESS_DONE_TASKS_AT");
    if (!at.empty()) req.inherited_env["HARNESS_DONE_TASKS_AT"] = at;
    // No session of this task in any run before: no attempt can have left files behind. Asked of
    // this spec's task: another spec's 01-01 left nothing in this plan's files.
    req.inherited_env.erase("HARNESS_FIRST_ATTEMPT");
    if (s.action.attempt == 1 && db)
      if (auto seen = db->has_session_for_task(s.action.task, spec.layout.spec_name); seen && !*seen)
        req.inherited_env["HARNESS_FIRST_ATTEMPT"] = "1";
  }
  auto launch = worker::build_launch(s.adapter, req, opt.adapter_settings);
  const std::string sid = s.id, task = s.action.task;
  if (!launch) return fail_start(sid, task, launch.error(), 0);
  // Made here, private: the prompt, the log, a transcript and the token are the user's alone, also
  // in a `.orchestration/` that an older harness made with the umask's mode.
  if (auto ec = util::create_private_directories(s.dir))
    return fail_start(sid, task, fmt::format("cannot create {}: {}", s.dir.string(), ec.message()), ec.value());
  if (db) {
    store::SessionRecord pre;
    pre.id = s.id;
    pre.slot = s.action.slot;
    pre.working_dir = spec.layout.project_root.string();
    pre.task_id = task;
    pre.spec = spec.layout.spec_name;
    pre.attempt = s.action.attempt;
    pre.token = req.token;
    pre.adapter = std::string(worker::to_string(s.adapter));
    if (auto r = db->create_session(pre); !r) store_failed(task, "store: " + r.error());
  }
  auto pid = host->start(s.id, *launch, s.dir / "output.log", opt.task_timeout, opt.idle_timeout, opt.stop_grace);
  if (!pid) return fail_start(sid, task, pid.error().message, pid.error().error_number);
  write_worker_record(s.dir, {*pid, process_start_ticks(*pid), task, s.id, spec.layout.spec_name});
  if (db) {
    // harness-mcp --worker accepts the worker's calls only for a session with this token.
    store::SessionRecord rec;
    rec.id = s.id;
    rec.slot = s.action.slot;
    rec.working_dir = spec.layout.project_root.string();
    rec.current_command = launch->argv.front();
    rec.pid = *pid;
    rec.pgid = *pid;
    rec.pid_start_time = process_start_ticks(*pid);
    rec.task_id = task;
    rec.spec = spec.layout.spec_name;
    rec.attempt = s.action.attempt;
    rec.token = req.token;
    rec.adapter = std::string(worker::to_string(s.adapter));
    rec.log_path = (s.dir / "output.log").string();
    if (auto r = db->update_session(rec); !r) store_failed(task, "store: " + r.error());
  }
}

void Orchestrator::Impl::on_line(const std::string& sid, std::string_view line) {
  auto it = sessions.find(sid);
  if (it == sessions.end()) return;
  auto& s = it->second;
  if (s.adapter == worker::AdapterKind::claude) s.claude.feed_line(line);
  else if (s.adapter == worker::AdapterKind::codex) s.codex.feed_line(line);
  else if (!line.empty()) s.last_progress = std::string(util::utf8_prefix(line, 120));
}

namespace {

/// What WorkerHost stopped outside the worker's group, named so the user can see what the agent
/// left behind (a dev server, a watcher) and why it is gone.
std::string escaped_note(const std::vector<std::string>& commands) {
  constexpr std::size_t shown = 3;
  std::string names;
  for (std::size_t i = 0; i < commands.size() && i < shown; ++i)
    names += (i ? ", " : "") + fmt::format("`{}`", util::clipped(util::printable(commands[i], false), 100));
  if (commands.size() > shown) names += fmt::format(" and {} more", commands.size() - shown);
  return fmt::format("stopped {} process{} the worker left running outside its process group (setsid or a "
                     "group of its own), which would have outlived the run: {}",
                     commands.size(), commands.size() == 1 ? "" : "es", names);
}

} // namespace

void Orchestrator::Impl::record_session_end(const std::string& sid, const WorkerExit& x, bool kept, bool moved) {
  std::string status = x.exit_code == 0 && !x.stopped ? "completed" : "failed";
  std::optional<std::string> reason;
  const bool cost = summary.outcome == "cost_limit";
  // Ended on purpose, before any verdict on its work: not a failure of the worker's.
  if (moved) reason = "HEAD moved during the run: not checked here; the next run checks it";
  else if (x.stopped && x.stop_reason == "shutdown" && kept)
    reason = cost ? "stopped at --max-cost while waiting for an answer" : "interrupted while waiting for an answer";
  else if (x.stopped && x.stop_reason == "shutdown")
    reason = cost ? "stopped: the run reached --max-cost" : "stopped: the run was interrupted";
  else if (x.stopped && ended_by_request.contains(sid)) reason = x.stop_reason; // "ended by harness-cli end-session: ..."
  if (reason) status = "ended";
  // Not said, the session would stay `running` and an end-session caller would wait for it.
  if (auto r = db->set_session_status(sid, status, x.exit_code, reason); !r)
    store_failed(sessions.contains(sid) ? sessions.at(sid).action.task : "", "store: " + r.error());
}

void Orchestrator::Impl::on_exit(const std::string& sid, const WorkerExit& x) {
  auto it = sessions.find(sid);
  if (it == sessions.end()) return;
  Session& s = it->second;
  const std::string task = s.action.task;
  if (db) { // a worker without MCP reports through files in its session directory
    const auto ingested = store::StateDir(state_dir).ingest_session(*db, sid);
    for (const auto& e : ingested.errors) emit(RunEventKind::note, task, -1, 0, e);
    for (const auto& e : ingested.store_errors) store_failed(task, "store: " + e);
  }
  pump_messages(); // reports written just before the exit count
  if (!x.escaped.empty()) emit(RunEventKind::note, task, -1, 0, escaped_note(x.escaped));
  if (s.action.kind == TaskKind::execute) {
    if (x.escaped.empty()) stopped_leftovers.erase(s.action.subject);
    else stopped_leftovers[s.action.subject] = x.escaped;
  }
  // Stopped by the run itself (an interrupt, --max-cost): its question is still the task's, and
  // goes to the task's next worker; a worker that exits on its own takes its question with it.
  const bool shutdown = x.stopped && x.stop_reason == "shutdown";
  const bool kept = shutdown && keep_questions(task);
  const bool left_question = !shutdown && withdraw_questions(task, s.reported_completed);
  if (db) // its asker can no longer read it: the checkpoint file is the question now
    if (auto r = db->expire_pending(sid); !r) store_failed(task, "store: " + r.error());
  // A session end-session asked to end is recorded ended only once STATUS.md names its refusal
  // (below): `status` reads the one or the other, never a plan ready in between (review CC F8).
  // Asked once for this exit (review RR F11): a checkout landing between two asks would have the
  // store record the exit one way and the loop handle it the other.
  const bool moved = head_moved();
  const bool ended_on_request = x.stopped && !shutdown && ended_by_request.contains(sid) && !moved;
  if (db && !ended_on_request) record_session_end(sid, x, kept, moved);
  if (s.action.kind == TaskKind::execute)
    execute_minutes += std::chrono::duration<double>(std::chrono::steady_clock::now() - s.started).count() / 60.0;
  // A copy: end_session() below erases the session, and with it the adapter's own facts.
  std::optional<worker::AgentRunFacts> facts;
  if (s.adapter == worker::AdapterKind::claude) facts = s.claude.facts();
  else if (s.adapter == worker::AdapterKind::codex) facts = s.codex.facts();
  if (facts) {
    summary.cost_usd += facts->cost_usd;
    check_cost(); // before this attempt's outcome lets the scheduler start anything new
  }
  // A worker stopped in the middle of a commit may leave git's index lock behind.
  if (x.stopped) {
    begin_stopping_workers();
    clear_orphaned_index_lock(std::chrono::milliseconds(250));
  }
  // Judged on another branch, its commits would be missing and its files another branch's: the
  // next run, back on the run's branch, judges it (its commits decide what is done).
  if (moved || head_moved()) {
    // Moved since the ask above: the store has no word on this exit yet (ended on request waits).
    if (!moved && db && ended_on_request) record_session_end(sid, x, kept, true);
    return end_session(sid, "ended after HEAD moved or its branch was rewound: not checked here; the next run checks it", false);
  }
  // Before the outcome: a failed or stopped attempt's task commits stand too (its retry skips them).
  log_attempt_commits(s);
  // Before anything reads the plans again: a plan this task was not to change is put back.
  if (const auto forbidden = undo_forbidden_plan_changes(s); !forbidden.empty()) {
    if (shutdown || ended_on_request || x.stopped) emit(RunEventKind::note, task, -1, 0, forbidden);
    else {
      end_session(sid, forbidden, false); // erases `s`
      return fail(task, sched::FailureClass::crashed, forbidden);
    }
  }
  if (shutdown) {
    end_session(sid, kept ? "stopped while waiting for an answer: the question stays open, and the next run gives its "
                            "answer to the task's next worker"
                          : "stopped",
                false);
    put_back_reconciled_plan(task);
    return; // the next run resumes it
  }
  if (ended_on_request) {
    // STATUS.md names the refusal now, not at its next refresh; then the store says the session
    // ended. Until then `status` shows the plan running.
    const std::string why = x.stop_reason;
    end_session(sid, why, false);
    fail(task, sched::FailureClass::refused, why);
    if (!done) write_progress(true);
    if (db) record_session_end(sid, x, kept, moved);
    ended_by_request.erase(sid);
    return;
  }
  std::error_code ec;
  const std::string log_path = fs::relative(s.dir / "output.log", spec.layout.project_root, ec).string();
  if (x.stopped) { // a hung or looping task: its output is the first thing to look at
    const std::string why = x.stop_reason + " (log: " + log_path + ")";
    end_session(sid, why, false);
    return fail(task, sched::FailureClass::timed_out, why);
  }
  if (facts && facts->rate_limited) {
    // A rate limit costs no attempt, so an error misread as one (or a limit that never lifts)
    // would retry forever: after enough in a row it is an ordinary failure.
    if (const int n = ++rate_limits[task]; n > opt.rate_limit.retries) {
      const auto why = fmt::format("rate-limited {} times in a row: {}", n, facts->error_message);
      end_session(sid, why, false);
      return fail(task, sched::FailureClass::crashed, why);
    }
    end_session(sid, facts->error_message.empty() ? "rate-limited" : "rate-limited: " + facts->error_message, false);
    return fail(task, sched::FailureClass::rate_limited, facts->error_message);
  }
  rate_limits.erase(task);
  // The worker's own reason first: an exit code alone tells the user nothing to act on.
  AttemptEnd end;
  end.exit_code = x.exit_code;
  end.signal = x.signal;
  end.reported = s.reported_failure;
  if (facts) end.agent_failure = worker::agent_failure(*facts).value_or("");
  if (facts && !facts->permission_denials.empty()) end.refused_tools = refused_tools(*facts);
  end.output_tail = x.output_tail;
  end.log_path = log_path;
  end.log_error = x.log_error;
  bool deviations = false;
  if (x.exit_code == 0 && end.reported.empty() && end.agent_failure.empty()) {
    // A clean exit is still no success until the harness sees what the task must leave.
    // A worker may give up waiting (harness_worker_await's timeout) and decide itself: its
    // completion is checked like any other. Exiting with the question open and no completion is not.
    if (left_question && !s.reported_completed) end.finding = "the worker exited while its question was unanswered";
    else if (s.adapter != worker::AdapterKind::script && !s.reported_completed)
      end.finding = "the worker exited without reporting task_completed";
    else if (s.action.kind == TaskKind::execute) end.finding = check_artifacts(s, deviations);
    else if (s.action.kind == TaskKind::research) end.finding = research_missing(spec, s.action);
  }
  if (const auto why = failure_reason(end); !why.empty()) {
    if (defer_for_space(sid, task, why)) return;
    // The worker's own word that retrying is pointless (a missing secret, a plan that contradicts
    // itself) saves an attempt; without that word, any failure may be transient.
    const bool hopeless = s.retry_forbidden && !end.reported.empty();
    end_session(sid, why, false); // erases `s`
    return fail(task, hopeless ? sched::FailureClass::no_retry : sched::FailureClass::crashed, why);
  }
  record_result(s);
  if (s.action.kind == TaskKind::execute) note_ignored_outputs(s);
  if (is_planning(s.action.kind)) return finish_planning(sid);
  if (s.action.kind == TaskKind::research)
    if (auto n = spec::parse_phase_number(s.action.subject))
      commit_writeback("research phase " + s.action.subject, spec.layout.research_file(*n));
  std::string outcome = deviations ? "done (with deviations)" : "done";
  if (facts) outcome += " (" + worker::describe_usage(*facts) + ")"; // from the agent's own events
  if (s.action.kind == TaskKind::reconcile) {
    // What runs next (the execute's input, its artifact checks, verify-plan's must_pass, the
    // scheduler's conflicts) must read the plan as reconciled, not as the run loaded it.
    reload_spec();
    auto e = reconcile_event(spec, s.action);
    if (!e) {
      end_session(sid, e.error(), false);
      return fail(task, sched::FailureClass::crashed, e.error());
    }
    // The plan as reconciled goes into the history before it executes, as a planning pass does:
    // its task commits then sit beside the plan they ran, not beside the plan before the edit.
    if (const auto* plan = plan_of(s.action)) {
      commit_writeback("reconcile plan " + plan->id, spec.layout.spec_dir / plan->file);
      note_reconciled(plan->id, true); // a run stopped before the plan executes does not do it again
      reconcile_start.erase(s.action.task);
    }
    end_session(sid, outcome);
    return feed(*e);
  }
  end_session(sid, outcome);
  succeed(task, sched::Verdict::passed, deviations);
}

/// "Bash (2x), Write": what an agent CLI refused to run, from its result event.
std::string Orchestrator::Impl::refused_tools(const worker::AgentRunFacts& facts) {
  std::map<std::string, int> count;
  for (const auto& t : facts.permission_denials) ++count[t];
  std::string out;
  for (const auto& [tool, n] : count) out += (out.empty() ? "" : ", ") + (n > 1 ? fmt::format("{} ({}x)", tool, n) : tool);
  return out;
}

void Orchestrator::Impl::check_cost() {
  if (opt.max_cost_usd && summary.cost_usd >= *opt.max_cost_usd && !draining) {
    emit(RunEventKind::note, "", -1, 0,
         fmt::format("cost ${:.4f} reached --max-cost; no new tasks but the engine's verifications", summary.cost_usd));
    summary.outcome = "cost_limit";
    begin_drain(false); // the caller's event comes first; the loop ends the run once idle
  }
}

/// "; its failed attempts left uncommitted changes in ...", for an execute given up on: the
/// files are neither the plan's finished work nor the user's.
std::string Orchestrator::Impl::attempt_leftovers_note(const sched::Action& a) {
  const auto* plan = a.kind == TaskKind::execute ? plan_of(a) : nullptr;
  if (!plan || plan->files_modified.empty() || !changes_at_start) return {};
  const auto left = attempt_leftovers(spec, *plan, *changes_at_start,
                                      worker::changed_paths(spec.layout.project_root, plan->files_modified));
  if (left.empty()) return {};
  constexpr std::size_t shown = 5;
  std::string names;
  for (std::size_t i = 0; i < left.size() && i < shown; ++i) names += (i ? ", " : "") + left[i];
  if (left.size() > shown) names += fmt::format(" and {} more", left.size() - shown);
  return fmt::format("; its failed attempts left uncommitted changes in {}: not finished work, so do not commit them "
                     "as they are (git restore them, or keep what you need, before the next run)",
                     names);
}

void Orchestrator::Impl::begin_drain(bool finish_if_idle) {
  draining = true;
  if (opt.interrupt == InterruptMode::stop_running) host->stop_all("shutdown", opt.stop_grace);
  else stop_workers_waiting_for_people();
  if (finish_if_idle) maybe_stop_after_drain();
}

bool Orchestrator::Impl::waits_only_for_a_person(const Session& s) const {
  if (!host->held(s.id)) return false;
  return std::ranges::any_of(checkpoints, [&](const auto& kv) {
    return kv.second.task == s.action.task && checkpoint_message.contains(kv.first);
  });
}

void Orchestrator::Impl::stop_workers_waiting_for_people() {
  if (!draining || stop_now) return; // stop_now: every worker is being stopped already
  for (const auto& [sid, s] : sessions)
    if (waits_only_for_a_person(s) && stopped_waiting.insert(sid).second) {
      emit(RunEventKind::note, s.action.task, s.action.slot, s.action.attempt,
           "stopping its worker, which waits for an answer (the question stays open for the next run)");
      host->stop(sid, "shutdown", opt.stop_grace);
    }
}

void Orchestrator::Impl::maybe_stop_after_drain() {
  if (!draining || done) return; // done: the scheduler finished the run meanwhile, with its own outcome
  if (host->running() > 0) return;
  bool verifying = false;
  for (const auto& [id, s] : sessions) verifying |= is_verify(s.action.kind);
  if (verifying && !stop_now) return;
  if (summary.outcome.empty()) summary.outcome = "interrupted";
  summary.exit_code = summary.outcome == "interrupted" ? 130 : 1; // cost_limit, disk_full, or blocked by a moved HEAD
  list_open_questions();
  finish_run();
}

void Orchestrator::Impl::finish_run() {
  if (done) return;
  done = true;
  reload_spec();
  settle_checkpoints();
  // On another branch, STATUS.md and the write-back would land there (and a changed STATUS.md in
  // the work tree would stop the switch back); what changed there is not this run's to report.
  if (!head_moved()) {
    write_progress(false);
    commit_writeback("orchestrate: " + summary.outcome);
    show_open_checkpoints_at_head();
    // A complete spec whose record is not on disk or not in git is no success: a script or CI job
    // trusting exit 0 would move on with STATUS.md saying `running`.
    summary.unwritten = unwritten_documents();
    if (!summary.unwritten.empty() && summary.exit_code == 0) summary.exit_code = 1;
    warn_about_undeclared_changes();
  }
  // Sessions whose end the store missed read as "running" to the next run: it says why (a full
  // disk, a lock held too long), not that nobody watched them.
  if (!store_error.empty()) (void)util::write_file_atomic(state_dir / store_failed_file, store_error);
  // The commits of this run skipped git's per-commit auto maintenance; one check for all.
  (void)worker::run_auto_maintenance(spec.layout.project_root, state_dir / "git.lock");
  summary.elapsed_seconds = elapsed();
  tty_prompt.clear(); // an interrupted run's question is not asked any more
  std::string message = fmt::format("{} after {:.1f}s, {} attempt{}", summary.outcome, summary.elapsed_seconds,
                                    summary.attempts, summary.attempts == 1 ? "" : "s");
  if (!summary.unwritten.empty())
    message += "; " + unwritten_text(summary.unwritten, spec_arg(), summary.outcome == "complete");
  // The blocked and waiting endings name their next command; a stopped run's is to run again.
  if (summary.outcome == "interrupted")
    message += fmt::format("; harness-cli orchestrate {} resumes it", spec_arg());
  else if (summary.outcome == "disk_full")
    message += fmt::format("; free some space, then harness-cli orchestrate {} resumes it", spec_arg());
  RunEvent finished{RunEventKind::run_finished, 0, "", -1, 0, std::move(message), {}, {}, summary.outcome, summary.exit_code,
                    summary.unwritten};
  emit(std::move(finished));
  checkpoint_poll.cancel();
  if (tty_in) {
    boost::system::error_code ignored;
    tty_in->cancel(ignored);
  }
  tty_mode.reset(); // the terminal echoes again
  pump_timer.cancel();
  status_timer.cancel();
  signals.cancel();
  ctx.stop();
}

void Orchestrator::Impl::watch_signals() {
  signals.async_wait([this](boost::system::error_code e, int) {
    if (e) return;
    on_interrupt();
    watch_signals();
  });
}

void Orchestrator::Impl::on_interrupt() {
  if (++interrupts == 1) {
    emit(RunEventKind::note, "", -1, 0,
         opt.interrupt == InterruptMode::stop_running
             ? "interrupt: no new tasks; stopping the running ones (--stop-on-interrupt)"
             : "interrupt: no new tasks; running ones finish (interrupt again, Ctrl-C or the same signal, to stop them)");
    begin_drain();
  } else {
    emit(RunEventKind::note, "", -1, 0, "second interrupt: stopping every worker");
    host->stop_all("shutdown", std::chrono::seconds(2));
    if (summary.outcome.empty()) summary.outcome = "interrupted"; // a cost limit stays the reason
    draining = true;
    stop_now = true; // a verification running on the pool is not waited for
    cancel_verification = true; // and its commands are stopped, so the pool's join is quick
    maybe_stop_after_drain();
  }
}

std::expected<RunSummary, RunError> Orchestrator::Impl::run() {
  auto loaded = spec::load_spec(opt.spec_dir);
  if (!loaded) return std::unexpected(RunError{loaded.error(), 2});
  if (!loaded->valid()) {
    auto cleaned = set_aside_planning_leftovers(std::move(*loaded));
    if (!cleaned) return std::unexpected(cleaned.error());
    loaded = std::move(*cleaned);
  }
  loop_spec.replace(std::move(*loaded));
  // Watched from now on: an edit after this reading is noticed (plans_seen is this reading).
  if (auto w = PlanWatch::open(spec.layout)) plan_watch.emplace(std::move(*w));
  else plan_watch_error = w.error();
  if (auto nothing = sched::nothing_to_schedule(spec, sched::workload_from_spec(spec)))
    return std::unexpected(RunError{*nothing, 2});
  // What would fail part-way (commits without git or an identity, a worker that cannot start)
  // is reported now, all of it, before the lock or any file is written.
  const auto facts = probe_start_facts(spec.layout);
  auto problems = start_problems(opt, spec.layout, facts);
  std::ranges::move(declared_path_problems(spec, facts), std::back_inserter(problems));
  std::ranges::move(shallow_history_problems(spec, facts), std::back_inserter(problems));
  if (!problems.empty()) return std::unexpected(RunError{render_start_problems(problems), 2});
  if (auto r = take_run_lock(spec.layout); !r) return std::unexpected(r.error());
  // Read again under the lock: a redo that finished between the first reading and the lock (it
  // holds runs off only from then on) removed SUMMARYs this run would otherwise count as done.
  if (auto again = spec::load_spec(opt.spec_dir); again && again->valid()) loop_spec.replace(std::move(*again));
  if (const auto vars = worker::repository_env_vars_set(); !vars.empty()) { // worker::current_environment drops them
    std::string names;
    for (const auto& v : vars) names += (names.empty() ? "" : ", ") + v;
    emit(RunEventKind::note, "", -1, 0,
         fmt::format("ignored {} from the environment (set by a git hook or alias, or a dotfile manager): the run "
                     "commits into the repository of {}, and its git commands, workers and checks run without {}",
                     names, spec.layout.project_root.string(), vars.size() == 1 ? "it" : "them"));
  }
  git_dir = facts.git_dir; // the trailer index reads HEAD there (recover_earlier_run makes it)
  if (auto r = recover_earlier_run(); !r) return std::unexpected(r.error());
  // One look at the whole tree (warn_about_dirty_files says what it found), before the workload:
  // a verdict no run of ours wrote is not taken (uncommitted_verdicts.hpp).
  changes_at_start = worker::changed_paths(spec.layout.project_root);
  ForgottenVerdicts forgotten_verdicts;
  loop_spec.edit([&](spec::Spec& s) {
    forgotten_verdicts = forget_uncommitted_verdicts(s, *changes_at_start, own_writes, committed_in_head(s.layout.project_root));
  });
  verify_pool = std::make_unique<asio::thread_pool>(static_cast<size_t>(std::max(1, opt.verify_threads)));
  host = std::make_unique<WorkerHost>(
      ctx, [this](const std::string& s, std::string_view l) { on_line(s, l); },
      [this](const std::string& s, const WorkerExit& x) {
        on_exit(s, x);
        maybe_stop_after_drain();
      });
  auto workload = sched::workload_from_spec(spec);
  plans_seen = snapshot_plans(spec);
  apply_planning_marks(workload);
  scheduler = std::make_unique<sched::Scheduler>(std::move(workload), opt.sched);
  emit(RunEventKind::run_started, "", -1, 0,
       fmt::format("{}: {} plan{}, {} slot{}, {}", spec.layout.spec_name, spec.plans.size(), spec.plans.size() == 1 ? "" : "s",
                   opt.sched.slots, opt.sched.slots == 1 ? "" : "s", describe_workers(opt)));
  note_head_at_start(facts);
  warn_about_validation(); // after run_started: the notes belong to this run
  for (const auto& id : forgotten_verdicts.plans)
    emit(RunEventKind::note, "verify-plan:" + id, -1, 0,
         fmt::format("{}'s SUMMARY says `verification: passed`, but no commit of it does and no run wrote that there "
                     "(a worker's or a hand edit): its checks run again, and its phase's verification",
                     id));
  for (const auto& file : forgotten_verdicts.reports)
    emit(RunEventKind::note, "", -1, 0,
         fmt::format("{} says `status: passed`, but no commit of it does and no run wrote that there (a worker's or a "
                     "hand edit): that verification runs again",
                     file));
  if (auto note = cost_limit_note(opt); !note.empty()) emit(RunEventKind::note, "", -1, 0, std::move(note));
  if (auto note = gsd_config_note(spec.layout); !note.empty()) emit(RunEventKind::note, "", -1, 0, std::move(note));
  if (auto note = prune_hint(state_dir); !note.empty()) emit(RunEventKind::note, "", -1, 0, std::move(note));
  if (const auto changed = changes_since_final(spec); !changed.empty())
    emit(RunEventKind::note, "", -1, 0,
         fmt::format("the final verification holds, so this run verifies nothing again, but since it was written {}: "
                     "harness-cli verify {} --final checks the work as it is now, and harness-cli redo {} PLAN runs a "
                     "plan again",
                     fmt::join(changed, "; "), spec_arg(), spec_arg()));
  if (!plan_watch_error.empty())
    emit(RunEventKind::note, "", -1, 0, "PLAN files edited during the run are not noticed: " + plan_watch_error);
  warn_about_dirty_files();
  take_over_checkpoints(); // before the first event: a task that asks again finds its checkpoint
  watch_signals();
  schedule_pump();
  asio::post(ctx, [this] { feed(sched::make_event(EventType::begin)); });
  loop_running = true;
  ctx.run();
  loop_running = false;
  if (lock_checks_pending > 0) final_lock_look(); // a worker stopped just before the end: its look was waiting
  verify_pool->join();
  verifier.set_cancel(nullptr); // the flag and the index are this run's; the verifier may outlive it
  verifier.set_trailer_index(nullptr);
  if (summary.outcome.empty()) summary.outcome = "interrupted";
  return summary;
}

Orchestrator::Orchestrator(RunOptions options, Verifier& verifier, Observer& observer)
    : m_impl(std::make_unique<Impl>(std::move(options), verifier, observer)) {}
Orchestrator::~Orchestrator() = default;
std::expected<RunSummary, RunError> Orchestrator::run() { return m_impl->run(); }

} // namespace harness::orchestrator
