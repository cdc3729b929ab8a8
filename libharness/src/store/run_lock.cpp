#include "harness/store/run_lock.hpp"

#include "harness/protocol/message.hpp"
#include "harness/util/atomic_file.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace harness::store {
namespace fs = std::filesystem;

namespace {

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
  return info;
}

}  // namespace

std::expected<RunLock, std::string> RunLock::acquire(const fs::path& state_dir, RunInfo info) {
  std::error_code ec;
  fs::create_directories(state_dir, ec);
  const fs::path file = state_dir / "orchestrator.lock";
  // O_CLOEXEC: a worker must not inherit the lock and keep it alive after we die.
  const int fd = ::open(file.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  if (fd < 0) return std::unexpected(fmt::format("cannot open {}: {}", file.string(), std::strerror(errno)));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    const RunInfo other = read_info(state_dir);
    return std::unexpected(fmt::format("another harness-cli orchestrate is running in this project (pid {}, {})",
                                       other.pid, other.spec.empty() ? "spec unknown" : other.spec));
  }
  info.pid = static_cast<long>(::getpid());
  if (info.started_at.empty()) info.started_at = protocol::now_iso8601();
  const boost::json::object o{{"pid", info.pid}, {"spec", info.spec}, {"started_at", info.started_at}};
  if (auto w = util::write_file_atomic(state_dir / "orchestrator.json", boost::json::serialize(o) + "\n"); !w) {
    ::close(fd);
    return std::unexpected("cannot write orchestrator.json: " + w.error());
  }
  return RunLock(fd);
}

RunLock::~RunLock() {
  if (m_fd >= 0) ::close(m_fd);
}

std::optional<RunInfo> running_orchestrator(const fs::path& state_dir) {
  const int fd = ::open((state_dir / "orchestrator.lock").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  // A shared lock is refused only while someone holds the exclusive one.
  const bool free = ::flock(fd, LOCK_SH | LOCK_NB) == 0;
  ::close(fd);
  if (free) return std::nullopt;
  return read_info(state_dir);
}

}  // namespace harness::store
