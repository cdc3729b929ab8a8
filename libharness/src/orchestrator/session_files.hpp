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
  std::string spec; ///< the spec directory's name: plan ids repeat across specs
};

void write_worker_record(const std::filesystem::path& session_dir, const WorkerRecord& r);
/// A worker an earlier run started, as its worker.json records it: `pid` is 0 when that process
/// has ended (no process of that pid and start time).
struct StaleWorker {
  int pid = 0;
  std::string task;
  std::string spec; ///< empty in a record written before records named their spec
  std::filesystem::path record; ///< its worker.json
};

/// Every worker record an earlier run left (ended ones with pid 0, so that their records are
/// retired too). Their tasks are retried by this run, so none that is alive may keep writing
/// meanwhile: stop_stale_workers stops them.
std::vector<StaleWorker> stale_workers(const std::filesystem::path& state_dir);
/// Stops them all at once (TERM, up to 5 s, KILL) and marks every session record of an ended
/// worker as such, so the next run does not look again.
void stop_stale_workers(const std::vector<StaleWorker>& workers);

} // namespace harness::orchestrator
