#include "harness/worker/spawn.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>

extern char** environ;

namespace harness::worker {
namespace {

/// Frees posix_spawn's attribute objects on every path out.
struct SpawnSetup {
  posix_spawn_file_actions_t actions{};
  posix_spawnattr_t attr{};
  SpawnSetup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
};

} // namespace

const std::vector<std::string>& repository_env_vars() {
  static const std::vector<std::string> vars = {
      "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR",      "GIT_CONFIG",          "GIT_DIR",
      "GIT_GRAFT_FILE",                   "GIT_IMPLICIT_WORK_TREE", "GIT_INDEX_FILE",   "GIT_INTERNAL_SUPER_PREFIX",
      "GIT_NAMESPACE",                    "GIT_NO_REPLACE_OBJECTS", "GIT_OBJECT_DIRECTORY", "GIT_PREFIX",
      "GIT_REPLACE_REF_BASE",             "GIT_SHALLOW_FILE",    "GIT_WORK_TREE"};
  return vars;
}

std::vector<std::string> repository_env_vars_set() {
  std::vector<std::string> set;
  for (const auto& v : repository_env_vars())
    if (std::getenv(v.c_str())) set.push_back(v);
  return set;
}

std::map<std::string, std::string> current_environment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string_view kv(*e);
    if (const auto eq = kv.find('='); eq != std::string_view::npos) env.emplace(kv.substr(0, eq), kv.substr(eq + 1));
  }
  for (const auto& v : repository_env_vars()) env.erase(v);
  return env;
}

std::filesystem::path find_program(const std::string& name) {
  if (name.empty()) return {};
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t colon = dirs.find(':', start);
    const std::string dir = dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    const std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0 && !std::filesystem::is_directory(candidate)) return candidate;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return {};
}

std::expected<pid_t, std::string> spawn_process(const SpawnRequest& req) {
  if (req.argv.empty()) return std::unexpected("empty command");
  SpawnSetup s;
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  if (req.own_process_group) {
    flags |= POSIX_SPAWN_SETPGROUP;
    posix_spawnattr_setpgroup(&s.attr, 0);
  }
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&s.attr, &none);
  posix_spawnattr_setsigdefault(&s.attr, &all); // an ignored SIGINT or SIGPIPE must not be inherited
  posix_spawnattr_setflags(&s.attr, flags);
  posix_spawn_file_actions_addopen(&s.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  if (req.stdout_fd >= 0) posix_spawn_file_actions_adddup2(&s.actions, req.stdout_fd, STDOUT_FILENO);
  if (req.stderr_fd >= 0) posix_spawn_file_actions_adddup2(&s.actions, req.stderr_fd, STDERR_FILENO);
  if (!req.cwd.empty()) posix_spawn_file_actions_addchdir_np(&s.actions, req.cwd.c_str());

  std::vector<char*> argv;
  for (const auto& a : req.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_strings;
  std::vector<char*> envp;
  char** env = environ;
  if (req.env || !repository_env_vars_set().empty()) {
    for (const auto& [k, v] : req.env ? *req.env : current_environment()) env_strings.push_back(k + "=" + v);
    for (auto& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    env = envp.data();
  }
  pid_t pid = -1;
  if (int rc = ::posix_spawn(&pid, req.exe.c_str(), &s.actions, &s.attr, argv.data(), env); rc != 0)
    return std::unexpected(std::string(std::strerror(rc)));
  return pid;
}

} // namespace harness::worker
