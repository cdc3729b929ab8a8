#include "session_files.hpp"

#include "harness/orchestrator/checkpoint_question.hpp"
#include "harness/orchestrator/orchestrator.hpp"
#include "harness/orchestrator/planning.hpp"
#include "harness/orchestrator/worker_host.hpp"
#include "harness/protocol/codec.hpp"
#include "harness/store/checkpoint_answers.hpp"
#include "harness/store/checkpoint_files.hpp"
#include "harness/store/recovery.hpp"
#include "harness/store/run_lock.hpp"
#include "harness/store/session_index.hpp"
#include "harness/store/store.hpp"
#include "harness/util/atomic_file.hpp"
#include "harness/util/text.hpp"
#include "harness/worker/proc_scan.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

namespace harness::orchestrator {
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

/// The session directories that hold a worker.json: a run's start reads these, not every session
/// directory the project ever had. A record stays until the next run's start retires it.
const store::SessionIndex& worker_index() {
  static const store::SessionIndex index{"worker_records", [](const fs::path& dir) {
                                           std::error_code ec;
                                           return fs::exists(dir / "worker.json", ec);
                                         }};
  return index;
}

/// sessions/<id>/worker.json -> the state directory and <id>.
std::pair<fs::path, std::string> record_place(const fs::path& record) {
  const fs::path session_dir = record.parent_path();
  return {session_dir.parent_path().parent_path(), session_dir.filename().string()};
}

} // namespace

void write_worker_record(const fs::path& session_dir, const WorkerRecord& r) {
  json::object o{{"pid", r.pid}, {"start_ticks", r.start_ticks}, {"task", r.task}, {"session", r.session}, {"spec", r.spec}};
  // The index entry first: a record without one would never be looked at again.
  (void)store::add_to_index(session_dir.parent_path().parent_path(), worker_index(), session_dir.filename().string());
  (void)util::write_file_atomic(session_dir / "worker.json", json::serialize(o) + "\n");
}

std::optional<StaleWorker> read_worker_record(const fs::path& session_dir) {
  auto rec = protocol::read_json_object(session_dir / "worker.json");
  if (!rec) return std::nullopt;
  // A record harness did not write (edited by hand, another tool's) must not stop every later
  // run: it names no worker to stop, is said, and is set aside like an ended one.
  boost::system::error_code pid_ec, ticks_ec;
  const auto* pid_field = rec->if_contains("pid");
  const auto* ticks_field = rec->if_contains("start_ticks");
  const auto pid = pid_field ? pid_field->to_number<long long>(pid_ec) : 0;
  const auto ticks = ticks_field ? ticks_field->to_number<unsigned long long>(ticks_ec) : 0;
  StaleWorker w{0, protocol::string_field(*rec, "task"), protocol::string_field(*rec, "spec"), session_dir / "worker.json", {}};
  if (!pid_field || !ticks_field || pid_ec || ticks_ec || pid <= 0 || pid > std::numeric_limits<int>::max())
    w.unreadable = "pid and start_ticks are not both positive numbers";
  else if (worker_group_alive(static_cast<int>(pid), ticks))
    w.pid = static_cast<int>(pid);
  return w;
}

std::vector<StaleWorker> stale_workers(const fs::path& state_dir) {
  std::vector<StaleWorker> out;
  for (const auto& id : store::indexed_sessions(state_dir, worker_index()))
    if (auto w = read_worker_record(state_dir / "sessions" / id)) out.push_back(std::move(*w));
  return out;
}

void stop_stale_workers(const std::vector<StaleWorker>& workers) {
  std::vector<int> groups;
  for (const auto& w : workers)
    if (w.pid > 0) groups.push_back(w.pid);
  kill_process_groups(groups, std::chrono::seconds(5));
  std::error_code ec;
  for (const auto& w : workers) {
    fs::rename(w.record, fs::path(w.record).replace_filename("worker.ended.json"), ec);
    if (ec && ec != std::errc::no_such_file_or_directory) continue; // still a record: the next run looks again
    const auto [state_dir, id] = record_place(w.record);
    store::remove_from_index(state_dir, worker_index(), id);
  }
}

std::vector<StaleWorker> unrecorded_workers(const std::vector<store::SessionRecord>& sessions, const fs::path& state_dir) {
  std::set<std::string, std::less<>> ids;
  std::map<std::string, const store::SessionRecord*> by_id;
  for (const auto& s : sessions)
    if (s.status == "running" && !s.pid) ids.insert(s.id), by_id[s.id] = &s;
  std::vector<StaleWorker> out;
  std::set<int> groups;
  const int own_group = ::getpgrp();
  for (const auto& m : worker::processes_with_env("HARNESS_SESSION_ID", ids, worker::EnvPath{"HARNESS_STATE_DIR", state_dir})) {
    // A worker leads its own process group; what it started is in that group too.
    if (m.pgid <= 1 || m.pgid == own_group || !groups.insert(m.pgid).second) continue;
    const auto* s = by_id.at(m.value);
    out.push_back({m.pgid, s->task_id, s->spec, state_dir / "sessions" / s->id / "worker.json", {}});
  }
  return out;
}

std::vector<PendingCheckpoint> pending_checkpoints(const fs::path& state_dir) {
  std::vector<PendingCheckpoint> out;
  for (auto& v : store::pending_checkpoint_views(state_dir))
    out.push_back({v.record.id, v.record.task, v.record.question, state_dir / "sessions" / v.record.id / "checkpoint.json",
                   std::move(v.hint), v.record.spec, v.record.head, v.record.asks, std::move(v.record.options)});
  return out;
}

namespace {

/// The spec a checkpoint belongs to, as a person reads it.
std::string spec_label(const PendingCheckpoint& cp) { return cp.spec.empty() ? "(spec unknown)" : cp.spec; }

std::string_view asks_name(store::CheckpointAsks asks) {
  switch (asks) {
  case store::CheckpointAsks::decision: return "decision";
  case store::CheckpointAsks::action: return "action";
  case store::CheckpointAsks::approval: break;
  }
  return "approval";
}

} // namespace

std::string checkpoints_text(const std::vector<PendingCheckpoint>& pending) {
  std::string out;
  for (const auto& cp : pending)
    out += fmt::format("{}  {}  {}  {}{}{}\n", cp.id, spec_label(cp), cp.task, util::printable(cp.question, false), // one line each
                       cp.asks == store::CheckpointAsks::approval ? "" : "  [answer: " + store::answer_forms(cp.asks, cp.options) + "]",
                       cp.hint.empty() ? "" : "  (" + cp.hint + ")");
  return out;
}

std::string checkpoints_json(const std::vector<PendingCheckpoint>& pending) {
  json::array list;
  for (const auto& cp : pending) {
    json::array options;
    for (const auto& x : store::answer_options(cp.asks, cp.options)) options.emplace_back(x);
    // Every answer it takes, as the text's `[answer: ...]` lists them: a decision's choices, or refuse.
    if (cp.asks == store::CheckpointAsks::decision && !cp.options.empty() && std::ranges::find(cp.options, "refuse") == cp.options.end())
      options.emplace_back("refuse");
    json::object o{{"id", cp.id},       {"spec", cp.spec},          {"task", cp.task},
                   {"question", cp.question}, {"asks", asks_name(cp.asks)}, {"options", std::move(options)}};
    if (!cp.head.empty()) o["head"] = cp.head;
    list.push_back(std::move(o));
  }
  return json::serialize(json::object{{"checkpoints", std::move(list)}});
}

std::string waiting_line(const PendingCheckpoint& cp) {
  return fmt::format("{} of {}: {}", cp.task, spec_label(cp),
                     checkpoint_opened_message(cp.question, cp.id, store::answer_forms(cp.asks, cp.options)));
}

namespace {

/// The pending checkpoints of spec `spec_name`, or naming no spec.
std::vector<PendingCheckpoint> spec_checkpoints(const fs::path& state_dir, const std::string& spec_name) {
  auto all = pending_checkpoints(state_dir);
  std::erase_if(all, [&](const PendingCheckpoint& cp) { return !cp.spec.empty() && cp.spec != spec_name; });
  return all;
}

} // namespace

std::vector<std::string> waiting_lines(const fs::path& state_dir, const std::string& spec_name) {
  std::vector<std::string> out;
  for (const auto& cp : spec_checkpoints(state_dir, spec_name)) out.push_back(waiting_line(cp));
  return out;
}

void show_waiting_checkpoints(graph::Progress& p, const fs::path& state_dir, const std::string& spec_name) {
  std::vector<std::string> tasks;
  for (const auto& cp : spec_checkpoints(state_dir, spec_name)) {
    p.waiting.push_back(waiting_line(cp));
    tasks.push_back(cp.task);
  }
  graph::mark_awaiting_answer(p, tasks);
}

namespace {

/// The sessions of `spec_name` the store says run.
std::expected<std::vector<store::SessionRecord>, std::string> running_sessions(store::Store& db, const std::string& spec_name) {
  auto sessions = db.list_sessions();
  if (!sessions) return std::unexpected(sessions.error());
  std::erase_if(*sessions, [&](const store::SessionRecord& s) { return s.status != "running" || s.spec != spec_name; });
  return sessions;
}

/// The plans of `spec_name` a running orchestrate has workers on now, marked running; when its
/// store cannot be read (an older harness's run, whose store this build does not upgrade under
/// it), why, in `running_tasks_unread`.
void show_running_tasks(graph::Progress& p, std::expected<store::Store, std::string>& db, const std::string& spec_name) {
  auto sessions = db ? running_sessions(*db, spec_name) : std::unexpected(db.error());
  if (!sessions) {
    p.running_tasks_unread = sessions.error();
    return;
  }
  std::vector<std::string> tasks;
  for (const auto& s : *sessions) tasks.push_back(s.task_id);
  graph::mark_running(p, tasks);
}

/// The workers of `spec_name` an earlier run left running (sessions the store still says run
/// whose process, pid and start time, is alive): marked running and listed in `left_running`.
void show_left_running_workers(graph::Progress& p, store::Store& db, const std::string& spec_name) {
  auto sessions = running_sessions(db, spec_name);
  if (!sessions) return;
  std::vector<std::string> tasks;
  for (const auto& s : *sessions)
    if (s.pid && store::process_alive(*s.pid, s.pid_start_time)) {
      tasks.push_back(s.task_id);
      p.left_running.push_back(fmt::format("{} (pid {})", s.task_id, *s.pid));
    }
  graph::mark_running(p, tasks); // not ready: a worker is on it
}

/// The store's planning marks of `spec_name` (unfinished_planning); none when it cannot be read.
std::vector<UnfinishedPlanning> planning_marks(store::Store& db, std::string_view spec_name) {
  auto entries = db.values();
  return entries ? unfinished_planning(*entries, spec_name) : std::vector<UnfinishedPlanning>{};
}

/// The phases of `spec_name` whose plans a planner wrote and no plan checker has passed yet.
std::vector<spec::PhaseNumber> unchecked_plan_phases(store::Store& db, std::string_view spec_name) {
  std::vector<spec::PhaseNumber> out;
  for (const auto& u : planning_marks(db, spec_name))
    if (auto n = spec::parse_phase_number(u.phase)) out.push_back(*n);
  return out;
}

} // namespace

void show_run_state(graph::Progress& p, const spec::Layout& layout) {
  const fs::path state_dir = layout.project_root / ".orchestration";
  if (p.state_unreadable = store::unreadable_state(state_dir); !p.state_unreadable.empty()) return;
  const auto run = store::running_orchestrator(state_dir);
  if (run) {
    p.running = store::describe_run(*run);
    p.running_orchestrate = graph::Progress::RunningOrchestrate{run->pid, run->spec, run->started_at};
  }
  // One open of the store for all `status` reads there; none is created where nothing ran.
  std::error_code ec;
  if (run || fs::exists(store::default_db_path(layout.project_root), ec)) {
    auto db = store::Store::open_project(layout.project_root);
    if (run) show_running_tasks(p, db, layout.spec_name);
    else if (db) show_left_running_workers(p, *db, layout.spec_name); // they would be the run's own
    if (db) graph::mark_unchecked(p, unchecked_plan_phases(*db, layout.spec_name));
  }
  if (p.state_unreadable = store::unreadable_checkpoints(state_dir); p.state_unreadable.empty())
    show_waiting_checkpoints(p, state_dir, layout.spec_name);
}

std::vector<UnfinishedPlanning> stored_planning_marks(const fs::path& project_root, std::string_view spec_name) {
  std::error_code ec;
  if (!fs::exists(store::default_db_path(project_root), ec)) return {}; // never run: no store made for asking
  auto db = store::Store::open_project(project_root);
  return db ? planning_marks(*db, spec_name) : std::vector<UnfinishedPlanning>{};
}

std::string Responded::text() const {
  if (replaced.empty()) return util::printable(answer, false); // a worker's option: its escape sequences too (review QQ F3)
  // One line on a terminal: a note (or an option) may hold line breaks and escape sequences.
  return fmt::format("{} (it replaces {}{})", util::printable(answer, false), util::printable(replaced, false),
                     replaced_note.empty() ? "" : ", whose note was: " + util::printable(replaced_note, false));
}

boost::json::object Responded::json(const std::string& id) const {
  boost::json::object o{{"id", id}, {"answer", answer}};
  if (!replaced.empty()) o["replaces"] = boost::json::object{{"answer", replaced}, {"note", replaced_note}};
  return o;
}

std::expected<Responded, RunError> respond_checkpoint(const fs::path& state_dir, const std::string& id,
                                                        const std::string& answer, const std::string& note,
                                                        store::Replace replace) {
  // Whether anybody reads an answer comes first: "stale" says more than "not one of the options".
  auto cp = store::answerable_checkpoint(state_dir, id, replace);
  if (!cp) return std::unexpected(RunError{cp.error().message, cp.error().exit_code});
  auto typed = store::read_typed_answer(cp->asks, cp->options, answer);
  if (!typed) return std::unexpected(RunError{typed.error(), 2});
  typed->note = note;
  typed->by = store::who_answers("harness-cli respond");
  if (auto r = store::answer_checkpoint(state_dir, id, *typed, replace); !r)
    return std::unexpected(RunError{r.error().message, r.error().exit_code});
  Responded out{store::answer_text(*typed, cp->asks), "", ""};
  if (cp->answer) {
    out.replaced = store::answer_text(*cp->answer, cp->asks);
    out.replaced_note = cp->answer->note;
  }
  return out;
}

} // namespace harness::orchestrator
