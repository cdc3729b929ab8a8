#pragma once
// Starting a child process: vfork, a few system calls, exec. Boost.Process 1.81's launchers fork
// and then, in the child, notify the io_context's services, which allocates memory: in a process
// whose other threads may hold an allocator lock at that moment (the orchestrator's verification
// pool), the child can deadlock before it ever reaches exec. It did, under ASan. Here the child
// runs only system calls prepared before the vfork (process group, signal dispositions,
// descriptors, working directory, the open-file limit), then exec. posix_spawn did the same until
// children needed the soft open-file limit this process started with (util::child_open_file_limit),
// which it cannot set. The pid is then handed to a ChildWatch for waiting.

#include "harness/util/system_error.hpp"

#include <expected>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace harness::worker {

struct SpawnRequest {
  std::filesystem::path exe;                 ///< absolute (or relative to the caller's cwd) path
  std::vector<std::string> argv;             ///< argv[0] included
  /// Complete environment; nullopt: this process's, as current_environment() gives it.
  std::optional<std::map<std::string, std::string>> env;
  std::filesystem::path cwd;                 ///< empty: the caller's
  int stdout_fd = -1;                        ///< -1: inherit
  int stderr_fd = -1;                        ///< -1: inherit
  bool own_process_group = true;             ///< setpgid(0, 0): a stop reaches the whole tree
};

/// Spawns the child (stdin from /dev/null, signal mask cleared, every signal at its default, the
/// soft RLIMIT_NOFILE at util::child_open_file_limit when set). Returns its pid, or why it could
/// not start (strerror's words and the errno: exec failures included).
std::expected<pid_t, util::SystemError> spawn_process(const SpawnRequest& req);

/// This process's environment as a map, to start a child with a few variables changed; without
/// the variables that point git at a repository (repository_env_vars): harness finds the
/// project's repository itself, and every child (git, workers, checks) works in that one.
std::map<std::string, std::string> current_environment();

/// The variables that make git use another repository, index or object store than the one it
/// finds from its working directory: git's own list (`git rev-parse --local-env-vars`, the ones it
/// clears for a submodule) without the `-c` settings, plus GIT_NAMESPACE. git sets them for hooks
/// and aliases; dotfile managers (vcsh, yadm) export them in a shell.
const std::vector<std::string>& repository_env_vars();

/// Those of repository_env_vars this process has, which no child gets: for a note.
std::vector<std::string> repository_env_vars_set();

/// The executable `name` resolves to: itself when it contains a '/', else the first match on PATH.
std::filesystem::path find_program(const std::string& name);

} // namespace harness::worker
