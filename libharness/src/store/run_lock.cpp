#include "harness/store/run_lock.hpp"

#include "harness/store/store.hpp"

#include "harness/protocol/message.hpp"
#include "harness/util/atomic_file.hpp"
#include "harness/util/private_directory.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <thread>
#include <unistd.h>

namespace harness::store {
namespace fs = std::filesystem;

namespace {
using namespace std::chrono_literals;

/// orchestrator.json as it is on disk; an empty RunInfo when it is missing or unreadable.
RunInfo read_info(const fs::path& state_dir) {
  RunInfo info;
  auto text = util::read_file(state_dir / "orchestrator.json");
  if (!text) return info;
  boost::system::error_code ec;
  auto v = boost::json::parse(*text, ec);
  if (ec || !v.is_object()) return info;
  const auto& o = v.as_object();
  if (auto* p = o.if_contains("pid"); p && p->is_int64()) info.pid = static_cast<long>(p->as_int64());
  if (auto* s = o.if_contains("spec"); s && s->is_string()) info.spec = std::string(s->as_string());
  if (auto* t = o.if_contains("started_at"); t && t->is_string()) info.started_at = std::string(t->as_string());
  if (auto* r = o.if_contains("run_id"); r && r->is_string()) info.run_id = std::string(r->as_string());
  if (auto* n = o.if_contains("schema"); n && n->is_int64()) info.schema = static_cast<int>(n->as_int64());
  return info;
}

/// The kernel's answer to "which process holds `file` locked?"; nullopt when it cannot tell.
std::optional<long> lock_holder(const fs::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return std::nullopt;
  auto text = util::read_file("/proc/locks");
  if (!text) return std::nullopt;
  return exclusive_flock_holder(*text, major(st.st_dev), minor(st.st_dev), st.st_ino);
}

/// Whether a process holds `file`'s exclusive lock: a shared lock is refused only then. Asked of
/// the kernel rather than read from /proc/locks, which a container may not show (review DD L3: a
/// second orchestrate then waited 5 s and blamed redo or respond).
bool held_exclusively(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);
  return held;
}

bool process_alive(long pid) { return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM); }

/// The holder of `state_dir`'s lock. orchestrator.json is written just after the lock is taken, and
/// an earlier run's stays behind: it is believed only when it names the holder (or, without
/// /proc/locks, a live process), and waited for up to `patience` when it does not.
RunInfo describe_holder(const fs::path& state_dir, std::chrono::milliseconds patience) {
  const auto deadline = std::chrono::steady_clock::now() + patience;
  for (;;) {
    const auto holder = lock_holder(state_dir / "orchestrator.lock");
    RunInfo info = read_info(state_dir);
    if (holder ? info.pid == *holder : process_alive(info.pid)) return info;
    if (std::chrono::steady_clock::now() >= deadline) return RunInfo{holder.value_or(0), "", "", ""};
    std::this_thread::sleep_for(20ms);
  }
}

}  // namespace

std::optional<long> exclusive_flock_holder(std::string_view proc_locks, unsigned major_id, unsigned minor_id,
                                           unsigned long long inode) {
  // "1: FLOCK  ADVISORY  WRITE 4242 fe:00:11357275 0 EOF"; waiters read "1: -> FLOCK ...".
  const std::string file_id = fmt::format("{:02x}:{:02x}:{}", major_id, minor_id, inode);
  std::istringstream lines{std::string(proc_locks)};
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string number, type, mode, access, id;
    long pid = 0;
    if (!(words >> number >> type >> mode >> access >> pid >> id)) continue;
    if (type == "FLOCK" && access == "WRITE" && id == file_id) return pid;
  }
  return std::nullopt;
}

std::string describe_run(const RunInfo& info) {
  if (info.pid <= 0) return "its holder is unknown: orchestrator.json names no running process";
  if (info.spec.empty()) return fmt::format("pid {}, which has not recorded its spec yet", info.pid);
  return fmt::format("pid {}, {}{}", info.pid, info.spec, info.started_at.empty() ? "" : ", since " + info.started_at);
}

std::expected<RunLock, std::string> RunLock::acquire(const fs::path& state_dir, RunInfo info) {
  (void)util::create_state_directory(state_dir); // open() below says what went wrong
  const fs::path file = state_dir / "orchestrator.lock";
  // O_CLOEXEC: a worker must not inherit the lock and keep it alive after we die.
  const int fd = ::open(file.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int open_errno = errno;
    if (const auto part = util::blocking_part(state_dir); !part.empty())
      return std::unexpected(fmt::format("cannot open {}: {}", file.string(), part));
    return std::unexpected(fmt::format("cannot open {}: {}", file.string(), std::strerror(open_errno)));
  }
  // running_orchestrator's probe holds a shared lock for a moment, and a command holding runs off
  // (hold_off_runs) for as long as it writes: only an exclusive lock belongs to another
  // orchestrator, and a shared one is waited out.
  bool locked = false;
  const auto give_up = std::chrono::steady_clock::now() + 5s;
  for (int i = 0; !(locked = ::flock(fd, LOCK_EX | LOCK_NB) == 0); ++i) {
    if (i >= 4 && (held_exclusively(file) || std::chrono::steady_clock::now() >= give_up)) break;
    std::this_thread::sleep_for(10ms);
  }
  if (!locked && !held_exclusively(file)) {
    ::close(fd);
    return std::unexpected(fmt::format("{} stayed held by another harness-cli command (redo, respond --replace) for 5 s; "
                                       "run again when it has finished",
                                       file.string()));
  }
  if (!locked) {
    ::close(fd);
    return std::unexpected(fmt::format("another harness-cli orchestrate is running in this project ({})",
                                       describe_run(describe_holder(state_dir, 1s))));
  }
  info.pid = static_cast<long>(::getpid());
  if (info.started_at.empty()) info.started_at = protocol::now_iso8601();
  info.schema = schema_version;
  const boost::json::object o{{"pid", info.pid},         {"spec", info.spec},    {"started_at", info.started_at},
                              {"run_id", info.run_id},   {"schema", info.schema}};
  if (auto w = util::write_file_atomic(state_dir / "orchestrator.json", boost::json::serialize(o) + "\n"); !w) {
    ::close(fd);
    return std::unexpected("cannot write " + w.error()); // it names the file
  }
  return RunLock(fd);
}

RunLock::~RunLock() {
  if (m_fd >= 0) ::close(m_fd);
}

RunsHeldOff::~RunsHeldOff() {
  if (m_fd >= 0) ::close(m_fd);
}

std::expected<RunsHeldOff, RunInfo> hold_off_runs(const fs::path& state_dir) {
  // No state directory is made here (a project that never ran has none), but one a user made
  // for config.yaml gets its .gitignore before the lock file shows in `git status`.
  if (std::error_code ec; fs::is_directory(state_dir, ec)) (void)util::create_state_directory(state_dir);
  const int fd = ::open((state_dir / "orchestrator.lock").c_str(), O_CREAT | O_RDONLY | O_CLOEXEC, 0644);
  if (fd < 0) return RunsHeldOff(-1);
  // A shared lock is refused only while an orchestrator holds the exclusive one.
  if (::flock(fd, LOCK_SH | LOCK_NB) == 0) return RunsHeldOff(fd);
  ::close(fd);
  return std::unexpected(describe_holder(state_dir, 0ms));
}

std::optional<RunInfo> running_orchestrator(const fs::path& state_dir) {
  const int fd = ::open((state_dir / "orchestrator.lock").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  // A shared lock is refused only while someone holds the exclusive one.
  const bool free = ::flock(fd, LOCK_SH | LOCK_NB) == 0;
  ::close(fd);
  if (free) return std::nullopt;
  return describe_holder(state_dir, 0ms);
}

}  // namespace harness::store
