#pragma once
// The durable state the harness_* tools read and write: sessions, worker messages and their
// answers, key/value execution state, verified phases. SQLite (WAL) in
// <project>/.orchestration/mcp.db, opened lazily, shared by every harness-mcp process of a
// project. Stands in until the `store` module's API exists (see docs/readme/mcp.md).
#include <boost/json.hpp>

#include <cstdint>
#include <expected>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>

struct sqlite3;

namespace harness::mcp {

/// One worker session as the tools see it.
struct SessionRow {
  std::string id;
  std::string token;
  boost::json::value task;
  std::string status;
  std::string updated_at;
};

/// Whether an operation may create `.orchestration/` (reads never do).
enum class CreateIfMissing { yes, no };

/// Thread-safe handle on the project's tool database.
class ToolStore {
 public:
  /// A store for `project` (nothing is opened yet).
  explicit ToolStore(std::filesystem::path project);
  ~ToolStore();
  ToolStore(const ToolStore&) = delete;
  ToolStore& operator=(const ToolStore&) = delete;

  /// Registers a session (the orchestrator does this when it launches a worker).
  std::expected<void, std::string> create_session(const std::string& id, const std::string& token,
                                                  const boost::json::value& task);
  /// The session, or nullopt when unknown.
  std::expected<std::optional<SessionRow>, std::string> session(const std::string& id);
  /// All sessions in id order (without tokens).
  std::expected<boost::json::array, std::string> list_sessions();
  /// Sets a session's status.
  std::expected<void, std::string> set_status(const std::string& id, const std::string& status);
  /// Appends a worker message; its id.
  std::expected<std::int64_t, std::string> add_message(const std::string& session, const std::string& type,
                                                       const boost::json::value& payload);
  /// Messages still waiting for an answer (all sessions when `session` is empty), oldest first.
  std::expected<boost::json::array, std::string> pending(const std::string& session);
  /// Answers a pending message; false when it is unknown or already answered.
  std::expected<bool, std::string> respond(std::int64_t message_id, const boost::json::value& response);
  /// The newest message of `session` that expects an answer (id 0 when none).
  std::expected<std::int64_t, std::string> latest_message(const std::string& session);
  /// The answer to a message of `session` once given; nullopt while pending. Error when the
  /// message does not belong to the session.
  std::expected<std::optional<boost::json::value>, std::string> response_of(const std::string& session,
                                                                           std::int64_t message_id);
  /// Sets / reads execution state keys (values are any JSON).
  std::expected<void, std::string> set_state(const std::string& key, const boost::json::value& value);
  std::expected<boost::json::object, std::string> get_state();
  /// Records a phase as verified.
  std::expected<void, std::string> mark_phase_verified(const std::string& phase, const std::string& note);
  /// Verified phases, in phase order.
  std::expected<boost::json::array, std::string> verified_phases();

  /// <project>/.orchestration
  std::filesystem::path state_dir() const { return m_project / ".orchestration"; }

 private:
  std::expected<sqlite3*, std::string> open(CreateIfMissing create);
  std::filesystem::path m_project;
  std::mutex m_mutex;
  sqlite3* m_db = nullptr;
};

}  // namespace harness::mcp
