#pragma once
// `harness-cli prune`: removes what `.orchestration/sessions/` holds of old runs (every worker
// session's directory: its output log, status and result files, an agent's prompt, configuration
// and transcript; the checkpoints a run asked) that nothing will read again. It never touches the
// store's rows (a redo and a plan's next attempt ask whether a task ever had a session), the
// spec directory, git, `config.yaml` or `discarded/` (copies of files a retry reset: the user's
// work, only they may remove it).
//
// A directory stays while it may still matter:
//   running       the store says its session runs, or a worker record (worker.json) names a
//                 process a killed run may have left behind: the next orchestrate deals with it
//   waiting       a question in it waits for an answer, or an answer waits for a run to read it
//   recent run    it belongs to one of the newest N runs (--keep-runs, default 1)
//   last failure  it is the newest session of its spec's task and that session failed: the log
//                 `status` points at for a blocked task
//   unknown       neither the store nor a checkpoint record describes it: not harness's to judge

#include "harness/orchestrator/orchestrator.hpp"

#include <cstdint>
#include <expected>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace harness::orchestrator {

/// Why a directory stays (`none`: it goes).
enum class PruneKeep { none, running, waiting, recent_run, last_failure, unknown };

std::string_view to_string(PruneKeep keep);

/// One directory under `.orchestration/sessions/`, with what the store and its files say of it.
struct PruneEntry {
  std::string name;             ///< the directory's name (a session id or a checkpoint id)
  std::string run;              ///< the run it belongs to; empty: not known
  std::string when;             ///< ISO 8601, when it last changed; orders the runs
  bool running = false;
  bool waiting = false;
  bool last_failure = false;
  bool known = false;           ///< a session row or a checkpoint record describes it
  std::uintmax_t bytes = 0;     ///< disk space it takes (allocated blocks, as du counts them)
  PruneKeep keep = PruneKeep::none; ///< decide_prune's verdict
  std::string error;            ///< removing it failed: why (it stays)
};

/// Pure: sets every entry's `keep`. The `keep_runs` runs with the newest `when` stay whole; a
/// negative `keep_runs` is taken as 0. Returns how many distinct runs the entries name.
int decide_prune(std::vector<PruneEntry>& entries, int keep_runs);

struct PruneOptions {
  int keep_runs = 1;
  bool dry_run = false; ///< decide and report only
};

struct PruneResult {
  std::vector<PruneEntry> entries;     ///< every directory under sessions/, name order
  int runs = 0;                        ///< distinct runs the directories belong to
  int keep_runs = 1;
  bool dry_run = false;
  std::uintmax_t removed_bytes = 0;    ///< (would be) freed
  std::size_t removed = 0;             ///< directories (that would be) removed
  std::uintmax_t discarded_bytes = 0;  ///< what `.orchestration/discarded/` holds (never removed)
  bool failed() const;                 ///< a removal failed
};

/// Decides, then (unless dry_run) removes. Refuses with exit code 1 while an orchestrate runs in
/// the project, and holds the project's run lock while it works so that none starts meanwhile.
/// A directory leaves `sessions/` in one rename before it is deleted, so an interrupted prune
/// leaves no half-removed session behind (the next prune finishes the deletion).
std::expected<PruneResult, RunError> prune(const std::filesystem::path& project_root, const PruneOptions& options);

/// A run's start note when `.orchestration/sessions/` holds at least `threshold` directories
/// (counted, not measured: one directory listing), pointing at prune; empty below it.
std::string prune_hint(const std::filesystem::path& state_dir, std::size_t threshold = 2000);

/// "removed 1,180 session directories of 14 runs (23.5 MB); kept 37: ..." and, for a dry run,
/// every directory that would go.
std::string prune_text(const PruneResult& result);
/// {"dry_run", "runs", "keep_runs", "removed": [names], "removed_bytes", "kept": {"running": [...],
/// "waiting": [...], "recent_run": [...], "last_failure": [...], "unknown": [...]}, "failed":
/// [{"name", "error"}], "discarded_bytes"}.
std::string prune_json(const PruneResult& result);

} // namespace harness::orchestrator
