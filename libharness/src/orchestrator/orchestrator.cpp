#include "harness/orchestrator/orchestrator.hpp"

#include "harness/graph/plan_graph.hpp"
#include "harness/orchestrator/worker_host.hpp"
#include "harness/orchestrator/writeback.hpp"
#include "harness/sched/scheduler.hpp"
#include "harness/sched/spec_workload.hpp"
#include "harness/spec/document_parsers.hpp"
#include "harness/store/state_dir.hpp"
#include "harness/store/store.hpp"
#include "harness/store/watch.hpp"
#include "harness/util/atomic_file.hpp"
#include "harness/worker/agent_events.hpp"
#include "harness/store/run_lock.hpp"
#include "harness/worker/git.hpp"
#include "harness/worker/prompt.hpp"
#include "harness/worker/script_worker.hpp"
#include "session_files.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/json.hpp>
#include <fmt/format.h>

#include <deque>
#include <set>
#include <iostream>
#include <random>
#include <thread>

extern char** environ;

namespace harness::orchestrator {
namespace asio = boost::asio;
namespace fs = std::filesystem;
using sched::ActionType;
using sched::EventType;
using sched::TaskKind;

namespace {

std::string random_hex(size_t bytes) {
  std::random_device rd;
  std::string out;
  for (size_t i = 0; i < bytes; ++i) out += fmt::format("{:02x}", rd() & 0xff);
  return out;
}

bool is_verify(TaskKind k) {
  return k == TaskKind::verify_plan || k == TaskKind::verify_phase || k == TaskKind::verify_final;
}

} // namespace

struct Orchestrator::Impl {
  /// One running attempt of a task.
  struct Session {
    std::string id;
    sched::Action action;
    worker::AdapterKind adapter = worker::AdapterKind::script;
    std::chrono::steady_clock::time_point started;
    fs::path dir;
    worker::ClaudeStreamReader claude;
    worker::CodexEventReader codex;
    std::string last_progress;
    bool reported_completed = false; ///< a task_completed message arrived (agent workers)
    std::string reported_failure;    ///< a task_failed message's error
  };

  RunOptions opt;
  Verifier& verifier;
  Observer& observer;
  asio::io_context ctx;
  asio::signal_set signals{ctx, SIGINT, SIGTERM};
  std::unique_ptr<asio::thread_pool> verify_pool;
  std::unique_ptr<WorkerHost> host;
  std::unique_ptr<sched::Scheduler> scheduler;
  spec::Spec spec;
  fs::path state_dir;
  std::string run_id = random_hex(3);
  std::map<std::string, Session> sessions;          ///< by session id
  std::map<std::string, std::string> task_session;  ///< task id -> session id
  std::map<int, std::string> slot_task;
  std::map<std::string, PendingCheckpoint> checkpoints; ///< by checkpoint id
  std::map<std::string, std::string> checkpoint_message;  ///< checkpoint id -> worker message id
  asio::steady_timer checkpoint_poll{ctx};
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  RunSummary summary;
  std::vector<spec::BlockedTask> blocked_tasks; ///< tasks this run gave up on, for STATUS.md
  double execute_minutes = 0;
  int interrupts = 0;
  bool draining = false;
  bool done = false;
  std::deque<sched::Event> deferred_events;
  std::optional<store::Store> db;                 ///< <project>/.orchestration/harness.db
  std::optional<worker::TrailerIndex> trailers;   ///< trailer commits of HEAD, read incrementally
  std::optional<store::ChangeWatcher> watcher;    ///< wakes the pump when a worker writes
  asio::steady_timer pump_timer{ctx};
  std::int64_t last_seq = 0;
  std::map<std::string, std::string> worker_question; ///< task id -> message id awaiting an answer
  std::optional<store::RunLock> run_lock;         ///< one orchestrator per project; liveness for harness-mcp
  std::int64_t last_request_seq = 0;              ///< requests table (harness_start/end_session) read so far
  std::set<std::string> ended_by_request;         ///< sessions stopped by harness_end_session
  std::map<std::string, int> session_id_uses;     ///< session ids handed out in this run

  Impl(RunOptions o, Verifier& v, Observer& obs) : opt(std::move(o)), verifier(v), observer(obs) {}

  double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }

  RunView view() const {
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
    for (const auto& t : scheduler->tasks())
      if (t.kind == TaskKind::verify_plan) {
        ++v.plans_total;
        v.plans_verified += t.state == sched::TaskState::done;
      }
    v.waiting_checkpoints = static_cast<int>(checkpoints.size());
    v.cost_usd = summary.cost_usd;
    return v;
  }

  void emit(RunEventKind kind, const std::string& task, int slot, int attempt, std::string message) {
    observer.on_event({kind, elapsed(), task, slot, attempt, std::move(message)}, view());
  }

  // ---- events into the scheduler -------------------------------------------------------------

  void feed(const sched::Event& e) {
    deferred_events.push_back(e);
    if (deferred_events.size() > 1) return; // re-entrant call: the outer loop drains the queue
    while (!deferred_events.empty()) {
      auto actions = scheduler->handle(deferred_events.front());
      for (const auto& a : actions) apply(a);
      deferred_events.pop_front();
    }
  }

  void succeed(const std::string& task, sched::Verdict verdict = sched::Verdict::passed, bool deviations = false) {
    auto e = sched::make_event(EventType::succeeded, task);
    e.verdict = verdict;
    e.has_deviations = deviations;
    feed(e);
  }

  void fail(const std::string& task, sched::FailureClass why, std::string detail) {
    auto e = sched::make_event(EventType::failed, task);
    e.failure = why;
    e.detail = std::move(detail);
    feed(e);
  }

  // ---- actions out of the scheduler ----------------------------------------------------------

  void apply(const sched::Action& a) {
    switch (a.type) {
    case ActionType::start: start_task(a); break;
    case ActionType::resume:
      emit(RunEventKind::checkpoint_answered, a.task, a.slot, a.attempt, "approved; continuing");
      if (is_verify(a.kind)) asio::post(ctx, [this, t = a.task] { succeed(t); });
      break;
    case ActionType::ask_human: ask_human(a); break;
    case ActionType::defer: {
      emit(RunEventKind::task_failed, a.task, a.slot, a.attempt, "rate-limited; retrying later");
      auto timer = std::make_shared<asio::steady_timer>(ctx, std::chrono::seconds(30));
      timer->async_wait([this, timer, t = a.task](boost::system::error_code e) {
        if (!e) feed(sched::make_event(EventType::retry_due, t));
      });
      break;
    }
    case ActionType::blocked:
      summary.blocked.push_back(fmt::format("{}: {}", a.task, a.reason));
      blocked_tasks.push_back({a.task, a.reason});
      emit(RunEventKind::task_blocked, a.task, -1, 0, a.reason);
      break;
    case ActionType::finished:
      summary.outcome = a.reason;
      summary.exit_code = a.reason == "complete" ? 0 : 1;
      finish_run();
      break;
    case ActionType::rejected: emit(RunEventKind::note, a.task, -1, 0, "scheduler ignored an event: " + a.reason); break;
    }
  }

  worker::AdapterKind adapter_for(TaskKind k) const {
    auto it = opt.adapter_by_kind.find(k);
    return it != opt.adapter_by_kind.end() ? it->second : opt.adapter;
  }

  void start_task(const sched::Action& a) {
    if (draining) return; // nothing new after the first Ctrl-C; the next run resumes it
    ++summary.attempts;
    slot_task[a.slot] = a.task;
    Session s;
    s.id = fmt::format("{}-a{}-{}", a.task, a.attempt, run_id);
    std::replace(s.id.begin(), s.id.end(), ':', '-');
    // A task reopened by harness_start_session counts its attempts from 1 again.
    if (const int n = ++session_id_uses[s.id]; n > 1) s.id += fmt::format("-r{}", n);
    s.action = a;
    s.started = std::chrono::steady_clock::now();
    s.dir = state_dir / "sessions" / s.id;
    s.adapter = adapter_for(a.kind);
    task_session[a.task] = s.id;
    const std::string sid = s.id;
    sessions.emplace(sid, std::move(s));
    emit(RunEventKind::task_started, a.task, a.slot, a.attempt, a.continuation ? "continuation" : "");
    if (a.kind == TaskKind::verify_plan && a.continuation) {
      // The checks passed before the checkpoint and a human approved: nothing to run again.
      asio::post(ctx, [this, sid, t = a.task] {
        end_session(sid, "approved");
        succeed(t);
      });
      return;
    }
    if (is_verify(a.kind)) return run_verification(sessions.at(sid));
    if (a.kind != TaskKind::execute && sessions.at(sid).adapter == worker::AdapterKind::script) {
      // The script worker has no agent for research, planning or reconciling: the engine's part
      // is done by the harness (plans must already exist), and the run says so.
      asio::post(ctx, [this, sid] {
        auto& sess = sessions.at(sid);
        const auto task = sess.action.task;
        end_session(sid, "script worker: nothing mechanical to do for " + std::string(sched::to_string(sess.action.kind)));
        succeed(task);
      });
      return;
    }
    launch_worker(sessions.at(sid));
  }

  void end_session(const std::string& sid, const std::string& message, bool ok = true) {
    auto it = sessions.find(sid);
    if (it == sessions.end()) return;
    const auto& a = it->second.action;
    slot_task.erase(a.slot);
    task_session.erase(a.task);
    emit(ok ? RunEventKind::task_succeeded : RunEventKind::task_failed, a.task, a.slot, a.attempt, message);
    sessions.erase(it);
  }

  const spec::Plan* plan_of(const sched::Action& a) const { return spec.find_plan(a.subject); }

  std::string render_prompt(const Session& s) {
    boost::json::object task{{"task", s.action.task}, {"kind", sched::to_string(s.action.kind)},
                             {"subject", s.action.subject}, {"attempt", s.action.attempt},
                             {"spec_dir", spec.layout.spec_dir.string()}};
    if (const auto* p = plan_of(s.action)) task["plan_file"] = (spec.layout.spec_dir / p->file).string();
    auto tmpl = util::read_file(opt.worker_prompt_template);
    const std::string task_json = boost::json::serialize(task);
    if (!tmpl) return "You are a harness worker. Task: " + task_json;
    auto r = worker::render_template(*tmpl, {{"session_id", s.id}, {"task_id", s.action.task}, {"task_json", task_json},
                                             {"task_kind", std::string(sched::to_string(s.action.kind))},
                                             {"spec_dir", spec.layout.spec_dir.string()}, {"subject", s.action.subject}});
    return r ? *r : "You are a harness worker. Task: " + task_json;
  }

  void launch_worker(Session& s) {
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
    for (char** e = environ; *e; ++e) {
      std::string_view kv(*e);
      const auto eq = kv.find('=');
      if (eq != std::string_view::npos) req.inherited_env.emplace(kv.substr(0, eq), kv.substr(eq + 1));
    }
    if (s.adapter != worker::AdapterKind::script) req.prompt = render_prompt(s);
    else if (const auto* p = plan_of(s.action); p && s.action.kind == TaskKind::execute) {
      // The script worker skips tasks already committed; tell it which, so it need not walk the
      // history. A retry within this run may follow an attempt that committed: look again.
      if (s.action.attempt > 1) trailers->refresh();
      std::vector<std::pair<int, std::string>> committed;
      for (const auto& c : trailers->commits_for(p->id))
        if (c.task > 0) committed.emplace_back(c.task, c.hash);
      req.inherited_env["HARNESS_DONE_TASKS"] = worker::format_done_tasks(committed);
    }
    auto launch = worker::build_launch(s.adapter, req, opt.adapter_settings);
    const std::string sid = s.id, task = s.action.task;
    if (!launch) {
      asio::post(ctx, [this, sid, task, why = launch.error()] {
        end_session(sid, why, false);
        fail(task, sched::FailureClass::crashed, why);
      });
      return;
    }
    if (db) {
      store::SessionRecord pre;
      pre.id = s.id;
      pre.slot = s.action.slot;
      pre.working_dir = spec.layout.project_root.string();
      pre.task_id = task;
      pre.attempt = s.action.attempt;
      pre.token = req.token;
      pre.adapter = std::string(worker::to_string(s.adapter));
      if (auto r = db->create_session(pre); !r) emit(RunEventKind::note, task, -1, 0, "store: " + r.error());
    }
    auto pid = host->start(s.id, *launch, s.dir / "output.log", opt.task_timeout, opt.idle_timeout);
    if (!pid) {
      asio::post(ctx, [this, sid, task, why = pid.error()] {
        end_session(sid, why, false);
        fail(task, sched::FailureClass::crashed, why);
      });
      return;
    }
    write_worker_record(s.dir, {*pid, process_start_ticks(*pid), task, s.id});
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
      rec.attempt = s.action.attempt;
      rec.token = req.token;
      rec.adapter = std::string(worker::to_string(s.adapter));
      rec.log_path = (s.dir / "output.log").string();
      if (auto r = db->update_session(rec); !r) emit(RunEventKind::note, task, -1, 0, "store: " + r.error());
    }
  }

  void on_line(const std::string& sid, std::string_view line) {
    auto it = sessions.find(sid);
    if (it == sessions.end()) return;
    auto& s = it->second;
    if (s.adapter == worker::AdapterKind::claude) s.claude.feed_line(line);
    else if (s.adapter == worker::AdapterKind::codex) s.codex.feed_line(line);
    else if (!line.empty()) s.last_progress = std::string(line.substr(0, 120));
  }

  void on_exit(const std::string& sid, const WorkerExit& x) {
    auto it = sessions.find(sid);
    if (it == sessions.end()) return;
    Session& s = it->second;
    const std::string task = s.action.task;
    if (db) // a worker without MCP reports through files in its session directory
      for (const auto& e : store::StateDir(state_dir).ingest_session(*db, sid).errors) emit(RunEventKind::note, task, -1, 0, e);
    pump_messages(); // reports written just before the exit count
    if (db) (void)db->set_session_status(sid, x.exit_code == 0 && !x.stopped ? "completed" : "failed", x.exit_code);
    if (s.action.kind == TaskKind::execute)
      execute_minutes += std::chrono::duration<double>(std::chrono::steady_clock::now() - s.started).count() / 60.0;
    const worker::AgentRunFacts* facts = s.adapter == worker::AdapterKind::claude  ? &s.claude.facts()
                                         : s.adapter == worker::AdapterKind::codex ? &s.codex.facts()
                                                                                   : nullptr;
    if (facts) summary.cost_usd += facts->cost_usd;
    if (x.stopped && x.stop_reason == "shutdown") {
      end_session(sid, "stopped", false);
      return; // the next run resumes it
    }
    if (x.stopped && ended_by_request.erase(sid)) {
      end_session(sid, x.stop_reason, false);
      return fail(task, sched::FailureClass::refused, x.stop_reason);
    }
    if (x.stopped) {
      end_session(sid, x.stop_reason, false);
      return fail(task, sched::FailureClass::timed_out, x.stop_reason);
    }
    if (facts && facts->rate_limited) {
      end_session(sid, "rate-limited", false);
      return fail(task, sched::FailureClass::rate_limited, facts->error_message);
    }
    std::string why;
    if (x.exit_code != 0) why = x.signal ? fmt::format("killed by signal {}", x.signal) : fmt::format("exited {}", x.exit_code);
    else if (facts) why = worker::agent_failure(*facts).value_or("");
    if (why.empty() && !s.reported_failure.empty()) why = "the worker reported task_failed: " + s.reported_failure;
    if (why.empty() && s.adapter != worker::AdapterKind::script && !s.reported_completed)
      why = "the worker exited without reporting task_completed";
    bool deviations = false;
    if (why.empty() && s.action.kind == TaskKind::execute) why = check_artifacts(s, deviations);
    if (!why.empty()) {
      if (facts && !facts->permission_denials.empty()) why += "; the agent was refused " + refused_tools(*facts);
      end_session(sid, why, false);
      return fail(task, sched::FailureClass::crashed, why);
    }
    record_commits(s);
    std::string outcome = deviations ? "done (with deviations)" : "done";
    if (facts) outcome += fmt::format(" ({} turns, ${:.4f})", facts->num_turns, facts->cost_usd); // from the agent's own events
    end_session(sid, outcome);
    succeed(task, sched::Verdict::passed, deviations);
    check_cost();
  }

  /// "Bash (2x), Write": what an agent CLI refused to run, from its result event.
  static std::string refused_tools(const worker::AgentRunFacts& facts) {
    std::map<std::string, int> count;
    for (const auto& t : facts.permission_denials) ++count[t];
    std::string out;
    for (const auto& [tool, n] : count) out += (out.empty() ? "" : ", ") + (n > 1 ? fmt::format("{} ({}x)", tool, n) : tool);
    return out;
  }

  /// Never trust a worker's word: an execute is done only with its SUMMARY and trailer commits.
  std::string check_artifacts(const Session& s, bool& deviations) {
    const auto* plan = plan_of(s.action);
    const auto* phase = plan ? spec.layout.find_phase(plan->phase) : nullptr;
    if (!plan || !phase) return "unknown plan " + s.action.subject;
    const fs::path summary_file = spec.layout.summary_file(*phase, plan->id);
    auto text = util::read_file(summary_file);
    if (!text) return "task reported done but wrote no SUMMARY (" + spec.layout.relative(summary_file) + ")";
    std::vector<spec::Diagnostic> diags;
    auto sum = spec::parse_summary(*text, spec.layout.relative(summary_file), diags);
    deviations = sum.has_deviations;
    trailers->refresh(); // the commits this worker made (and anyone else since the last look)
    const auto commits = trailers->commits_for(plan->id);
    if (commits.empty()) return "task reported done but no commit carries 'Plan: " + plan->id + "'";
    // Plan ids repeat across specs: the Spec trailer says the commit is this spec's work.
    if (std::none_of(commits.begin(), commits.end(), [&](const auto& c) { return c.spec == spec.layout.spec_name; }))
      return fmt::format("task reported done but no commit with 'Plan: {}' carries 'Spec: {}'", plan->id, spec.layout.spec_name);
    return {};
  }

  /// A worker killed between writing its SUMMARY and committing it left the plan executed (its
  /// tasks are committed) but the SUMMARY uncommitted; the resumed run does not run the plan
  /// again, so it makes the commit the worker would have made.
  void commit_orphan_summaries() {
    const auto root = spec.layout.project_root;
    std::map<std::string, std::string> plan_of_summary; // relative path -> plan id
    std::vector<std::string> globs;
    std::error_code ec;
    for (const auto& [id, sum] : spec.summaries) {
      const auto* plan = spec.find_plan(id);
      const auto* phase = plan ? spec.layout.find_phase(plan->phase) : nullptr;
      if (!phase) continue;
      const auto rel = fs::relative(spec.layout.summary_file(*phase, id), root, ec).generic_string();
      plan_of_summary[rel] = id;
      globs.push_back(rel);
    }
    if (globs.empty()) return;
    bool committed = false;
    for (const auto& change : worker::changed_paths(root, globs)) {
      if (!change.untracked && !change.added) continue; // a committed SUMMARY we marked verified: the docs commit takes it
      auto it = plan_of_summary.find(change.path);
      if (it == plan_of_summary.end() || trailers->commits_for(it->second).empty()) continue;
      const auto msg = fmt::format("docs({}): summary\n\nPlan: {}\nSpec: {}\n", it->second, it->second, spec.layout.spec_name);
      if (auto r = worker::commit_paths(root, state_dir / "git.lock", {change.path}, msg); r && !r->empty()) committed = true;
    }
    if (committed) trailers->refresh();
  }

  /// commits.log lines a killed run never wrote: every trailer commit of this spec is logged.
  void recover_commits_log() {
    std::vector<std::pair<std::string, std::string>> commits;
    for (const auto& p : spec.plans)
      for (const auto& c : trailers->commits_for(p.id))
        if (c.spec == spec.layout.spec_name) commits.emplace_back(c.hash, p.id);
    if (commits.empty()) return;
    const auto log = util::read_file(spec.layout.commits_log).value_or("");
    const auto lines = missing_commit_lines(log, commits, "recovered");
    if (auto r = append_commits_log(spec.layout.commits_log, lines); !r)
      observer.on_event({RunEventKind::note, 0, "", -1, 0, r.error()}, {}); // before the loop exists
  }

  void record_commits(const Session& s) {
    auto text = util::read_file(s.dir / "result.json");
    if (!text) return;
    boost::system::error_code ec;
    auto j = boost::json::parse(*text, ec);
    if (ec || !j.is_object() || !j.as_object().contains("commits")) return;
    // A retry reports the commits an earlier attempt made too: log each hash once.
    std::vector<std::pair<std::string, std::string>> commits;
    for (const auto& c : j.at("commits").as_array())
      if (c.is_string()) commits.emplace_back(c.as_string().c_str(), s.action.subject);
    const auto log = util::read_file(spec.layout.commits_log).value_or("");
    const auto lines = missing_commit_lines(log, commits, s.id);
    (void)append_commits_log(spec.layout.commits_log, lines);
  }

  void check_cost() {
    if (opt.max_cost_usd && summary.cost_usd >= *opt.max_cost_usd && !draining) {
      emit(RunEventKind::note, "", -1, 0, fmt::format("cost ${:.2f} reached --max-cost; no new tasks", summary.cost_usd));
      summary.outcome = "cost_limit";
      begin_drain();
    }
  }

  // ---- worker messages (written by harness-mcp --worker into the store) -----------------------

  void schedule_pump() {
    pump_timer.expires_after(std::chrono::milliseconds(10));
    pump_timer.async_wait([this](boost::system::error_code e) {
      if (e || done) return;
      if (watcher && watcher->changed()) {
        pump_messages();
        pump_requests();
      }
      schedule_pump();
    });
  }

  void pump_messages() {
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

  // ---- requests from harness-mcp (harness_start_session, harness_end_session) -----------------

  void pump_requests() {
    if (!db) return;
    auto pending = db->pending_requests(last_request_seq);
    if (!pending) return;
    for (const auto& r : *pending) {
      last_request_seq = r.seq;
      auto [status, result] = r.kind == "start_session" ? start_requested(r.target)
                              : r.kind == "end_session" ? end_requested(r.target, r.body)
                                                        : refuse("unknown request " + r.kind);
      emit(RunEventKind::note, r.kind == "start_session" ? "execute:" + r.target : "", -1, 0,
           fmt::format("harness_{} {}: {}", r.kind, r.target, boost::json::serialize(result)));
      (void)db->finish_request(r.id, status, boost::json::serialize(result));
    }
  }

  /// Requests written before this run started were meant for an orchestrator that is gone.
  void refuse_stale_requests() {
    auto pending = db ? db->pending_requests(0) : std::expected<std::vector<store::RequestRecord>, std::string>{};
    if (!pending) return;
    for (const auto& r : *pending) {
      last_request_seq = r.seq;
      (void)db->finish_request(r.id, "refused", boost::json::serialize(refuse("the orchestrator asked has stopped; ask again").second));
    }
  }

  using Answer = std::pair<std::string, boost::json::object>;
  static Answer refuse(std::string why) { return {"refused", boost::json::object{{"error", std::move(why)}}}; }

  Answer start_requested(const std::string& plan) {
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
    if (t->state != TaskState::pending && t->state != TaskState::ready && t->state != TaskState::blocked)
      return refuse(fmt::format("{} is {}", task, sched::to_string(t->state)));
    feed(sched::make_event(EventType::requested, task));
    return answer(task_session.contains(task) ? "started" : "queued");
  }

  Answer end_requested(const std::string& sid, const std::string& body) {
    auto it = sessions.find(sid);
    if (it == sessions.end()) return refuse(fmt::format("session {} is not running in this orchestrator", sid));
    boost::system::error_code ec;
    auto args = boost::json::parse(body, ec);
    std::string reason = "ended by harness_end_session";
    if (!ec && args.is_object())
      if (auto why = field(args.as_object(), "reason"); !why.empty()) reason += ": " + why;
    ended_by_request.insert(sid);
    host->stop(sid, reason, std::chrono::seconds(2));
    return {"done", boost::json::object{{"session_id", sid}, {"ended", true}}};
  }

  static std::string field(const boost::json::object& o, std::string_view key) {
    auto it = o.find(key);
    if (it == o.end()) return {};
    return it->value().is_string() ? std::string(it->value().as_string()) : boost::json::serialize(it->value());
  }

  void handle_message(const store::MessageRecord& m) {
    auto it = sessions.find(m.session_id);
    if (it == sessions.end()) return; // another run's or a finished session's message
    Session& s = it->second;
    host->touch(s.id); // a message is activity: the idle timeout starts again
    boost::system::error_code ec;
    auto parsed = boost::json::parse(m.payload, ec);
    const boost::json::object payload = !ec && parsed.is_object() ? parsed.as_object() : boost::json::object{};
    const auto& a = s.action;
    if (m.type == "progress_update") {
      s.last_progress = field(payload, "message");
      emit(RunEventKind::task_progress, a.task, a.slot, a.attempt, s.last_progress);
    } else if (m.type == "task_completed") {
      s.reported_completed = true;
    } else if (m.type == "task_failed") {
      s.reported_failure = field(payload, "error");
    } else if (m.type == "verification_needed" || m.type == "decision_needed" || m.type == "action_needed") {
      std::string question = m.type == "decision_needed" ? field(payload, "question")
                             : m.type == "action_needed" ? field(payload, "action") + " (" + field(payload, "reason") + ")"
                                                         : field(payload, "what_built") + ": " + field(payload, "how_to_verify");
      worker_question[a.task] = m.id;
      auto e = sched::make_event(EventType::checkpoint, a.task);
      e.worker_alive = true; // the worker waits in harness_worker_await, holding its slot
      e.detail = fmt::format("{}: {}", m.type, question);
      feed(e);
    }
  }

  /// Answers the worker's question in the store; its harness_worker_await returns with it.
  void answer_worker(const std::string& message_id, bool approved, const std::string& note) {
    if (!db) return;
    auto msg = db->message(message_id);
    std::string type = msg && *msg ? (*msg)->type : "";
    boost::json::object response;
    if (type == "verification_needed") response = {{"verdict", approved ? "approved" : "rejected"}, {"feedback", note}};
    else if (type == "decision_needed") response = {{"choice", approved ? (note.empty() ? "approve" : note) : "refuse"}, {"note", note}};
    else response = {{"outcome", approved ? (note.empty() ? "done" : note) : "refused"}};
    if (auto r = db->respond(message_id, boost::json::serialize(response)); !r)
      emit(RunEventKind::note, "", -1, 0, "store: " + r.error());
  }

  // ---- verification (on the pool, results posted back) ---------------------------------------

  void run_verification(Session& s) {
    const auto a = s.action;
    const std::string sid = s.id;
    spec::Spec snapshot = spec; // the pool reads its own copy; the loop may reload meanwhile
    asio::post(*verify_pool, [this, a, sid, snapshot = std::move(snapshot)] {
      VerifyOutcome out;
      if (a.kind == TaskKind::verify_plan) {
        if (const auto* p = snapshot.find_plan(a.subject)) out = verifier.verify_plan(snapshot, *p);
        else out = {sched::Verdict::passed, true, "unknown plan " + a.subject};
      } else if (a.kind == TaskKind::verify_phase) {
        out = verifier.verify_phase(snapshot, *spec::parse_phase_number(a.subject));
      } else {
        out = verifier.verify_final(snapshot);
      }
      asio::post(ctx, [this, a, sid, out] { on_verified(a, sid, out); });
    });
  }

  void on_verified(const sched::Action& a, const std::string& sid, const VerifyOutcome& out) {
    if (out.failed) {
      end_session(sid, out.message, false);
      return fail(a.task, sched::FailureClass::verification_failed, out.message);
    }
    if (a.kind == TaskKind::verify_plan) {
      const auto* plan = plan_of(a);
      if (const auto* phase = plan ? spec.layout.find_phase(plan->phase) : nullptr)
        (void)mark_summary_verification(spec.layout.summary_file(*phase, plan->id), "passed");
      // A continuation is the approved checkpoint coming back: it must not ask again.
      if (plan && !a.continuation &&
          std::find(plan->checkpoints.begin(), plan->checkpoints.end(), "verification") != plan->checkpoints.end()) {
        // The plan asked for a human look after its checks: the slot is not needed meanwhile.
        sessions.at(sid).last_progress = "waiting for a verification checkpoint";
        auto e = sched::make_event(EventType::checkpoint, a.task);
        e.worker_alive = false;
        e.detail = fmt::format("verification of {}: automated checks passed ({})", a.subject, out.message);
        end_session(sid, "checks passed; checkpoint opened");
        return feed(e);
      }
    }
    const bool gate = a.kind == TaskKind::verify_phase || a.kind == TaskKind::verify_final;
    if (gate) {
      reload_spec();
      if (out.verdict == sched::Verdict::passed && a.kind == TaskKind::verify_phase)
        emit(RunEventKind::phase_verified, a.task, a.slot, a.attempt, out.message);
    }
    end_session(sid, out.message.empty() ? std::string(sched::to_string(out.verdict)) : out.message);
    if (gate) {
      write_progress(true);
      commit_writeback(fmt::format("{} {}", a.kind == TaskKind::verify_phase ? "verify phase" : "final verification",
                                   a.subject));
    }
    succeed(a.task, out.verdict);
  }

  // ---- checkpoints ----------------------------------------------------------------------------

  void ask_human(const sched::Action& a) {
    const bool checks_passed = a.kind == TaskKind::verify_plan && a.reason.find("automated checks passed") != std::string::npos;
    if (opt.auto_yes && checks_passed) {
      emit(RunEventKind::checkpoint_opened, a.task, a.slot, a.attempt, a.reason);
      asio::post(ctx, [this, t = a.task] {
        emit(RunEventKind::checkpoint_answered, t, -1, 0, "approved automatically (--yes; checks passed)");
        auto e = sched::make_event(EventType::answered, t);
        e.answer = sched::Answer::approved;
        feed(e);
      });
      return;
    }
    PendingCheckpoint cp{fmt::format("cp-{}-{}", std::string(a.task).replace(a.task.find(':'), 1, "-"), run_id), a.task,
                         a.reason, state_dir / "checkpoints"};
    cp.file = write_checkpoint(state_dir, cp.id, a.task, a.reason);
    checkpoints[cp.id] = cp;
    if (auto q = worker_question.find(a.task); q != worker_question.end()) {
      checkpoint_message[cp.id] = q->second;
      worker_question.erase(q);
    }
    emit(RunEventKind::checkpoint_opened, a.task, a.slot, a.attempt,
         fmt::format("{} -- answer with: harness-cli respond {} approve|refuse", a.reason, cp.id));
    if (opt.interactive) prompt_on_terminal(cp);
    poll_checkpoints();
  }

  void prompt_on_terminal(const PendingCheckpoint& cp) {
    // A blocking read would stop the other slots: the terminal is read on its own thread and the
    // answer is posted back to the loop.
    std::thread([this, cp] {
      std::cerr << fmt::format("\n? {} [{}]\n  approve (y) / refuse (n): ", cp.question, cp.task) << std::flush;
      std::string line;
      if (!std::getline(std::cin, line)) return;
      const bool yes = !line.empty() && (line[0] == 'y' || line[0] == 'Y' || line[0] == 'a');
      asio::post(ctx, [this, cp, yes] { answer_checkpoint(cp.id, yes, "answered on the terminal"); });
    }).detach();
  }

  void poll_checkpoints() {
    checkpoint_poll.expires_after(std::chrono::milliseconds(200));
    checkpoint_poll.async_wait([this](boost::system::error_code e) {
      if (e || checkpoints.empty()) return;
      std::vector<std::pair<std::string, std::pair<bool, std::string>>> answered;
      for (const auto& [id, cp] : checkpoints)
        if (auto r = read_checkpoint_response(state_dir, id)) answered.push_back({id, *r});
      for (const auto& [id, r] : answered) answer_checkpoint(id, r.first, r.second);
      if (!checkpoints.empty()) poll_checkpoints();
    });
  }

  void answer_checkpoint(const std::string& id, bool approved, const std::string& note) {
    auto it = checkpoints.find(id);
    if (it == checkpoints.end()) return;
    const auto task = it->second.task;
    checkpoints.erase(it);
    close_checkpoint(state_dir, id);
    if (auto m = checkpoint_message.find(id); m != checkpoint_message.end()) {
      answer_worker(m->second, approved, note);
      checkpoint_message.erase(m);
    }
    emit(RunEventKind::checkpoint_answered, task, -1, 0, (approved ? "approved" : "refused") + (note.empty() ? "" : ": " + note));
    auto e = sched::make_event(EventType::answered, task);
    e.answer = approved ? sched::Answer::approved : sched::Answer::refused;
    e.detail = note;
    feed(e);
  }

  // ---- run lifecycle -------------------------------------------------------------------------

  void reload_spec() {
    if (auto s = spec::load_spec(opt.spec_dir)) spec = std::move(*s);
  }

  /// The orchestrator's own writes into the spec directory (verification marks, VERIFICATION,
  /// STATUS, ROADMAP, commits.log) become one commit, so the record is in the history too.
  void commit_writeback(const std::string& what) {
    const auto root = spec.layout.project_root;
    std::error_code ec;
    const std::string spec_rel = fs::relative(spec.layout.spec_dir, root, ec).string();
    std::vector<std::string> paths;
    for (const auto& c : worker::changed_paths(root))
      if (c.path.starts_with(spec_rel + "/")) paths.push_back(c.path);
    auto r = worker::commit_paths(root, state_dir / "git.lock", paths,
                                  fmt::format("docs({}): {}\n\nSpec: {}\n", spec.layout.spec_name, what, spec.layout.spec_name));
    if (!r) emit(RunEventKind::note, "", -1, 0, "could not commit the spec directory: " + r.error());
  }

  void write_progress(bool running) {
    // This run's blocked tasks replace what the previous run left in STATUS.md.
    spec.status = spec::StatusDocument{spec.layout.relative(spec.layout.status_md), blocked_tasks};
    const auto progress = graph::compute_progress(spec, graph::build_plan_graph(spec.plans), opt.sched.gate_lookahead.value_or(1000));
    const std::string state = running ? "running" : summary.outcome;
    (void)util::write_file_atomic(spec.layout.status_md, render_status_md(progress, state, blocked_tasks));
    (void)update_roadmap(spec, progress, execute_minutes, running);
  }

  void begin_drain() {
    draining = true;
    if (opt.interrupt == InterruptMode::stop_running) host->stop_all("shutdown", opt.stop_grace);
    maybe_stop_after_drain();
  }

  void maybe_stop_after_drain() {
    if (!draining) return;
    if (host->running() > 0) return;
    bool verifying = false;
    for (const auto& [id, s] : sessions) verifying |= is_verify(s.action.kind);
    if (verifying) return;
    if (summary.outcome.empty()) summary.outcome = "interrupted";
    summary.exit_code = summary.outcome == "cost_limit" ? 1 : 130;
    finish_run();
  }

  void finish_run() {
    if (done) return;
    done = true;
    reload_spec();
    if (summary.outcome == "blocked" && !checkpoints.empty()) {
      summary.outcome = "waiting_for_human";
      summary.exit_code = 3;
    }
    write_progress(false);
    commit_writeback("orchestrate: " + summary.outcome);
    // The commits of this run skipped git's per-commit auto maintenance; one check for all.
    (void)worker::run_auto_maintenance(spec.layout.project_root, state_dir / "git.lock");
    summary.elapsed_seconds = elapsed();
    emit(RunEventKind::run_finished, "", -1, 0,
         fmt::format("{} after {:.1f}s, {} attempts", summary.outcome, summary.elapsed_seconds, summary.attempts));
    checkpoint_poll.cancel();
    pump_timer.cancel();
    signals.cancel();
    ctx.stop();
  }

  void watch_signals() {
    signals.async_wait([this](boost::system::error_code e, int) {
      if (e) return;
      if (++interrupts == 1) {
        emit(RunEventKind::note, "", -1, 0, "interrupt: no new tasks; running ones finish (Ctrl-C again to stop them)");
        begin_drain();
      } else {
        emit(RunEventKind::note, "", -1, 0, "second interrupt: stopping every worker");
        host->stop_all("shutdown", std::chrono::seconds(2));
        summary.outcome = "interrupted";
      }
      watch_signals();
    });
  }

  std::expected<RunSummary, RunError> run() {
    auto loaded = spec::load_spec(opt.spec_dir);
    if (!loaded) return std::unexpected(RunError{loaded.error(), 2});
    if (!loaded->valid()) return std::unexpected(RunError{"the spec does not validate; run harness-cli validate " + opt.spec_dir.string(), 2});
    spec = std::move(*loaded);
    state_dir = spec.layout.project_root / ".orchestration";
    std::error_code rel_ec;
    auto lock = store::RunLock::acquire(state_dir, {0, fs::relative(spec.layout.spec_dir, spec.layout.project_root, rel_ec).string(), ""});
    if (!lock) return std::unexpected(RunError{lock.error(), 1});
    run_lock.emplace(std::move(*lock));
    util::remove_stale_temp_files(spec.layout.spec_dir); // half-written documents of a killed run
    std::error_code ec;
    fs::create_directories(state_dir / "sessions", ec);
    if (!fs::exists(state_dir / ".gitignore")) (void)util::write_file_atomic(state_dir / ".gitignore", "*\n");
    for (const auto& stale : reap_stale_workers(state_dir))
      observer.on_event({RunEventKind::note, 0, stale, -1, 0, "stopped a worker left running by an earlier run"}, {});
    auto opened = store::Store::open_project(spec.layout.project_root);
    if (!opened) return std::unexpected(RunError{"cannot open the state database: " + opened.error(), 1});
    db.emplace(std::move(*opened));
    // Reports workers left in files while no orchestrator was listening are not lost.
    if (auto r = store::StateDir(state_dir).ingest(*db); r)
      for (const auto& e : r->errors) observer.on_event({RunEventKind::note, 0, "", -1, 0, "ingest: " + e}, {});
    if (auto w = store::ChangeWatcher::open(db->path()); w) watcher.emplace(std::move(*w));
    refuse_stale_requests();
    if (auto old = db->messages_after(0, 1'000'000); old && !old->empty()) last_seq = old->back().seq;
    // One walk of the history now; afterwards only the commits each finished execute added.
    trailers.emplace(spec.layout.project_root);
    trailers->refresh();
    verifier.set_trailer_index(&*trailers);
    commit_orphan_summaries();
    recover_commits_log();
    verify_pool = std::make_unique<asio::thread_pool>(static_cast<size_t>(std::max(1, opt.verify_threads)));
    host = std::make_unique<WorkerHost>(
        ctx, [this](const std::string& s, std::string_view l) { on_line(s, l); },
        [this](const std::string& s, const WorkerExit& x) {
          on_exit(s, x);
          maybe_stop_after_drain();
        });
    scheduler = std::make_unique<sched::Scheduler>(sched::workload_from_spec(spec), opt.sched);
    emit(RunEventKind::run_started, "", -1, 0,
         fmt::format("{}: {} plans, {} slots, {} worker", spec.layout.spec_name, spec.plans.size(), opt.sched.slots,
                     worker::to_string(opt.adapter)));
    watch_signals();
    schedule_pump();
    asio::post(ctx, [this] { feed(sched::make_event(EventType::begin)); });
    ctx.run();
    verify_pool->join();
    if (summary.outcome.empty()) summary.outcome = "interrupted";
    return summary;
  }
};

Orchestrator::Orchestrator(RunOptions options, Verifier& verifier, Observer& observer)
    : m_impl(std::make_unique<Impl>(std::move(options), verifier, observer)) {}
Orchestrator::~Orchestrator() = default;
std::expected<RunSummary, RunError> Orchestrator::run() { return m_impl->run(); }

} // namespace harness::orchestrator
