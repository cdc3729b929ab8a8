#pragma once
// Settings of one `orchestrate` run (flags and .orchestration/config.yaml merged by the caller).

#include "harness/orchestrator/rate_limit.hpp"
#include "harness/orchestrator/run_event.hpp"
#include "harness/sched/types.hpp"
#include "harness/worker/adapter.hpp"

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>

namespace harness::orchestrator {

/// What the first Ctrl-C does to running workers (the second always stops them).
enum class InterruptMode { finish_running, stop_running };

struct RunOptions {
  std::filesystem::path spec_dir;
  sched::Config sched;                         ///< slots, caps, gate lookahead, attempts, loops
  worker::AdapterKind adapter = worker::AdapterKind::claude;
  std::map<sched::TaskKind, worker::AdapterKind> adapter_by_kind; ///< overrides per task kind
  worker::AdapterSettings adapter_settings;
  std::filesystem::path worker_prompt_template; ///< skills/templates/worker-prompt.md
  std::filesystem::path harness_cli;            ///< absolute paths the workers need
  std::filesystem::path harness_mcp;
  bool auto_yes = false;                        ///< approve verification checkpoints whose checks passed
  bool interactive = false;                     ///< ask checkpoints on the terminal and wait (else exit 3 when only they are left)
  std::optional<double> max_cost_usd;
  std::chrono::seconds task_timeout{3600};
  std::chrono::seconds idle_timeout{900};
  std::chrono::seconds stop_grace{10};
  /// How long tasks wait for disk space before the run stops (outcome `disk_full`, exit 1): no
  /// attempt is spent, and the next run resumes once space is freed.
  std::chrono::seconds disk_full_wait{3600};
  std::chrono::milliseconds stagger{0};         ///< delay between two agent starts
  /// How long after a task ends STATUS.md is rewritten (not committed; the write-backs commit it):
  /// at most one rewrite in this time, and none in a run shorter than it.
  std::chrono::milliseconds status_refresh{2000};
  RateLimitBackoff rate_limit;                  ///< waits after a rate-limited worker
  InterruptMode interrupt = InterruptMode::finish_running;
  int verify_threads = 2;
};

/// The worker kind that runs tasks of `kind`: its override in `adapter_by_kind`, else the run's
/// default (what the run launches, and what the start checks look at).
inline worker::AdapterKind adapter_for(const RunOptions& options, sched::TaskKind kind) {
  auto it = options.adapter_by_kind.find(kind);
  return it != options.adapter_by_kind.end() ? it->second : options.adapter;
}

/// How a run ended. exit_code: 0 complete, 1 blocked or failed (a complete spec too, when the run
/// could not write or commit its documents), 3 waiting for a human, 130 interrupted.
struct RunSummary {
  std::string outcome; ///< complete | blocked | waiting_for_human | interrupted | cost_limit
  int exit_code = 1;
  std::vector<std::string> blocked;
  /// waiting_for_human, or a run that drained (interrupted, cost_limit, blocked by a moved HEAD):
  /// each open checkpoint and how to answer it
  std::vector<std::string> waiting;
  std::vector<UnwrittenDocument> unwritten; ///< the run's documents it could not write or commit, at its end
  int attempts = 0;
  double cost_usd = 0;
  double elapsed_seconds = 0;
};

} // namespace harness::orchestrator
