#pragma once
// The `.orchestration/` directory (seed 000 Phase 2): a readable projection of the store, written
// atomically, and a file transport for workers that cannot speak MCP: a worker writes
// sessions/<id>/status.json and result.json (atomic rename) and ingest() turns them into the
// same messages an MCP worker sends, idempotently. Formats: docs/readme/store.md.

#include "harness/protocol/message.hpp"
#include "harness/spec/diagnostic.hpp"
#include "harness/store/config.hpp"
#include "harness/store/store.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <expected>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace harness::store {

/// seed 000 status.json.
struct WorkerStatus {
  std::string session_id;
  std::string timestamp;
  std::string state;                ///< initializing | running | checkpoint | completed | failed
  std::string phase;
  std::string plan;
  int current_task = 0;
  int total_tasks = 0;
  std::optional<std::string> message;
  std::string token{}; ///< the session's HARNESS_TOKEN: ingest reads no report file without it
};

/// What one ingest() pass did.
struct IngestReport {
  std::size_t inserted = 0;
  std::size_t duplicates = 0;
  std::vector<std::string> errors;  ///< `path: reason` for unreadable files (left in place)
  /// `path: reason` for files that were fine but the store could not record ("database is
  /// locked", "database or disk is full"): what the run must remember is lost unless it is read
  /// again. Not among `errors`.
  std::vector<std::string> store_errors;
  /// Session directories with a worker's report (status.json, result.json) that no session row
  /// names, skipped: an older harness did not record every worker in the store, and a report of a
  /// session the store does not know has no one to read it.
  std::size_t unrecorded_sessions = 0;
};

/// The `.orchestration/` directory of a project.
class StateDir {
 public:
  /// `root` is the `.orchestration` directory itself.
  explicit StateDir(std::filesystem::path root);
  /// `<project>/.orchestration`.
  static StateDir for_project(const std::filesystem::path& project);

  const std::filesystem::path& root() const { return m_root; }
  /// sessions/<id>
  std::filesystem::path session_dir(const std::string& session_id) const;

  std::expected<void, std::string> write_config(const OrchestrationConfig& config) const;
  std::expected<OrchestrationConfig, std::vector<spec::Diagnostic>> read_config() const;
  std::expected<void, std::string> write_dependency_graph(const boost::json::value& graph) const;
  std::expected<void, std::string> write_active_files(const boost::json::value& files) const;
  std::expected<void, std::string> write_status(const WorkerStatus& status) const;
  std::expected<std::optional<WorkerStatus>, std::string> read_status(const std::string& session_id) const;
  /// checkpoint.json: the pending checkpoint envelope, with the session's `token` (HARNESS_TOKEN)
  /// beside it, without which ingest does not read it.
  std::expected<void, std::string> write_checkpoint(const protocol::Envelope& checkpoint, const std::string& token = {}) const;
  /// checkpoint_response.json: the orchestrator's answer envelope.
  std::expected<void, std::string> write_checkpoint_response(const protocol::Envelope& response) const;
  /// result.json (JSON object written as given).
  std::expected<void, std::string> write_result(const std::string& session_id, const boost::json::value& result) const;

  /// Reads every sessions/<id>/status.json and result.json and inserts the messages they mean
  /// (progress_update / task_completed / task_failed) with ids derived from the file content, so
  /// re-reading the same file never duplicates. A file without its session's token (`"token"`,
  /// the worker's HARNESS_TOKEN) is listed in the errors and not read: another session's worker
  /// could otherwise report for it. A session whose row is no longer `running` is not read:
  /// its directory was read when it ended (the run that watched it reads it before recording the
  /// end; a killed run's sessions are read here before store::recover ends them), and reading
  /// every session a project ever had made each run's start grow with the project's age.
  std::expected<IngestReport, std::string> ingest(Store& store) const;
  /// The same for one session's directory only (what a worker left when it exited).
  IngestReport ingest_session(Store& store, const std::string& session_id) const;

 private:
  std::filesystem::path m_root;
};

/// JSON of a WorkerStatus (seed 000 camelCase keys).
boost::json::value to_json(const WorkerStatus& status);
/// Decodes status.json; the error names the field.
std::expected<WorkerStatus, std::string> worker_status_from_json(const boost::json::value& json);
/// The message a status.json means (progress_update), id derived from content.
protocol::Envelope status_message(const WorkerStatus& status);
/// The message a result.json means (task_completed or task_failed), id derived from content.
std::expected<protocol::Envelope, std::string> result_message(const boost::json::value& result);

}  // namespace harness::store
