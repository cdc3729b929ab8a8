#pragma once
// Internal: `.orchestration/locks-unchecked`, a mark that harness stopped workers and has not yet
// looked for the git locks their gits may have left (worker/index_lock.hpp). It is written before
// the workers are stopped and removed once the look is done, so a run killed in between (the next
// run stopping the killed run's workers, and killed itself a moment later) leaves it behind. The
// next run then takes a lock nobody holds for what it is, its own stopped worker's, and clears it
// in recovery, instead of refusing to start and asking the user to remove it by hand.

#include <filesystem>

namespace harness::orchestrator {

/// Writes the mark (best effort: without it a lock left is the user's to remove, as before).
void mark_locks_unchecked(const std::filesystem::path& state_dir);
/// Removes it: the locks were looked for.
void clear_locks_unchecked(const std::filesystem::path& state_dir);
bool locks_unchecked(const std::filesystem::path& state_dir);

} // namespace harness::orchestrator
