#pragma once
// Reconciling the store with reality after a restart: sessions whose process is gone become
// failed attempts, pending checkpoints are surfaced again. A pid alone is not trusted: its start
// time must match, so a reused pid is not mistaken for our worker. The run's own state is not
// replayed from the store: a restarted orchestrate rebuilds it from what the project holds (commit
// trailers, SUMMARYs, VERIFICATION files, checkpoint files) and from the store's sessions and
// key/value marks (review RR F10).

#include "harness/store/store.hpp"

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <vector>

namespace harness::store {

/// Start time of `pid` in clock ticks since boot (field 22 of /proc/<pid>/stat); nullopt when
/// no such process.
std::optional<std::uint64_t> process_start_time(std::int64_t pid);

/// True when `pid` runs and (when given) started at `start_time`.
bool process_alive(std::int64_t pid, std::optional<std::uint64_t> start_time);

/// What recover() found.
struct RecoveryReport {
  std::vector<std::string> failed_sessions;       ///< were running, process gone: now failed
  std::vector<std::string> live_sessions;         ///< still running with matching start time
  std::vector<MessageRecord> pending_checkpoints; ///< checkpoint messages of live sessions still unanswered
  /// The store's events table, for tools: no run writes it today (the scheduler's state is
  /// rebuilt from the project, not replayed).
  std::vector<EventRecord> events;
};

/// Reconciles: marks dead running sessions failed (their running attempt too, error
/// "worker process gone") and expires their pending messages; lists the rest.
std::expected<RecoveryReport, std::string> recover(Store& store);

}  // namespace harness::store
