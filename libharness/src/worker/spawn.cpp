#include "harness/worker/spawn.hpp"

#include "harness/util/open_file_limit.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace harness::worker {
namespace {

/// What the child does between vfork and exec, all prepared before: it shares our memory and
/// runs only system calls (async-signal-safe), never the allocator, whose lock another thread of
/// ours may hold at that moment.
struct ChildSetup {
  const char* exe = nullptr;
  char** argv = nullptr;
  char** envp = nullptr;
  const char* cwd = nullptr; ///< nullptr: the caller's
  int stdout_fd = -1, stderr_fd = -1;
  bool own_process_group = true;
  std::optional<rlimit> open_files; ///< RLIMIT_NOFILE to set (util::child_open_file_limit)
  /// Close-on-exec write end of a pipe: the child writes its errno there when it cannot get to
  /// its program; EOF tells the parent it exec'd. Not a variable of our memory: under
  /// ThreadSanitizer vfork is a fork, and the parent would never see what the child wrote.
  int error_fd = -1;
};

/// `fd` as the child's `target`; a descriptor that already is `target` loses its close-on-exec.
bool move_fd(int fd, int target) {
  if (fd != target) return ::dup2(fd, target) >= 0;
  const int flags = ::fcntl(fd, F_GETFD);
  return flags >= 0 && ::fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC) == 0;
}

/// Tells the parent why the child could not get to its program (errno), and ends the child.
[[noreturn]] void report_and_exit(const ChildSetup& c) {
  const int error = errno;
  while (::write(c.error_fd, &error, sizeof error) < 0 && errno == EINTR) {}
  ::_exit(127);
}

/// The child's side of spawn_process: set up, then exec; never returns. Not inlined into
/// spawn_process, whose frame the child shares.
[[noreturn]] __attribute__((noinline)) void become_child(const ChildSetup& c) {
  // Every signal at its default, as posix_spawn's POSIX_SPAWN_SETSIGDEF with a full set did:
  // exec keeps an ignored one ignored, and no handler of ours may run in the child. Those that
  // cannot be changed (SIGKILL, SIGSTOP, libc's own) refuse, harmlessly.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &dfl, nullptr);
  if (c.own_process_group && ::setpgid(0, 0) != 0) report_and_exit(c);
  const int null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd < 0) report_and_exit(c);
  if (null_fd != STDIN_FILENO && (::dup2(null_fd, STDIN_FILENO) < 0 || ::close(null_fd) != 0)) report_and_exit(c);
  if (c.stdout_fd >= 0 && !move_fd(c.stdout_fd, STDOUT_FILENO)) report_and_exit(c);
  if (c.stderr_fd >= 0 && !move_fd(c.stderr_fd, STDERR_FILENO)) report_and_exit(c);
  if (c.cwd && ::chdir(c.cwd) != 0) report_and_exit(c);
  // Best effort, as raising it was: a child with our higher limit is better than no child.
  if (c.open_files) (void)::setrlimit(RLIMIT_NOFILE, &*c.open_files);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr); // blocked across the vfork; the child starts with none
  ::execve(c.exe, c.argv, c.envp);
  report_and_exit(c);
}

/// A close-on-exec pipe for the child's errno, both ends above stderr: the child's dup2 onto 0,
/// 1 and 2 must not replace its write end (in a process started with one of them closed).
std::expected<std::array<int, 2>, int> error_pipe() {
  std::array<int, 2> fds{-1, -1};
  if (::pipe2(fds.data(), O_CLOEXEC) != 0) return std::unexpected(errno);
  for (int& fd : fds) {
    if (fd > STDERR_FILENO) continue;
    const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
    const int error = errno;
    ::close(fd);
    fd = moved;
    if (moved < 0) {
      for (int other : fds)
        if (other >= 0) ::close(other);
      return std::unexpected(error);
    }
  }
  return fds;
}

/// What the child wrote before it ended (its errno), or 0 once it has exec'd (EOF).
int read_child_error(int fd) {
  int error = 0;
  ssize_t n;
  while ((n = ::read(fd, &error, sizeof error)) < 0 && errno == EINTR) {}
  return n == static_cast<ssize_t>(sizeof error) ? error : 0;
}

/// The child's RLIMIT_NOFILE: util::child_open_file_limit as its soft limit, when there is one.
std::optional<rlimit> child_open_files() {
  const auto soft = util::child_open_file_limit();
  rlimit lim{};
  if (!soft || ::getrlimit(RLIMIT_NOFILE, &lim) != 0) return std::nullopt;
  lim.rlim_cur = std::min<rlim_t>(*soft, lim.rlim_max);
  return lim;
}

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

std::expected<pid_t, util::SystemError> spawn_process(const SpawnRequest& req) {
  if (req.argv.empty()) return std::unexpected(util::SystemError{"empty command", 0});
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
  const auto pipe = error_pipe();
  if (!pipe) return std::unexpected(util::SystemError{std::strerror(pipe.error()), pipe.error()});
  const auto [read_fd, write_fd] = *pipe;
  const ChildSetup setup{req.exe.c_str(), argv.data(), env, req.cwd.empty() ? nullptr : req.cwd.c_str(),
                         req.stdout_fd, req.stderr_fd, req.own_process_group, child_open_files(), write_fd};
  // vfork, not fork: no copy of our page tables (a fork per git call was 20 times slower under
  // ASan); the parent goes on once the child has exec'd or exited. Every signal stays blocked
  // meanwhile so that no handler of ours runs in the child before it has set them to their
  // defaults.
  sigset_t all, old;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);
  const pid_t pid = ::vfork();
  if (pid == 0) become_child(setup);
  const int vfork_error = errno;
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ::close(write_fd);
  const int child_error = pid < 0 ? 0 : read_child_error(read_fd);
  ::close(read_fd);
  if (pid < 0) return std::unexpected(util::SystemError{std::strerror(vfork_error), vfork_error});
  if (child_error == 0) return pid;
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {}
  return std::unexpected(util::SystemError{std::strerror(child_error), child_error});
}

} // namespace harness::worker
