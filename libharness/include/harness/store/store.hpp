#pragma once
// The durable store: one SQLite database (WAL) shared by the orchestrator and every
// `harness-mcp --worker` process of a project. Every write either commits or returns an error
// (SQLITE_BUSY is retried with backoff under a deadline; we never proceed without the write).
// A Store is one connection guarded by a mutex: safe to share between threads of a process.

#include "harness/protocol/message.hpp"

#include <chrono>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace harness::store {

/// Newest schema version (`PRAGMA user_version`) this build writes.
inline constexpr int schema_version = 7;

/// SQLite `synchronous` setting: NORMAL survives process crashes, FULL also power loss.
enum class Synchronous { normal, full };

/// How to open a store.
struct StoreOptions {
  std::filesystem::path db_path;                     ///< see default_db_path()
  Synchronous synchronous = Synchronous::normal;
  std::chrono::milliseconds busy_timeout{10'000};    ///< total time a write may wait for the lock
  /// Upgrade a store an older build wrote even while an older build's orchestrate runs on it: for
  /// that run's own workers' harness-mcp, which is this build when it was installed over the
  /// older one mid-run (refused, every report of the run's later workers failed: review GG F1).
  bool upgrade_under_run = false;
};

/// `<project>/.orchestration/harness.db`.
std::filesystem::path default_db_path(const std::filesystem::path& project);

/// Why this user cannot read the project's run state (`state_dir`, its .orchestration/), or empty
/// when it can or there is none: another user's directory, or one of mode 0700, looked empty to
/// every reader (`respond --list` and the MCP tools said nothing waits, review II F2).
std::string unreadable_state(const std::filesystem::path& state_dir);

/// The same for the checkpoints (`respond`'s questions): the directories of the sessions and of
/// their index, which the run makes 0700 since they hold workers' tokens; a group-shared
/// .orchestration/ still hid the questions (review KK F1). The database alone (the MCP tools'
/// state) needs only unreadable_state (review LL F5).
std::string unreadable_checkpoints(const std::filesystem::path& state_dir);

/// Why SQLite cannot open a database at `db_path` for the length of its path, or empty. Its unix
/// file layer takes no path longer than 512 bytes, the `-journal` name beside the database
/// included: an absolute path of 504 bytes opens, 505 fails with "unable to open database file"
/// (SQLite 3.40, measured), which said nothing of the cause (review II F4).
std::string db_path_length_problem(const std::filesystem::path& db_path);

/// One worker session (seed 002 columns plus what the harness needs to find and trust it).
struct SessionRecord {
  std::string id;
  int slot = 0;
  std::string status = "running";         ///< running | completed | failed | ended (see end_reason)
  std::string working_dir;
  std::optional<std::string> current_command;
  std::optional<std::string> started_at;
  std::optional<std::string> ended_at;
  std::optional<std::int64_t> pid;
  std::optional<int> exit_code;
  std::string task_id;
  std::string spec;                       ///< the spec directory's name; empty: written by an older harness
  int attempt = 1;
  std::string token;                      ///< secret the worker's MCP calls present
  std::string adapter;
  std::optional<std::int64_t> pgid;
  std::optional<std::uint64_t> pid_start_time;  ///< field 22 of /proc/<pid>/stat (clock ticks)
  std::optional<std::string> log_path;
  std::string updated_at;
  /// Why the harness ended the session on purpose (status `ended`: a drain, `end-session`, HEAD
  /// moved): it ended, and did not fail. Written by set_session_status only.
  std::optional<std::string> end_reason;
};

/// Status of a worker message (seed 000).
inline constexpr const char* message_pending = "pending";
inline constexpr const char* message_responded = "responded";
inline constexpr const char* message_expired = "expired";
/// A report that needs no answer (progress, task_started, ...): never pending.
inline constexpr const char* message_received = "received";

/// A stored worker message (seed 000 worker_messages row plus its arrival order `seq`).
struct MessageRecord {
  std::int64_t seq = 0;                   ///< arrival order, increasing
  std::string id;
  std::string session_id;
  std::string type;                       ///< protocol wire name
  std::string payload;                    ///< JSON text of the payload object
  std::string status = message_pending;
  std::string created_at;
  std::optional<std::string> responded_at;
  std::optional<std::string> response;    ///< JSON text of the orchestrator's answer
};

/// Whether an insert added a row or found the id already present (idempotent ingestion).
enum class InsertOutcome { inserted, duplicate };

/// A schedulable unit (research, plan, check, execute, verify), as the scheduler names it.
struct TaskRecord {
  std::string id;
  std::string kind;
  std::string status;                     ///< scheduler-defined, e.g. pending|running|done|failed
  std::string detail = "{}";              ///< opaque JSON text
  std::string updated_at;
};

/// One attempt at a task, in one session.
struct AttemptRecord {
  std::string task_id;
  int attempt = 1;
  std::string session_id;
  std::string status = "running";         ///< running | completed | failed
  std::string started_at;
  std::optional<std::string> ended_at;
  std::optional<std::string> error;
};

/// An append-only scheduler event (opaque JSON body), replayed after a restart.
struct EventRecord {
  std::int64_t seq = 0;
  std::string created_at;
  std::string kind;
  std::string body;                       ///< JSON text
};

/// A request to the running orchestrator (from harness-mcp: start or end a session).
struct RequestRecord {
  std::int64_t seq = 0;
  std::string id;
  std::string kind;    ///< "start_session" | "end_session"
  std::string target;  ///< plan id or session id
  std::string body = "{}";  ///< JSON arguments
  std::string status = "pending";  ///< pending | done | refused
  std::optional<std::string> result;  ///< JSON answer once handled
  std::string created_at;
};

/// Seed 002 execution_state row; phases are strings so decimal phases ("02.1") fit.
struct ExecutionState {
  std::string project_path;
  std::string highest_executed_phase = "0";
  std::string highest_verified_phase = "0";
  std::optional<std::string> pending_verify_phase;
  std::optional<std::string> highest_executing_phase;
  std::optional<std::string> highest_executing_plan;
  std::string updated_at;
};

/// Handle on the database. Move-only.
class Store {
 public:
  /// Opens (creating the file and parent directories) and migrates to schema_version.
  static std::expected<Store, std::string> open(const StoreOptions& options);
  /// Opens `<project>/.orchestration/harness.db` with default options.
  static std::expected<Store, std::string> open_project(const std::filesystem::path& project);
  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  ~Store();

  /// Path of the database file.
  const std::filesystem::path& path() const;
  /// Current `PRAGMA user_version`.
  std::expected<int, std::string> user_version();

  // ---- sessions ----
  /// Inserts a session; error when the id exists.
  std::expected<void, std::string> create_session(const SessionRecord& session);
  /// Replaces every column of an existing session; false when unknown.
  std::expected<bool, std::string> update_session(const SessionRecord& session);
  /// Sets status (and exit code / ended_at for final states, end_reason for `ended`); false when
  /// unknown.
  std::expected<bool, std::string> set_session_status(const std::string& id, const std::string& status,
                                                      std::optional<int> exit_code = std::nullopt,
                                                      const std::optional<std::string>& end_reason = std::nullopt);
  /// The session or nullopt.
  std::expected<std::optional<SessionRecord>, std::string> session(const std::string& id);
  /// All sessions, id order.
  std::expected<std::vector<SessionRecord>, std::string> list_sessions();
  /// True when any session (of any run) was ever recorded for `task_id` of spec `spec` (task ids
  /// repeat across specs). A session recorded without a spec (by an older harness) counts for
  /// every spec: it may have been this one's.
  std::expected<bool, std::string> has_session_for_task(const std::string& task_id, const std::string& spec);
  /// True when `token` is the session's token (constant-time compare); false when unknown.
  std::expected<bool, std::string> check_token(const std::string& session_id, const std::string& token);

  // ---- worker messages ----
  /// Stores a message; a second insert with the same id is a no-op returning duplicate.
  std::expected<InsertOutcome, std::string> insert_message(const protocol::Envelope& message);
  /// Same, from an already-encoded record (payload JSON text); seq is ignored.
  std::expected<InsertOutcome, std::string> insert_message(const MessageRecord& message);
  /// Inserts many messages in one transaction; the number actually inserted (duplicates skipped).
  std::expected<std::size_t, std::string> insert_messages(const std::vector<protocol::Envelope>& messages);
  /// The message or nullopt.
  std::expected<std::optional<MessageRecord>, std::string> message(const std::string& id);
  /// Pending messages (of one session when given), arrival order.
  std::expected<std::vector<MessageRecord>, std::string> pending_messages(
      const std::optional<std::string>& session_id = std::nullopt);
  /// Messages with seq > `after_seq`, arrival order, at most `limit` (cursor for consumers).
  std::expected<std::vector<MessageRecord>, std::string> messages_after(std::int64_t after_seq,
                                                                        std::size_t limit = 1000);
  /// Answers a pending message (response is JSON text); false when unknown or not pending.
  std::expected<bool, std::string> respond(const std::string& message_id, const std::string& response);
  /// Marks a session's pending messages expired; how many.
  std::expected<std::size_t, std::string> expire_pending(const std::string& session_id);
  /// Number of stored messages.
  std::expected<std::int64_t, std::string> message_count();
  /// The newest message's seq (0 without messages): where a consumer that starts now begins.
  std::expected<std::int64_t, std::string> last_message_seq();
  /// The messages of the sessions `session_ids`, arrival order (what a run's start reads about
  /// the sessions an earlier run left, instead of every message the project ever stored).
  std::expected<std::vector<MessageRecord>, std::string> messages_of_sessions(const std::vector<std::string>& session_ids);

  // ---- execution state ----
  /// The row for `project_path` or nullopt.
  std::expected<std::optional<ExecutionState>, std::string> execution_state(const std::string& project_path);
  /// Inserts or replaces the row.
  std::expected<void, std::string> set_execution_state(const ExecutionState& state);
  /// Free key/value state (value is JSON text), for tools that need more than seed 002's columns.
  std::expected<void, std::string> set_value(const std::string& key, const std::string& json_value);
  /// Removes the key (nothing when absent).
  std::expected<void, std::string> erase_value(const std::string& key);
  /// All key/value pairs, key order.
  std::expected<std::vector<std::pair<std::string, std::string>>, std::string> values();

  // ---- tasks and attempts ----
  /// Inserts or replaces a task.
  std::expected<void, std::string> upsert_task(const TaskRecord& task);
  /// The task or nullopt.
  std::expected<std::optional<TaskRecord>, std::string> task(const std::string& id);
  /// All tasks, id order.
  std::expected<std::vector<TaskRecord>, std::string> list_tasks();
  /// Records an attempt start; error when (task, attempt) exists.
  std::expected<void, std::string> begin_attempt(const AttemptRecord& attempt);
  /// Ends an attempt with a final status; false when unknown.
  std::expected<bool, std::string> finish_attempt(const std::string& task_id, int attempt, const std::string& status,
                                                  const std::optional<std::string>& error = std::nullopt);
  /// Attempts of a task, attempt order.
  std::expected<std::vector<AttemptRecord>, std::string> attempts(const std::string& task_id);

  // ---- scheduler events ----
  /// Appends an event; its seq.
  std::expected<std::int64_t, std::string> append_event(const std::string& kind, const std::string& body);
  /// Events with seq > after_seq, in order.
  std::expected<std::vector<EventRecord>, std::string> events_after(std::int64_t after_seq = 0);

  // ---- requests to the orchestrator ----
  /// Stores a pending request; its id (generated) and seq filled in.
  std::expected<RequestRecord, std::string> add_request(const std::string& kind, const std::string& target,
                                                        const std::string& body = "{}");
  /// Pending requests with seq > after_seq, in order.
  std::expected<std::vector<RequestRecord>, std::string> pending_requests(std::int64_t after_seq = 0);
  /// The orchestrator takes a pending request before acting on it ('handling'): from then on the
  /// asker can no longer withdraw it. False when it was withdrawn or taken already.
  std::expected<bool, std::string> claim_request(const std::string& id);
  /// Answers a pending or taken request (`status` done or refused); false when unknown or already
  /// answered.
  std::expected<bool, std::string> finish_request(const std::string& id, const std::string& status,
                                                  const std::string& result_json);
  /// The asker gave up (timed out, cancelled): a request nobody took yet is refused with
  /// `result_json` and will not be acted on. False when the orchestrator took or answered it first.
  std::expected<bool, std::string> withdraw_request(const std::string& id, const std::string& result_json);
  /// Refuses, with `result_json`, every request still pending or taken ('handling') that was
  /// written before `before` (ISO 8601): they were meant for an orchestrator that is gone. Returns
  /// how many.
  std::expected<int, std::string> refuse_requests_before(const std::string& before, const std::string& result_json);
  /// The request, or nullopt.
  std::expected<std::optional<RequestRecord>, std::string> request(const std::string& id);

  // ---- maintenance ----
  /// `PRAGMA integrity_check` result ("ok" when healthy).
  std::expected<std::string, std::string> integrity_check();
  /// `PRAGMA data_version` on this connection (changes when another connection commits).
  std::expected<std::int64_t, std::string> data_version();

  struct Impl;  ///< private state (public name so the .cpp helpers can use it)

 private:
  explicit Store(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
};

}  // namespace harness::store
