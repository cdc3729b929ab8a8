#pragma once
// What the harness_* tools need from the durable store, in the shape the tools use: sessions,
// worker messages and their answers, key/value execution state, verified phases. A thin adapter
// over store::Store (<project>/.orchestration/harness.db, shared with the orchestrator), opened
// lazily: reads of a project without a database create nothing.
#include "harness/store/store.hpp"

#include <boost/json.hpp>

#include <cstdint>
#include <expected>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>

namespace harness::mcp {

/// One worker session as the tools see it.
struct SessionRow {
  std::string id;
  boost::json::object task;  ///< task_id, spec, attempt, adapter, working_dir (+ kind/status/detail when the task is stored)
  std::string status;
  std::string updated_at;
  std::string log_path;  ///< the worker's output log when the orchestrator recorded one
};

/// Whether an operation may create `.orchestration/harness.db` (reads never do).
enum class CreateIfMissing { yes, no };

/// Thread-safe handle on the project's store for the tools.
class ToolStore {
 public:
  /// A store for `project` (nothing is opened yet). `worker`: the tools of a running
  /// orchestrate's worker (store::StoreOptions::upgrade_under_run).
  explicit ToolStore(std::filesystem::path project, bool worker = false);

  /// Registers a session for `task_id` (the orchestrator does this when it launches a worker;
  /// tests use it to stand in for the orchestrator).
  std::expected<void, std::string> create_session(const std::string& id, const std::string& token,
                                                  const std::string& task_id);
  /// True when `token` belongs to session `id` (false for unknown sessions).
  std::expected<bool, std::string> check_token(const std::string& id, const std::string& token);
  /// The session, or nullopt when unknown.
  std::expected<std::optional<SessionRow>, std::string> session(const std::string& id);
  /// All sessions in id order, with their pending message counts.
  std::expected<boost::json::array, std::string> list_sessions();
  /// Sets a session's status (orchestrator side; tests).
  std::expected<void, std::string> set_status(const std::string& id, const std::string& status);
  /// Validates `payload` against the protocol type `type` and stores the message; its id.
  std::expected<std::string, std::string> add_message(const std::string& session, const std::string& type,
                                                      const boost::json::value& payload);
  /// Messages still waiting for an answer (all sessions when `session` is empty), oldest first.
  std::expected<boost::json::array, std::string> pending(const std::string& session);
  /// Answers a pending message; false when it is unknown or already answered.
  std::expected<bool, std::string> respond(const std::string& message_id, const boost::json::value& response);
  /// One message by id; nullopt when there is none (or no database yet).
  std::expected<std::optional<store::MessageRecord>, std::string> message(const std::string& id);
  /// The newest message of `session` that expects an answer, pending or answered ("" when none).
  std::expected<std::string, std::string> latest_awaitable(const std::string& session);
  /// The answer to a message of `session` once given; nullopt while pending. Error when the
  /// message does not belong to the session or expired.
  std::expected<std::optional<boost::json::value>, std::string> response_of(const std::string& session,
                                                                           const std::string& message_id);
  /// Sets / reads execution state keys (values are any JSON).
  std::expected<void, std::string> set_state(const std::string& key, const boost::json::value& value);
  std::expected<boost::json::object, std::string> get_state();
  /// Records a note that a phase (of `spec`, when not empty) was verified: key/value
  /// `verified_phases`, a key set_state refuses, and the seed's
  /// execution_state.highest_verified_phase when the phase is higher. Nothing else reads it.
  std::expected<void, std::string> mark_phase_verified(const std::string& phase, const std::string& note,
                                                       const std::string& spec = {});
  /// Verified phases ({phase, spec?, note, verified_at}), by spec (none first), then phase order.
  std::expected<boost::json::array, std::string> verified_phases();

  /// <project>/.orchestration
  std::filesystem::path state_dir() const { return m_project / ".orchestration"; }

 private:
  /// The open store; nullptr (no error) with CreateIfMissing::no and no database yet.
  std::expected<store::Store*, std::string> open(CreateIfMissing create);
  std::filesystem::path m_project;
  bool m_worker = false;
  std::mutex m_mutex;
  std::optional<store::Store> m_store;
};

}  // namespace harness::mcp
