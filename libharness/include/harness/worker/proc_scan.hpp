#pragma once
// Questions about processes answered from /proc, for recovery and for stopping workers.
// Every worker starts with HARNESS_SESSION_ID set (and its children inherit it), before the
// orchestrator has written its pid anywhere: a run killed in that moment leaves a worker no
// record names, and the next run finds it by that variable.

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace harness::worker {

struct EnvMatch {
  int pid = 0;
  int pgid = 0;
  std::string value; ///< the variable's value, one of those asked for
};

/// A variable a process's environment must also set, to a path: the project a session belongs
/// to (HARNESS_STATE_DIR). Session ids are unique within a project only (and tests all call theirs
/// "s1"): a run must not take another project's worker of the same id for its own.
struct EnvPath {
  std::string_view name;
  std::filesystem::path value; ///< compared after weakly_canonical on both sides
};

/// The live processes (zombies left out) whose initial environment sets `name` to one of
/// `values` and, with `scope`, sets scope's variable to the same path; read from
/// /proc/PID/environ. Processes of other users cannot be read and are not listed. Costs one small
/// read per process of the machine (about 0.3-0.5 ms for 85 processes here): fine once per worker
/// attempt, which lasts seconds to minutes; not for a per-event path.
std::vector<EnvMatch> processes_with_env(std::string_view name, const std::set<std::string, std::less<>>& values,
                                         const std::optional<EnvPath>& scope = std::nullopt);

/// The command line of `pid` (/proc/PID/cmdline, its arguments joined by blanks); empty when it
/// is gone or cannot be read.
std::string process_command(int pid);

/// True while a process of group `pgid` has not exited. kill(-pgid, 0) also answers for zombies,
/// which hold nothing but stay until their parent reaps them: an orphan's parent is init, and an
/// init that reaps slowly (some container runtimes) kept a stopped worker's group "alive" for the
/// whole grace period.
bool group_has_live_process(int pgid);

} // namespace harness::worker
