#pragma once
// What a person does to a project's run and none of its workers may. harness-cli is first on
// every worker's PATH and a worker may start harness-mcp: without this, a worker could answer its
// own checkpoint or a sibling's, end a sibling or reorder the queue, and the run would show it as
// a person's doing.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace harness::store {

/// A person's part in a run.
enum class PersonsPart {
  answer_checkpoint, ///< `respond ID ANSWER`, harness_respond
  steer_sessions,    ///< `start-session`, `end-session`, harness_start_session, harness_end_session
};

/// Why `part` is refused from this process, or nullopt: the process runs inside worker session
/// `session_id` of the project whose state directory is `state_dir` (`worker_state_dir`, the
/// worker's HARNESS_STATE_DIR; both empty outside a worker), or, whatever its environment says,
/// descends from the process of one of that project's running sessions (worker_ancestor_session).
/// A checkpoint asks a person, and starting or ending sessions steers the workers: a worker that
/// did either would pass the gate or pull the lever meant for a person. A worker of another
/// project (a run inside a worker's test) does these in that project as anyone does. Not a wall
/// against a hostile worker (one that detaches itself from its process tree): a person's gate
/// against an agent that means well or was told to, even told to clear its environment.
std::optional<std::string> refuse_inside_worker(const std::filesystem::path& state_dir,
                                                const std::filesystem::path& worker_state_dir, std::string_view session_id,
                                                PersonsPart part);

/// The running session of `state_dir`'s store whose worker process (pid and start time, as the
/// store recorded them) is this process or one of its ancestors; nullopt when none is, or there is
/// no store.
std::optional<std::string> worker_ancestor_session(const std::filesystem::path& state_dir);

} // namespace harness::store
