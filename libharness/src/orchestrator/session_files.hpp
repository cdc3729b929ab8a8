#pragma once
// Internal: the orchestrator's own files under .orchestration/sessions/<id>/:
// worker.json (pid + start time, to reap workers an earlier run left behind). The checkpoint files
// beside it are store/checkpoint_files.hpp's.

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

} // namespace harness::orchestrator
