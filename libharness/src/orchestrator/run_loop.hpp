#pragma once
// The orchestrator's run loop state (Orchestrator::Impl), shared by the files that implement it:
// orchestrator.cpp (events, actions, workers, run lifecycle), run_messages.cpp (worker reports and
// harness-mcp requests), run_checkpoints.cpp (verification and checkpoints), run_records.cpp (what
// a finished attempt must have left in git and the spec directory).

#include "harness/orchestrator/orchestrator.hpp"

#include "harness/graph/plan_graph.hpp"
#include "harness/orchestrator/earlier_questions.hpp"
#include "harness/orchestrator/ended_sessions.hpp"
#include "harness/orchestrator/failure_reason.hpp"
#include "harness/orchestrator/ignored_outputs.hpp"
#include "harness/orchestrator/plan_edits.hpp"
#include "harness/orchestrator/plan_guard.hpp"
#include "harness/orchestrator/plan_watch.hpp"
#include "harness/orchestrator/planning.hpp"
#include "harness/orchestrator/preflight.hpp"
#include "harness/orchestrator/worker_host.hpp"
#include "harness/orchestrator/writeback.hpp"
#include "harness/util/terminal_line.hpp"
#include "harness/sched/scheduler.hpp"
#include "harness/sched/spec_workload.hpp"
#include "harness/spec/diagnostic.hpp"
#include "harness/spec/document_parsers.hpp"
#include "harness/spec/plan_checkpoints.hpp"
#include "harness/spec/report.hpp"
#include "harness/store/recovery.hpp"
#include "harness/store/checkpoint_files.hpp"
#include "harness/store/run_lock.hpp"
#include "harness/store/schema.hpp"
#include "harness/store/state_dir.hpp"
#include "harness/store/store.hpp"
#include "harness/store/watch.hpp"
#include "harness/util/atomic_file.hpp"
#include "harness/util/free_space.hpp"
#include "harness/worker/agent_events.hpp"
#include "harness/worker/branch_rewind.hpp"
#include "harness/worker/git.hpp"
#include "harness/worker/git_head.hpp"
#include "harness/worker/trailers.hpp"
#include "harness/worker/prompt.hpp"
#include "harness/worker/script_worker.hpp"
#include "harness/worker/spawn.hpp"
#include "loop_spec.hpp"
#include "session_files.hpp"

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/json.hpp>
#include <fmt/format.h>

#include <deque>
#include <functional>
#include <iostream>
#include <random>
#include <set>
#include <thread>

namespace harness::orchestrator {
namespace asio = boost::asio;
namespace fs = std::filesystem;
using sched::ActionType;
using sched::EventType;
using sched::TaskKind;

/// n random bytes as hex (run and session ids).
inline std::string random_hex(size_t bytes) {
  std::random_device rd;
  std::string out;
  for (size_t i = 0; i < bytes; ++i) out += fmt::format("{:02x}", rd() & 0xff);
  return out;
}

inline bool is_planning(TaskKind k) {
  return k == TaskKind::plan || k == TaskKind::plan_gaps || k == TaskKind::check_plans;
}

inline bool is_verify(TaskKind k) {
  return k == TaskKind::verify_plan || k == TaskKind::verify_phase || k == TaskKind::verify_final;
}

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
    bool retry_forbidden = false;    ///< ... with `retry: forbidden`: another attempt cannot help
    PlanningReport report;           ///< a check-plans worker's verdict and findings
    /// An agent's planning or reconcile task: the PLAN files as it started, and that they are
    /// compared when it ends (undo_forbidden_plan_changes).
    PlanFilesBefore plans_before;
    bool guard_plans = false;
    fs::file_time_type status_seen{}; ///< the file-transport worker's status.json last read (ingest_live_status)
  };
  RunOptions opt;
  Verifier& verifier;
  Observer& observer;
  asio::io_context ctx;
  asio::signal_set signals{ctx, SIGINT, SIGTERM, SIGHUP}; // HUP: the terminal closed; drain like Ctrl-C
  std::unique_ptr<asio::thread_pool> verify_pool;
  std::unique_ptr<WorkerHost> host;
  std::unique_ptr<sched::Scheduler> scheduler;
  /// The spec and the copy the verifications share; changed only through its replace() and
  /// edit(), which drop that copy.
  LoopSpec loop_spec;
  /// What the loop reads of it: `const`, so that a change elsewhere does not compile.
  const spec::Spec& spec = loop_spec.get();
  fs::path state_dir;
  std::string run_id = random_hex(3);
  std::map<std::string, Session> sessions;          ///< by session id
  std::map<std::string, std::string> task_session;  ///< task id -> session id
  std::map<int, std::string> slot_task;
  std::map<std::string, PendingCheckpoint> checkpoints; ///< by checkpoint id
  int checkpoints_opened = 0;                           ///< makes each checkpoint id unique
  std::optional<asio::posix::stream_descriptor> tty_in; ///< the terminal, read on the loop (--interactive)
  std::deque<std::string> tty_queue;                    ///< checkpoints asked on the terminal, shown first
  std::array<char, 256> tty_chunk{};
  std::string tty_line;
  std::string tty_prompt; ///< the question on the terminal, for a display that draws it (RunView::prompt)
  int tty_lines_read = 0; ///< lines read from the terminal, each echoed with a newline (RunView::lines_typed)
  /// With a display that draws the question: the terminal echoes nothing and the line typed so far
  /// is drawn with the question (RunView::typed), so a redraw cannot hide it.
  std::optional<util::TerminalLineMode> tty_mode;
  util::LineEditor tty_editor;
  std::map<std::string, std::string> checkpoint_message;  ///< checkpoint id -> worker message id
  /// task -> how a person ended its last attempt ("ended by harness-cli end-session: REASON").
  std::map<std::string, std::string> ended_by_person;
  /// task -> its workers' checkpoints answered in this run, closed when the worker's session ends:
  /// a run killed before leaves them open with their answers, for the task's next worker.
  std::map<std::string, std::vector<std::string>> answers_in_flight;
  /// plan -> the checkpoint whose approval this run took for it, closed once the plan's SUMMARY
  /// records the approval (mark_plan_verified): a run killed in between leaves it open with its
  /// answer, and the next run takes that answer instead of asking the person again.
  std::map<std::string, std::string> approvals_in_flight;
  /// task -> the open checkpoint an earlier run of this spec asked for it, about a commit this
  /// checkout's history holds: taken over (with any answer given meanwhile) when this run asks the same.
  std::map<std::string, store::CheckpointRecord> carried;
  /// task -> the questions its workers asked in an earlier run whose worker the run stopped while
  /// it waited (kept_for_task), in id order: the task's next worker is told them and any answer
  /// (earlier_questions.hpp), and one that asks the same again takes over the checkpoint.
  std::map<std::string, std::vector<store::CheckpointRecord>> carried_questions;
  /// This run's workers' questions kept open as it stopped their workers: listed as the run ends.
  std::vector<PendingCheckpoint> kept_questions;
  std::set<std::string> stopped_waiting; ///< sessions stop_workers_waiting_for_people stopped
  asio::steady_timer checkpoint_poll{ctx};
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  RunSummary summary;
  std::vector<spec::BlockedTask> blocked_tasks; ///< tasks this run gave up on, for STATUS.md
  double execute_minutes = 0;
  double roadmap_minutes_before = 0; ///< ROADMAP.md's velocity minutes when the run started
  int interrupts = 0;
  bool draining = false;
  bool stop_now = false;    ///< second interrupt: end without waiting for running verifications
  std::atomic<bool> cancel_verification{false}; ///< set with stop_now: the pool's checks stop too
  bool done = false;
  bool output_gone = false; ///< the display's output is a closed pipe (check_output)
  std::deque<sched::Event> deferred_events;
  std::optional<store::Store> db;                 ///< <project>/.orchestration/harness.db
  std::optional<worker::TrailerIndex> trailers;   ///< trailer commits of HEAD, read incrementally
  std::optional<store::ChangeWatcher> watcher;    ///< wakes the pump when a worker writes
  asio::steady_timer pump_timer{ctx};
  asio::steady_timer status_timer{ctx}; ///< refresh_status_soon's
  bool status_refresh_due = false;      ///< status_timer is set
  /// Plans whose execute or verify-plan ended since the spec was last read whole: their SUMMARYs
  /// (a worker's, or the orchestrator's `verification:` mark) are what refresh_status_soon reads.
  std::set<std::string> summaries_written;
  std::int64_t last_seq = 0;
  /// A worker's question between its report and the checkpoint the scheduler opens for it.
  struct WorkerQuestion {
    std::string message_id;
    store::CheckpointAsks asks = store::CheckpointAsks::approval;
    std::vector<std::string> options; ///< decision_needed's options
  };
  std::map<std::string, WorkerQuestion> worker_question; ///< task id -> the question awaiting an answer
  std::optional<store::RunLock> run_lock;         ///< one orchestrator per project; liveness for harness-mcp
  std::int64_t last_request_seq = 0;              ///< requests table (harness_start/end_session) read so far
  std::string lock_taken_at;                      ///< ISO time this run took the run lock
  unsigned quiet_pumps = 0;                       ///< pump ticks without a database change
  std::set<std::string> ended_by_request;         ///< sessions stopped by harness_end_session
  std::map<std::string, int> session_id_uses;     ///< session ids handed out in this run
  std::chrono::steady_clock::time_point next_agent_start; ///< --stagger: no agent starts before this
  std::map<std::string, int> rate_limits;         ///< task -> rate-limited attempts in a row
  /// Tasks whose attempt failed while the disk was full: deferred like a rate limit, they run
  /// again once there is space (run_disk_space.cpp).
  std::set<std::string> disk_waits;
  bool disk_wait_said = false; ///< the note that tasks wait for space was emitted since space was last there
  /// When the disk was first seen too full in the current wait: after opt.disk_full_wait the run
  /// stops instead of waiting on (an unattended run whose task fills the disk waited forever).
  std::chrono::steady_clock::time_point disk_full_since;
  /// task -> its attempts in a row that failed on a full disk: a task that fills the disk itself
  /// would otherwise wait, run and fill it again forever (review OO F2).
  std::map<std::string, int> disk_failures;
  std::map<std::string, std::vector<std::string>> revision_findings; ///< phase -> the checker's findings
  std::map<std::string, std::pair<int, int>> saved_loop_rounds; ///< phase -> the rounds the store holds
  std::map<std::string, std::string> last_failure; ///< task -> why its last attempt in this run failed
  /// reconcile task -> its plan's file (relative to the project) as the running attempt found it
  std::map<std::string, std::pair<std::string, PlanFileBefore>> reconcile_start;
  std::set<std::string> reconciled;  ///< plans reconciled (in this run or an earlier one) and not executed since
  std::map<std::string, std::string> phase_gaps; ///< phase -> its last gaps_found verification's verdict and gaps
  /// plan -> how many committed tasks its last execute skipped while running none (script
  /// worker): a failed check then cannot be fixed by executing again, and the message says so.
  std::map<std::string, int> ran_nothing;
  std::set<std::string> planning_marked;          ///< phases with a planning mark in the store
  /// Plans whose executor asked a person something (spec::needs_approval): a declared decision or
  /// action was put to someone then, and needs no approval after the checks. Kept in the store
  /// (executor_asked_key): a run killed between the question and the plan's verification must not
  /// have the next one ask for that approval after all.
  std::set<std::string> executor_asked;
  std::set<std::string> own_writes; ///< files this orchestrator wrote and has not committed (relative)
  /// commits.log as this run last read or appended to it (none before recover_commits_log).
  std::optional<std::string> commits_log_known;
  /// The run's documents it could not write, and those it could not commit (relative path ->
  /// why): a later write or commit of the file that succeeds takes it off. What is left when the
  /// run ends is reported, and a run that would exit 0 exits 1 (finish_run).
  std::map<std::string, std::string> failed_writes, failed_commits;
  std::optional<std::vector<worker::GitChange>> changes_at_start; ///< git status when the run began
  /// .orchestration/config.yaml as the run began (empty: none): a worker that rewrites it chooses
  /// what the next run starts as its workers, so a change is said at the end.
  std::string config_at_start;
  /// A document of the user's whose progress marks the run keeps (ROADMAP.md; in GSD's layout
  /// REQUIREMENTS.md): as this run last wrote it, and whether it holds edits of someone else's
  /// that are not committed (then its marks are updated but the file is left for them to commit).
  struct KeptDocument {
    /// The run keeps it: it exists and has marks the run sets (REQUIREMENTS.md: looked at when the
    /// run starts; ROADMAP.md: at every write).
    bool kept = false;
    std::optional<std::string> written;
    bool theirs = false;
  };
  KeptDocument roadmap_doc, requirements_doc;
  /// By plan: the processes its last execute's worker left running outside its group, stopped at
  /// its exit (a dev server): the person asked to check the plan is told to start them again.
  std::map<std::string, std::vector<std::string>> stopped_leftovers;
  /// By plan: a person's approval at its verification checkpoint, recorded in its SUMMARY once
  /// the plan is marked verified.
  std::map<std::string, spec::HumanAnswer> plan_approvals;
  /// plan -> its PLAN file's text as its last execute started (remember_plan_as_started), and
  /// whether it was found edited since (then it keeps the text of the first start). A text is
  /// kept, not the plan: reading a small file twice per plan costs less than parsing it.
  struct PlanAsStarted {
    std::string text;
    bool pinned = false;
  };
  std::map<std::string, PlanAsStarted> plans_as_started;
  fs::path git_dir;                             ///< where HEAD is read (StartFacts::git_dir)
  std::optional<worker::GitHead> head_at_start; ///< what HEAD named when the run began: its commits go there
  std::optional<worker::GitHead> head_moved_to; ///< what it named instead, once it did: the run stops
  /// The newest commit of the run's branch the run knows holds all it committed: the tip at the
  /// start, moved along as the branch grows. Empty while the tip cannot be read (no commit yet).
  std::string known_tip;
  std::optional<worker::BranchRewind> rewound;  ///< the branch no longer held known_tip: the run stops
  unsigned pump_ticks = 0;                      ///< the pump's ticks, for checks made every few of them
  /// PLAN files edited, added or removed during the run (plan_edits.hpp): noticed through
  /// `plan_watch`, compared with `plans_seen` (the plans as the run last read them).
  std::optional<PlanWatch> plan_watch;
  std::string plan_watch_error;  ///< why there is no plan_watch, said once the run has started
  PlanSnapshots plans_seen;
  bool plans_dirty = false;      ///< a PLAN file changed since the last look
  bool plan_edits_deferred = false; ///< a change in what the run's own planner or reconcile writes waits for it

  Impl(RunOptions o, Verifier& v, Observer& obs) : opt(std::move(o)), verifier(v), observer(obs) {}

  double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }

  RunView view() const;
  void emit(RunEventKind kind, const std::string& task, int slot, int attempt, std::string message);
  /// `e` with its elapsed time set: for the events that carry structured fields.
  void emit(RunEvent e);

  // ---- events into the scheduler -------------------------------------------------------------

  void feed(const sched::Event& e);
  /// PLAN files changed on disk since the run last read them: the spec is read again, the
  /// scheduler told (plans_edited), and each change said in a note. Called before every event
  /// the scheduler handles (so nothing starts on an outdated plan) and from the pump's tick.
  void notice_plan_edits();
  /// The plans a planning or reconcile task of the run wrote (`e`, its succeeded event) are what
  /// the run has read: not edits.
  void remember_own_plans(const sched::Event& e);
  /// Planning marks (see planning_mark_key): read into the workload at start, set when a planner
  /// starts (each pass: a revision may be killed half-way too), "written" when it finishes,
  /// removed once the phase's check-plans is done. The loops' rounds (loop_rounds_key) and the
  /// plans reconciled but not executed yet (reconciled_key) are read here too.
  void apply_planning_marks(sched::Workload& w);
  /// Adds (a reconcile succeeded) or removes (its plan executed) `plan` in the store's reconciled
  /// plans of this spec.
  void note_reconciled(const std::string& plan, bool reconciled);
  void mark_planning(const std::string& phase, PlanningStage stage);
  void clear_checked_planning();
  /// `detail`: what the verifier found, for the question a verdict other than passed asks.
  void succeed(const std::string& task, sched::Verdict verdict = sched::Verdict::passed, bool deviations = false,
               std::string detail = {});
  void fail(const std::string& task, sched::FailureClass why, std::string detail);

  // ---- actions out of the scheduler ----------------------------------------------------------

  void apply(const sched::Action& a);
  worker::AdapterKind adapter_for(TaskKind k) const;
  void start_task(const sched::Action& a);
  void end_session(const std::string& sid, const std::string& message, bool ok = true);
  const spec::Plan* plan_of(const sched::Action& a) const { return spec.find_plan(a.subject); }
  /// Where plan `plan_id`'s SUMMARY is (or will be); empty for a plan or phase this spec lacks.
  std::filesystem::path summary_file_of(const std::string& plan_id) const;
  /// The spec directory as a user names it from the project root (for the commands we suggest).
  std::string spec_arg() const { return spec.layout.command_argument(); }

  std::string render_prompt(const Session& s);
  /// What a person said about the task's earlier work, for its worker's input (task_brief's
  /// person_notes): the pending redo marker's note and refusal, an end-session reason.
  std::vector<std::string> person_notes_for(const sched::Action& a);
  /// What the store could not record (a session's end, the files to commit, an answer: "store:
  /// commit: database or disk is full"): said as a note now, and the first one makes the run's
  /// end exit 1 with .orchestration/harness.db among its unwritten documents, since the next run
  /// would misread what this one did.
  void store_failed(const std::string& task, std::string message);
  std::string store_error; ///< the first store_failed message of the run; empty when none
  std::set<std::string> store_notes_said; ///< store_failed notes emitted (task and message), each once a run
  void launch_worker(Session& s);
  /// What is short where the run writes (the project's file system, the state's) when it has
  /// less than least_free_to_run bytes or least_free_files_to_run files free: "the file system
  /// holding X has N KB free"; nullopt when there is room.
  std::optional<std::string> disk_too_full() const;
  /// Ends session `sid` and defers its task when its attempt failed (`why`) while the disk is too
  /// full: the failure is the disk's, and costs no attempt (review II F9). false, and nothing
  /// done, when there is space: the failure is the task's own.
  bool defer_for_space(const std::string& sid, const std::string& task, const std::string& why);
  /// The `defer` of a task in disk_waits: checks the space every disk_poll and feeds its
  /// retry_due once there is enough again (nothing while the run is ending).
  void wait_for_space(const sched::Action& a);
  /// Ends the run (outcome `disk_full`) once the disk stayed too full for opt.disk_full_wait.
  void stop_for_space();
  /// Whether the start of `a` is held because the run already waits for space and the disk is
  /// still full: the task joins the wait without starting (review OO F4: each start failed at
  /// once, and an agent's start is a paid session).
  bool hold_start_for_space(const sched::Action& a);
  /// A worker that could not be started: its session ends and its task fails with `why`, on the
  /// loop (never inside the scheduler's action), after start_retry_pause when out_of_resources.
  void fail_start(const std::string& sid, const std::string& task, const std::string& why, int error_number);
  void on_line(const std::string& sid, std::string_view line);
  void on_exit(const std::string& sid, const WorkerExit& x);
  /// The store's word on a worker's end: `ended` with its reason when the run ended it on purpose
  /// (a drain, end-session, HEAD moved), else `completed` or `failed` by how its process ended.
  /// `kept`: the run stopped it while its question was open, which stays open (keep_questions).
  void record_session_end(const std::string& sid, const WorkerExit& x, bool kept, bool moved);
  /// "Bash (2x), Write": what an agent CLI refused to run, from its result event.
  static std::string refused_tools(const worker::AgentRunFacts& facts);
  /// Never trust a worker's word: an execute is done only with its SUMMARY and trailer commits.
  /// Called after log_attempt_commits, which refreshed the trailer index.
  std::string check_artifacts(const Session& s, bool& deviations);
  /// A worker killed between writing its SUMMARY and committing it left the plan executed (its
  /// tasks are committed) but the SUMMARY uncommitted; the resumed run does not run the plan
  /// again, so it makes the commit the worker would have made.
  void commit_orphan_summaries();
  /// What an earlier run left, taken up before this one starts (run_recovery.cpp): half-written
  /// documents, workers still running (stopped) and their git locks, reports left in files,
  /// sessions it never saw end, SUMMARYs and commits.log lines it never committed or wrote.
  /// Opens the store (db) and reads the history (trailers) on the way.
  std::expected<void, RunError> recover_earlier_run();
  /// Takes the project's run lock (once) and sets state_dir: one orchestrator per project.
  std::expected<void, RunError> take_run_lock(const spec::Layout& layout);
  /// Stops the workers an earlier run left running (their worker.json records), saying so.
  void stop_earlier_workers();
  /// `loaded` does not validate. When its only errors are PLAN files that a planner of an
  /// interrupted phase left cut short (planning_leftovers.hpp), they are set aside (with the run
  /// lock taken and the earlier run's workers stopped first: one may still be writing) and the
  /// spec read again; otherwise, or when it still does not validate, the run is refused (exit 2).
  std::expected<spec::Spec, RunError> set_aside_planning_leftovers(spec::Spec loaded);
  /// Stops the workers of sessions an earlier run left running without a recorded pid
  /// (unrecorded_workers), before recovery marks those sessions failed and their tasks run again.
  void stop_unrecorded_workers();
  /// The SUMMARY a failed execute attempt of `plan_id` left is marked `status: failed`: a plan
  /// counts as executed only after an attempt that succeeded (see mark_summary_failed).
  void discount_failed_summary(const std::string& task, const std::string& plan_id);
  /// The same for the sessions a killed run never saw end (`dead`, from store::recover) whose
  /// worker reported task_failed meanwhile.
  void discount_reported_failures(const std::vector<std::string>& dead, const std::vector<store::MessageRecord>& messages);
  /// commits.log lines a killed run never wrote: every trailer commit of this spec is logged.
  void recover_commits_log();
  /// When an execute or reconcile attempt ends, however it ends: its plan's trailer commits not
  /// in commits.log yet, logged with the session's id.
  void log_attempt_commits(const Session& s);
  /// Appends "<hash> <plan> <label>" to commits.log for each trailer commit of this spec's `plans`
  /// the log does not hold yet (a failure to write is a note about `task`).
  void log_trailer_commits(const std::vector<std::string>& plans, std::string_view label, const std::string& task);
  /// Writes commits.log whole again when it no longer holds what this run knows it holds (a
  /// `git clean -fd` removed it while it was untracked, say), with a note: else the run's commit
  /// would hold only the lines written after, and the next run would add the rest as recovered.
  void keep_commits_log_whole();
  /// The same for `now`, the log's text just read; `now` becomes the text written, if any.
  void keep_commits_log_whole(std::string& now);
  /// Which `Spec:` trailers are this spec's (its name, or its name before a rename).
  worker::SpecOwner ours() const {
    return [this](std::string_view trailer) { return spec.layout.owns_spec_trailer(trailer); };
  }
  /// At the run's start: `doc` (at `path`) changed and not by a killed run of ours is someone's;
  /// otherwise what it holds now is what the run compares its next write with.
  void adopt_kept_document(KeptDocument& doc, const fs::path& path);
  /// Writes `doc`'s marks (`update` reads, marks and writes it) and records the write; an edit
  /// made since the run last wrote it makes the file theirs.
  void keep_document(KeptDocument& doc, const fs::path& path,
                     const std::function<std::expected<DocumentWrite, std::string>()>& update);
  void note_theirs(KeptDocument& doc, const fs::path& path);
  std::string attempt_leftovers_note(const sched::Action& a);
  /// Removes git's index.lock when a stopped worker's git left it (worker::remove_orphaned_git_locks),
  /// now or `after` this long, and says so; looks again while another git's work hides it
  /// (`look` counts the looks).
  void clear_orphaned_index_lock(std::chrono::milliseconds after, int look = 0);
  bool loop_running = false; ///< ctx.run() is running: what waits on a timer will happen
  /// After a look's locks were removed (or there were none): sets back what a killed commit left
  /// in the index, looks again while another git hides a lock, and clears the mark when done.
  void finish_lock_look(int look);
  /// The same after the loop ended (a worker stopped just before the end): one look, blocking.
  void final_lock_look();
  /// worker::restore_killed_commit_entries, said as a note; false while a git or a lock is in
  /// the way (look again).
  bool set_back_killed_commit_entries();
  void note_removed_locks(const std::vector<std::filesystem::path>& removed);
  /// Runs `fn` on the loop `after` this long (nothing if the loop stops first).
  void run_after(std::chrono::milliseconds after, std::function<void()> fn);
  /// Before harness stops a worker (or right after it was stopped): the mark that locks are to be
  /// looked for (lock_check_mark.hpp); each clear_orphaned_index_lock ends one such stop.
  void begin_stopping_workers();
  int lock_checks_pending = 0;
  /// What a script execute's result.json says beyond its commits: whether it ran any task.
  void record_result(const Session& s);
  /// After an execute that succeeded with tasks that committed nothing: a note when files its
  /// plan declares, changed by the attempt, are ignored by git (ignored_outputs_note). No git
  /// process when every task has its commit.
  void note_ignored_outputs(const Session& s);
  /// The tasks of an execute's plan whose commits stand (the trailer index, read again for a
  /// retry): the script worker skips them, an agent is told of them.
  std::vector<std::pair<int, std::string>> committed_tasks(const sched::Action& a);
  /// A plan, plan-gaps or check-plans attempt ended cleanly: what the spec directory now holds
  /// decides (planning.hpp); new plans join the live graph.
  void finish_planning(const std::string& sid);
  /// For a planner or gap planner: the note of a person's refusal at its loop's bound (the newest
  /// answer to check-plans or verify-phase of the phase, when it refused with a note), or empty
  /// (review SS M4: the next run's planners never heard why).
  std::string refusal_of_loop(const sched::Action& a) const;
  /// Keeps phase `phase`'s loop rounds (Scheduler::loop_rounds) in the store when they changed.
  void save_loop_rounds(const std::string& phase);
  /// Puts back the PLAN files session `s`'s task changed and was not to change (plan_guard), and
  /// says what it did in one line; empty when it changed none.
  std::string undo_forbidden_plan_changes(const Session& s);
  /// A reconcile attempt that did not succeed: its plan goes back to how the attempt found it
  /// (reconcile_start), so that the next attempt does not edit its edit again.
  void put_back_reconciled_plan(const std::string& task);
  void check_cost();

  // ---- worker messages (written by harness-mcp --worker into the store) -----------------------

  void schedule_pump();
  void pump_messages();
  /// A worker without MCP (the script worker) reports through files in its session directory,
  /// which its exit reads into the store; while it runs, a status.json changed since the last
  /// look is shown (the table, a task_progress event) without touching the store: a locked
  /// database must not stall the loop for its busy wait, and the exit's reading records it.
  void show_live_status();

  // ---- requests from harness-mcp (harness_start_session, harness_end_session) -----------------

  void pump_requests();
  /// Requests written before this run started were meant for an orchestrator that is gone.
  void refuse_stale_requests();
  using Answer = std::pair<std::string, boost::json::object>;
  static Answer refuse(std::string why) { return {"refused", boost::json::object{{"error", std::move(why)}}}; }

  Answer start_requested(const std::string& plan);
  Answer end_requested(const std::string& sid, const std::string& body);
  static std::string field(const boost::json::object& o, std::string_view key);
  void handle_message(const store::MessageRecord& m);
  /// A worker's awaiting_answer: holds its timeouts while its await may block.
  void hold_while_awaiting(const Session& s, const boost::json::object& payload);
  /// Answers the worker's question in the store; its harness_worker_await returns with it.
  void answer_worker(const std::string& message_id, const store::CheckpointAnswer& answer);

  // ---- verification (on the pool, results posted back) ---------------------------------------

  void run_verification(Session& s);
  /// The VERIFICATION file a phase or final verification writes; empty for other tasks.
  fs::path report_file(const sched::Action& a) const;
  void on_verified(const sched::Action& a, const std::string& sid, const VerifyOutcome& out);

  // ---- checkpoints ----------------------------------------------------------------------------

  void ask_human(const sched::Action& a);
  /// What the loop behind `a` last found (checkpoint_question's `findings`): the checker's
  /// findings, a phase's gaps, or where to read them when this run did not see them.
  std::vector<std::string> loop_findings(const sched::Action& a) const;
  /// At start: expires the checkpoints nobody can answer any more (a worker's question of an
  /// ended run, one naming no spec, one about a commit no branch holds) and keeps those this run
  /// will ask again in `carried`; other specs' and other branches' are left alone.
  void take_over_checkpoints();
  /// The earlier run's checkpoint of `task` no longer asks about what is there (its checks failed
  /// since): an answer to it must not decide the task.
  void expire_carried(const std::string& task, const std::string& why);
  void prompt_on_terminal(const PendingCheckpoint& cp);
  void show_terminal_question();
  /// Puts `prompt` (empty: none) on the terminal: drawn by the display when it draws prompts
  /// (a live table would otherwise redraw over it), else written to stderr.
  void ask_on_terminal(std::string prompt);
  void read_terminal();
  /// A line typed on the terminal: the answer to the question shown, or that question again.
  void answer_typed_line(const std::string& line);
  void poll_checkpoints();
  /// Without a terminal, a run that has nothing left but checkpoints ends as waiting_for_human
  /// (exit 3); their files stay open for `respond` and the next run. True when it ended the run.
  bool stop_when_only_people_can_go_on();
  /// At the end of a run: a worker's question dies with the worker; a checkpoint an earlier run
  /// left whose task got done without it can never be asked again.
  void settle_checkpoints();
  /// At the end of a run, its own questions still open are about the work as the run leaves it
  /// (other plans may have written shared files after one was asked): their `head` becomes the
  /// run's last commit, which an answer given before the next run is compared with.
  void show_open_checkpoints_at_head();
  /// Tasks a request reopened (start-session of a blocked plan, and what waited on it) leave the
  /// run's blocked list: STATUS.md and the summary name only what is still blocked.
  void forget_unblocked();
  /// The checkpoints of `task`'s workers answered in this run (answers_in_flight) are closed.
  void close_answers_in_flight(const std::string& task);
  void answer_checkpoint(const std::string& id, const store::CheckpointAnswer& answer);
  /// A person's answer to a phase or final verification that asked for one goes into its
  /// VERIFICATION file (committed with the write-back), so no later run asks it again.
  void record_gate_answer(const std::string& task, const store::CheckpointAnswer& answer);
  std::optional<store::CheckpointAnswer> answered_in_store(const std::string& checkpoint_id);
  /// Whether what `task` (check-plans:NN, verify-phase:NN, verify-plan:ID) is about changed
  /// since commit `head`: the phase's PLAN files (the plan's own PLAN), and for a verification
  /// what its plans write, in the work tree (new files included). An escalation carried over, or a
  /// plan's answer given between runs, is taken as it stands only when nothing changed.
  bool work_changed_since(const std::string& task, const std::string& head) const;
  /// `finished`: the worker reported task_completed, so it went on without the answer.
  bool withdraw_questions(const std::string& task, bool finished = false);
  /// The run stopped the worker of `task` (an interrupt, --max-cost) with its questions open: they
  /// stay open, kept for the task's next worker (CheckpointRecord::kept_for_task), and are listed
  /// as the run ends. True when one was open.
  bool keep_questions(const std::string& task);
  /// Whether the worker of `s` only waits for a person: its question is open and it waits in
  /// harness_worker_await, or asked and reported nothing since (WorkerHost::held).
  bool waits_only_for_a_person(const Session& s) const;
  /// Draining: such a worker would never finish on its own, so it is stopped now (its question
  /// stays open, keep_questions) rather than waited for.
  void stop_workers_waiting_for_people();
  /// The earlier run's questions of `task` that a worker asks again, word for word, as `asked`
  /// in words `question`: taken out of carried_questions (nullopt when none).
  std::optional<store::CheckpointRecord> take_carried_question(const std::string& task, store::CheckpointAsks asks,
                                                               const std::string& question,
                                                               const std::vector<std::string>& options);
  /// At the end of a run that drained: each question still open (kept, or the run's own
  /// checkpoints, carried over) as a note and a `waiting` line of the summary, with its `respond`.
  void list_open_questions();
  /// `verification: passed` in the plan's SUMMARY, once its verify-plan task is done.
  void mark_plan_verified(const sched::Action& a);
  /// `verification: human_needed` in the plan's SUMMARY as its verification checkpoint opens:
  /// until a person approves, no report run meanwhile (`verify --phase` by hand) may pass over
  /// the question, and `status` reads the plan as waiting for one.
  void mark_plan_waiting(const sched::Action& a);
  /// A person refused plan `t`'s verification checkpoint: recorded in its SUMMARY
  /// (record_summary_refusal), before the checkpoint closes.
  void record_plan_refusal(const sched::Task& t, const spec::HumanAnswer& refusal);
  /// An execute starts: the phase's and the final VERIFICATION that covered the plan's earlier
  /// work list it in `executed_since` (verify/executed_since.hpp), so no later read takes their
  /// verdict for the new work's.
  void note_executed_again(const sched::Action& a);
  /// An execute starts: its plan as the worker is given it (read from its file now), which the
  /// plan's verification checks (plan_to_verify).
  void remember_plan_as_started(const sched::Action& a);
  /// The plan a verify-plan checks when it is not the run's own copy: the one its execute started
  /// with, when its PLAN file changed since (by its own worker, making a failing check pass, or by
  /// you); `edited` says so, and the plan stays pinned to that version for its retries in this
  /// run; the next run reads the edit. nullopt: the run's copy is the plan as it started.
  std::optional<spec::Plan> plan_to_verify(const std::string& plan_id, bool& edited);

  // ---- run lifecycle -------------------------------------------------------------------------

  void reload_spec();
  /// The orchestrator's own writes into the spec directory (verification marks, VERIFICATION,
  /// STATUS, ROADMAP, commits.log) become one commit, so the record is in the history too.
  /// `only`: instead, the changes under this path (a phase's plans, a research file a worker
  /// that has exited wrote).
  void commit_writeback(const std::string& what, const fs::path& only = {});
  /// commit_writeback of the run's own writes, once no worker holds the git lock (the loop goes on
  /// meanwhile); nothing after the run's end, whose own write-back commits what is left.
  void commit_writeback_when_free(std::string what);
  /// A phase or final verification found plans whose SUMMARY is gone (VerifyOutcome::
  /// missing_summaries): the gate blocks, naming them.
  void lost_summaries(const sched::Action& a, const std::string& sid, const VerifyOutcome& out);
  /// Records files the orchestrator (or its verifier) just wrote: the next write-back commits
  /// them. The list is kept in the store too, so what a killed run wrote is committed by the next.
  void wrote(std::initializer_list<fs::path> files);
  /// How writing one of the run's documents went: a failure is a note (the first one of the file
  /// only) and is remembered until a later write of the file succeeds.
  void record_write(const fs::path& file, const std::expected<void, std::string>& written, const std::string& task = {});
  /// failed_writes, then the failed commits whose files still differ from HEAD (a later commit,
  /// ours or not, may have taken them).
  std::vector<UnwrittenDocument> unwritten_documents();
  void load_own_writes();
  void load_executor_asked();
  /// Adds `plan` to executor_asked, in the store too.
  void note_executor_asked(const std::string& plan);
  /// What an older harness's killed run wrote and never committed, which no store lists (see
  /// first_schema_recording_writes; `unrecorded_sessions`: session directories without a row,
  /// left by a harness that kept no store): taken into own_writes once per spec.
  void take_over_unrecorded_writes(std::size_t unrecorded_sessions);
  void save_own_writes();
  void write_progress(bool running);
  /// A task ended: STATUS.md (and ROADMAP.md) are rewritten `opt.status_refresh` later, on a
  /// timer, so that between two phase write-backs they do not lag by a whole phase. Not
  /// committed then: the next write-back commits them. Several ends in that time are one write.
  /// `task` is the task that ended: an execute's or a verify-plan's SUMMARY is read again then.
  void refresh_status_soon(const std::string& task);
  void begin_drain(bool finish_if_idle = true);
  void maybe_stop_after_drain();
  void finish_run();
  void watch_signals();
  /// Whether HEAD names another branch than when the run began (a switch or checkout in another
  /// terminal), or its branch was rewound (branch_rewound). Its commits would land elsewhere and
  /// its checks read other files, so the first time it says so and stops taking tasks; the
  /// running workers finish, and nothing more is judged or committed (run_head.cpp).
  bool head_moved();
  /// Whether the branch's tip (`now`) no longer descends from known_tip: a reset, an amend, a
  /// rebase, by a worker or in another terminal. Commits the run made or counted are then gone
  /// from the branch, so it stops as after a switch and names them. A file read each time; one
  /// git process only when the tip changed.
  bool branch_rewound(const worker::GitHead& now);
  /// The run ends blocked (`blocked`: the line run_finished lists, `note`: the event saying it in
  /// full): no new task, nothing more judged or committed.
  void stop_for_head(const std::string& blocked, const std::string& note);
  /// At the start: HEAD as the run found it, and a note when it is detached.
  void note_head_at_start(const StartFacts& facts);
  /// Ctrl-C, SIGTERM, SIGHUP: the first drains (no new tasks, running ones finish), the second stops.
  void on_interrupt();
  /// The display's reader went away (`orchestrate | head`): nobody watches the run any more, as
  /// when the terminal closes, so it drains as after a first interrupt, once.
  void check_output();
  void warn_about_validation();
  void warn_about_dirty_files();
  void warn_about_undeclared_changes();
  void warn_about_untrailed_commits();
  std::expected<RunSummary, RunError> run();
};

} // namespace harness::orchestrator
