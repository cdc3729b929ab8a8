#pragma once
// Asking the orchestrator that runs in a project (harness_start_session, harness_end_session, and
// the CLI's start-session / end-session): a row in the `requests` table, answered by the
// orchestrator's loop, which reads that table whenever the database changes.

#include "harness/store/store.hpp"

#include <chrono>
#include <expected>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace harness::store {

/// The orchestrator's answer: `done` with its result object, or refused with `error` in it.
struct RequestAnswer {
  bool done = false;
  std::string result_json; ///< a JSON object
};

/// Writes the request and waits for the answer, looking every 20 ms; `wait(step)` sleeps up to
/// `step` and returns true when the caller gives up. Fails with "orchestrator not running: ..."
/// when no orchestrate holds the run lock of `state_dir`, "the orchestrator stopped before
/// answering", "the orchestrator did not answer within N s", "cancelled", or a store error. On
/// those failures the request is withdrawn (refused) unless the orchestrator already took it, in
/// which case its answer is awaited (up to 5 s) and returned.
std::expected<RequestAnswer, std::string> ask_orchestrator(Store& db, const std::filesystem::path& state_dir,
                                                           const std::string& kind, const std::string& target,
                                                           const std::string& body_json, std::chrono::seconds timeout,
                                                           const std::function<bool(std::chrono::milliseconds)>& wait);

/// The worker sessions of the orchestrate running in the project whose state directory is
/// `state_dir` that are still running, id order: the SESSION_IDs `end-session` accepts. Empty when
/// no orchestrate runs there; the database is then neither opened nor created.
std::expected<std::vector<SessionRecord>, std::string> running_sessions(const std::filesystem::path& state_dir);

/// `{"sessions": [{"session_id", "task_id", "spec", "slot", "attempt", "adapter"}]}`; slots count
/// from 1, as orchestrate shows them.
std::string sessions_json(const std::vector<SessionRecord>& sessions);
/// One line per session: `<id>  <task>  slot N, attempt N, <adapter>`.
std::string sessions_text(const std::vector<SessionRecord>& sessions);

/// The "orchestrator not running" message for `state_dir`.
std::string orchestrator_not_running(const std::filesystem::path& state_dir);

}  // namespace harness::store
