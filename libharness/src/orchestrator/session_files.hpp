#pragma once
// Internal: the orchestrator's own files under .orchestration/sessions/<id>/:
// worker.json (pid + start time, to reap workers an earlier run left behind), checkpoint.json and
// checkpoint_response.json (seed 000's file protocol for questions and answers).

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace harness::orchestrator {

struct WorkerRecord {
  int pid = 0;
  unsigned long long start_ticks = 0;
  std::string task;
  std::string session;
};

void write_worker_record(const std::filesystem::path& session_dir, const WorkerRecord& r);
/// Stops workers of earlier runs that are still alive (same pid and start time) and returns
/// their task ids. Their tasks are retried by this run, so none may keep writing meanwhile.
std::vector<std::string> reap_stale_workers(const std::filesystem::path& state_dir);

/// Writes sessions/<id>/checkpoint.json; returns its path.
std::filesystem::path write_checkpoint(const std::filesystem::path& state_dir, const std::string& id,
                                       const std::string& task, const std::string& question);
/// (approved, note) once sessions/<id>/checkpoint_response.json exists.
std::optional<std::pair<bool, std::string>> read_checkpoint_response(const std::filesystem::path& state_dir,
                                                                     const std::string& id);
/// Marks the checkpoint answered (renames checkpoint.json to checkpoint.answered.json).
void close_checkpoint(const std::filesystem::path& state_dir, const std::string& id);

} // namespace harness::orchestrator
