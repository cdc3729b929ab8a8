#pragma once
// Internal: the orchestrator's own files under .orchestration/sessions/<id>/:
// worker.json (pid + start time, to reap workers an earlier run left behind), each listed in the
// index .orchestration/index/worker_records/ (store/session_index.hpp) until it is retired, so that
// a run's start reads the records an earlier run left, not every session directory there ever was.
// The checkpoint files beside it are store/checkpoint_files.hpp's.

#include "harness/orchestrator/planning.hpp"
#include "harness/store/store.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
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
/// A worker an earlier run started, as its worker.json records it: `pid` is 0 when nothing of it
/// runs any more (worker_group_alive: an exited worker init has not reaped is not running).
struct StaleWorker {
  int pid = 0;
  std::string task;
  std::string spec; ///< empty in a record written before records named their spec
  std::filesystem::path record; ///< its worker.json
  std::string unreadable; ///< why the record names no worker (not one harness wrote); pid is 0 then
};

/// The worker record (worker.json) in `session_dir`, nullopt when there is none (never written,
/// or renamed worker.ended.json once its worker was known to be gone).
std::optional<StaleWorker> read_worker_record(const std::filesystem::path& session_dir);
/// Every worker record an earlier run left (ended ones with pid 0, so that their records are
/// retired too). Their tasks are retried by this run, so none that is alive may keep writing
/// meanwhile: stop_stale_workers stops them.
std::vector<StaleWorker> stale_workers(const std::filesystem::path& state_dir);
/// Stops them all at once (TERM, up to 5 s, KILL) and marks every session record of an ended
/// worker as such, so the next run does not look again.
void stop_stale_workers(const std::vector<StaleWorker>& workers);

/// Workers of sessions an earlier run left "running" without a pid: it was killed after spawning
/// them and before writing worker.json or the pid. They are found by the HARNESS_SESSION_ID in
/// their environment (worker::processes_with_env); `pid` holds the process group to stop. Without
/// this, recovery took "no pid" for "never started" while the worker went on committing beside
/// the task's next attempt.
std::vector<StaleWorker> unrecorded_workers(const std::vector<store::SessionRecord>& sessions,
                                            const std::filesystem::path& state_dir);

/// The planning marks of `spec_name` in the project's store (empty when it has none: nothing ran
/// there, and none is created by asking).
std::vector<UnfinishedPlanning> stored_planning_marks(const std::filesystem::path& project_root,
                                                      std::string_view spec_name);

} // namespace harness::orchestrator
