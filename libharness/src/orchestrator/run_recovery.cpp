// What an earlier run left behind, taken up when a run starts: workers still running, their git
// locks, reports and sessions the store never saw end, documents never committed. Every step is
// safe to repeat: a run killed during recovery recovers again.
#include "run_loop.hpp"

#include "lock_check_mark.hpp"
#include "session_files.hpp"

#include "harness/orchestrator/planning_leftovers.hpp"
#include "harness/util/atomic_file.hpp"
#include "harness/util/private_directory.hpp"
#include "harness/worker/index_lock.hpp"

#include <fmt/format.h>

namespace harness::orchestrator {

std::expected<void, RunError> Orchestrator::Impl::take_run_lock(const spec::Layout& layout) {
  if (run_lock) return {};
  state_dir = layout.project_root / ".orchestration";
  std::error_code rel_ec;
  lock_taken_at = protocol::now_iso8601(); // requests older than this were for an earlier run
  auto lock = store::RunLock::acquire(
      state_dir, {0, fs::relative(layout.spec_dir, layout.project_root, rel_ec).string(), "", run_id});
  if (!lock) return std::unexpected(RunError{lock.error(), 1});
  run_lock.emplace(std::move(*lock));
  return {};
}

void Orchestrator::Impl::stop_earlier_workers() {
  const auto stale = stale_workers(state_dir);
  const auto alive = std::ranges::count_if(stale, [](const StaleWorker& w) { return w.pid > 0; });
  // Locks are looked for after a stop, and when a run was killed after it stopped workers and
  // before it looked for their gits' locks.
  const bool look = alive > 0 || locks_unchecked(state_dir);
  if (look) begin_stopping_workers();
  if (alive > 0) // said first: stopping them may take a few seconds
    emit(RunEventKind::note, "", -1, 0,
         fmt::format("stopping {} worker{} an earlier run left running (up to 5 s)", alive, alive == 1 ? "" : "s"));
  stop_stale_workers(stale);
  for (const auto& w : stale)
    if (w.pid > 0)
      // Another spec's plans have the same ids: its worker is named as that spec's.
      emit(RunEventKind::note, w.task, -1, 0,
           !w.spec.empty() && !spec.layout.spec_name.empty() && w.spec != spec.layout.spec_name
               ? fmt::format("stopped a worker of {} ({}) left running by an earlier run", w.spec, w.task)
               : std::string("stopped a worker left running by an earlier run"));
    else if (!w.unreadable.empty())
      emit(RunEventKind::note, w.task, -1, 0,
           fmt::format("{}: {}; set aside as worker.ended.json, no worker stopped", w.record.string(), w.unreadable));
  if (look) clear_orphaned_index_lock(std::chrono::milliseconds(0));
}

void Orchestrator::Impl::begin_stopping_workers() {
  if (lock_checks_pending++ == 0) mark_locks_unchecked(state_dir);
}

std::expected<spec::Spec, RunError> Orchestrator::Impl::set_aside_planning_leftovers(spec::Spec loaded) {
  const auto refuse = [](const spec::Spec& s, std::string_view after = {}) {
    std::string why = spec::validation_text(s);
    if (!why.empty() && why.back() == '\n') why.pop_back();
    if (auto hint = uncommitted_plan_errors_hint(s); !hint.empty()) why += "\n" + hint;
    return std::unexpected(RunError{fmt::format("{}the spec does not validate:\n{}", after, why), 2});
  };
  // The script worker cannot plan the phase again: the file is the user's to mend.
  if (adapter_for(TaskKind::plan) == worker::AdapterKind::script) return refuse(loaded);
  const auto phases = interrupted_planning_phases(loaded.layout.project_root, loaded.layout.spec_name);
  if (phases.empty() || planning_leftovers(loaded, phases).empty()) return refuse(loaded);
  // A planner of the killed run may still be writing: no other run from here on, its workers
  // stopped, and the files read again.
  if (auto r = take_run_lock(loaded.layout); !r) return std::unexpected(r.error());
  stop_earlier_workers();
  auto again = spec::load_spec(opt.spec_dir);
  if (!again) return std::unexpected(RunError{again.error(), 2});
  if (again->valid()) return std::move(*again);
  const auto leftovers = planning_leftovers(*again, phases);
  if (leftovers.empty()) return refuse(*again);
  auto where = set_aside_leftovers(again->layout, leftovers);
  if (!where) return std::unexpected(RunError{where.error(), 1});
  for (const auto& l : leftovers)
    emit(RunEventKind::note, "", -1, 0,
         fmt::format("{} is what an interrupted planner left of it ({}): moved to {}; its phase is planned again",
                     l.shown, l.why, *where));
  auto cleaned = spec::load_spec(opt.spec_dir);
  if (!cleaned) return std::unexpected(RunError{cleaned.error(), 2});
  if (!cleaned->valid())
    return refuse(*cleaned, fmt::format("set aside what an interrupted planner left in {}, but ", *where));
  return std::move(*cleaned);
}

std::expected<void, RunError> Orchestrator::Impl::recover_earlier_run() {
  util::remove_stale_temp_files(spec.layout.spec_dir); // half-written documents of a killed run
  std::error_code ec;
  (void)util::create_state_directory(state_dir);
  (void)util::create_private_directories(state_dir / "sessions");
  stop_earlier_workers();
  auto opened = store::Store::open_project(spec.layout.project_root);
  if (!opened) return std::unexpected(RunError{"cannot open the state database: " + opened.error(), 1});
  db.emplace(std::move(*opened));
  stop_unrecorded_workers();
  load_own_writes(); // what a killed run wrote and never committed
  load_executor_asked(); // questions a killed run's executors asked
  // Reports workers left in files while no orchestrator was listening are not lost.
  std::size_t unrecorded_sessions = 0;
  if (auto r = store::StateDir(state_dir).ingest(*db); r) {
    for (const auto& e : r->errors) emit(RunEventKind::note, "", -1, 0, "ingest: " + e);
    for (const auto& e : r->store_errors) store_failed("", "store: " + e);
    unrecorded_sessions = r->unrecorded_sessions;
  }
  take_over_unrecorded_writes(unrecorded_sessions);
  // Sessions an earlier run left "running" whose process is gone (reaped above, or killed with
  // that run) become failed attempts, and their unanswered questions expire: status and the MCP
  // tools must not show them as alive.
  std::vector<std::string> dead_sessions;
  if (auto rec = store::recover(*db); !rec)
    store_failed("", "store: " + rec.error());
  else
    dead_sessions = std::move(rec->failed_sessions);
  if (auto w = store::ChangeWatcher::open(db->path()); w) watcher.emplace(std::move(*w));
  refuse_stale_requests();
  // Where this run's reading begins, and what the dead sessions reported. Not every message the
  // project ever stored: that grew each start with the project's age, and a cap on it (it was a
  // million) would have begun this run's reading at an old message.
  if (auto seq = db->last_message_seq()) last_seq = *seq;
  else store_failed("", "store: " + seq.error());
  const auto earlier_messages = db->messages_of_sessions(dead_sessions).value_or(std::vector<store::MessageRecord>{});
  // Said by what their workers reported: a finished session's work is taken, not lost.
  const auto earlier_store_error = util::read_file(state_dir / store_failed_file).value_or("");
  if (auto note = ended_sessions_note(dead_sessions, earlier_messages, earlier_store_error); !note.empty())
    emit(RunEventKind::note, "", -1, 0, std::move(note));
  fs::remove(state_dir / store_failed_file, ec); // said; a later run's sessions are its own
  // One walk of the history now (of the commits since the last run's, with its index kept);
  // afterwards only the commits each finished execute added.
  trailers.emplace(spec.layout.project_root, git_dir, state_dir / "trailer-index.json");
  trailers->refresh();
  verifier.set_trailer_index(&*trailers);
  verifier.set_cancel(&cancel_verification);
  discount_reported_failures(dead_sessions, earlier_messages); // before the SUMMARYs are read as executed
  commit_orphan_summaries();
  recover_commits_log();
  return {};
}

void Orchestrator::Impl::stop_unrecorded_workers() {
  auto recorded = db->list_sessions();
  if (!recorded) return;
  const auto lost = unrecorded_workers(*recorded, state_dir);
  if (lost.empty()) return;
  emit(RunEventKind::note, "", -1, 0,
       fmt::format("stopping {} worker{} an earlier run started but never recorded (up to 5 s)", lost.size(),
                   lost.size() == 1 ? "" : "s"));
  begin_stopping_workers();
  stop_stale_workers(lost);
  for (const auto& w : lost) emit(RunEventKind::note, w.task, -1, 0, "stopped a worker left running by an earlier run");
  clear_orphaned_index_lock(std::chrono::milliseconds(0));
}

void Orchestrator::Impl::clear_orphaned_index_lock(std::chrono::milliseconds after, int look) {
  // The two looks that tell a dead git's lock from a live one's are 100 ms apart: on a timer, so
  // that the other slots' messages and the display go on meanwhile.
  auto first = [this, look] {
    // Before the loop runs (a start stopping an earlier run's workers) nothing waits on it, and
    // what comes next there (the start's own recovery commits) needs the locks gone: look now.
    if (!loop_running) {
      note_removed_locks(worker::remove_orphaned_git_locks(spec.layout.project_root));
      return finish_lock_look(look);
    }
    auto seen = worker::first_lock_look(spec.layout.project_root);
    if (seen.locks.empty()) return finish_lock_look(look);
    run_after(std::chrono::milliseconds(100), [this, look, seen = std::move(seen)] {
      note_removed_locks(worker::remove_git_locks(worker::second_lock_look(spec.layout.project_root, seen)));
      finish_lock_look(look);
    });
  };
  // The stopped group's processes are still dying for a moment: a git among them would keep it.
  if (after.count() == 0) return first();
  run_after(after, first);
}

void Orchestrator::Impl::finish_lock_look(int look) {
  // Another git at work (another worker's, or the stopped task's next attempt already started)
  // keeps a dead git's lock from being told apart, and the index from being set back: look again
  // while that lasts, for as long as a commit waits on index.lock (10 s). One look only, the
  // next attempt's commit failed on the lock its predecessor's git left.
  constexpr int looks = 40;
  constexpr auto apart = std::chrono::milliseconds(250);
  if (!set_back_killed_commit_entries() && look + 1 < looks && !stop_now)
    return clear_orphaned_index_lock(apart, look + 1);
  // Looked: the mark goes once no other stop waits for its look (a kill before here leaves it,
  // and the next run looks again).
  if (lock_checks_pending > 0 && --lock_checks_pending == 0) clear_locks_unchecked(state_dir);
}

void Orchestrator::Impl::final_lock_look() {
  // The loop has ended, so the looks sleep between their halves; once only: when a git still hides
  // a lock, the mark stays and the next run looks at its start.
  note_removed_locks(worker::remove_orphaned_git_locks(spec.layout.project_root));
  if (!set_back_killed_commit_entries()) return;
  lock_checks_pending = 0;
  clear_locks_unchecked(state_dir);
}

bool Orchestrator::Impl::set_back_killed_commit_entries() {
  const auto& root = spec.layout.project_root;
  const auto restored = worker::restore_killed_commit_entries(root);
  if (restored && !restored->empty())
    emit(RunEventKind::note, "", -1, 0,
         fmt::format("set the index entr{} of {} back to HEAD's: a stopped worker's commit moved the branch but "
                     "did not finish the index, and a plain `git commit` would have undone that commit's change",
                     restored->size() == 1 ? "y" : "ies", fmt::join(*restored, ", ")));
  return restored && worker::existing_git_locks(root).empty();
}

void Orchestrator::Impl::note_removed_locks(const std::vector<fs::path>& removed) {
  const auto& root = spec.layout.project_root;
  for (const auto& l : removed) {
    std::error_code ec;
    emit(RunEventKind::note, "", -1, 0,
         fmt::format("removed {}: a stopped worker's git left it, and no git process works in this repository",
                     fs::relative(l, root, ec).generic_string()));
  }
}

void Orchestrator::Impl::run_after(std::chrono::milliseconds after, std::function<void()> fn) {
  auto timer = std::make_shared<asio::steady_timer>(ctx, after);
  timer->async_wait([timer, fn = std::move(fn)](boost::system::error_code e) {
    if (!e) fn();
  });
}

} // namespace harness::orchestrator
