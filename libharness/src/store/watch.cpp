// ChangeWatcher: inotify on the database directory wakes us; PRAGMA data_version decides.
#include "harness/store/watch.hpp"

#include "sqlite.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

namespace harness::store {

struct ChangeWatcher::Impl {
  detail::Db db;
  detail::Stmt version_stmt;
  int inotify_fd = -1;
  int cancel_fd = -1;
  std::int64_t last_version = 0;
  std::chrono::milliseconds tick{5};
  std::atomic<bool> cancelled{false};

  ~Impl() {
    if (inotify_fd >= 0) ::close(inotify_fd);
    if (cancel_fd >= 0) ::close(cancel_fd);
  }
  std::optional<std::int64_t> version() {
    version_stmt.reset();
    auto row = version_stmt.step("data_version");
    if (!row || !*row) return std::nullopt;  // busy during a checkpoint: try again next tick
    const auto v = version_stmt.int64(0);
    version_stmt.reset();
    return v;
  }
  void drain() {
    alignas(inotify_event) char buf[4096];
    while (::read(inotify_fd, buf, sizeof buf) > 0) {
    }
  }
};

ChangeWatcher::ChangeWatcher(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
ChangeWatcher::ChangeWatcher(ChangeWatcher&&) noexcept = default;
ChangeWatcher& ChangeWatcher::operator=(ChangeWatcher&&) noexcept = default;
ChangeWatcher::~ChangeWatcher() = default;

std::expected<ChangeWatcher, std::string> ChangeWatcher::open(const std::filesystem::path& db_path,
                                                              std::chrono::milliseconds tick) {
  auto impl = std::make_unique<Impl>();
  impl->tick = tick;
  auto db = detail::Db::open(db_path, false);
  if (!db) return std::unexpected(db.error().message);
  sqlite3_busy_timeout(db->get(), 100);
  impl->db = std::move(*db);
  auto st = detail::Stmt::prepare(impl->db, "PRAGMA data_version");
  if (!st) return std::unexpected(st.error().message);
  impl->version_stmt = std::move(*st);
  impl->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (impl->inotify_fd < 0) return std::unexpected(fmt::format("inotify_init1: {}", std::strerror(errno)));
  const auto dir = db_path.has_parent_path() ? db_path.parent_path() : std::filesystem::path(".");
  // WAL commits write `<db>-wal` (IN_MODIFY); checkpoints and restarts create/replace files.
  if (inotify_add_watch(impl->inotify_fd, dir.c_str(), IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE) < 0)
    return std::unexpected(fmt::format("inotify_add_watch {}: {}", dir.string(), std::strerror(errno)));
  impl->cancel_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (impl->cancel_fd < 0) return std::unexpected(fmt::format("eventfd: {}", std::strerror(errno)));
  auto v = impl->version();
  if (!v) return std::unexpected("read data_version of " + db_path.string());
  impl->last_version = *v;
  return ChangeWatcher(std::move(impl));
}

bool ChangeWatcher::changed() {
  m_impl->drain();
  auto v = m_impl->version();
  if (!v || *v == m_impl->last_version) return false;
  m_impl->last_version = *v;
  return true;
}

WaitResult ChangeWatcher::wait_for_change(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (m_impl->cancelled.load()) return WaitResult::cancelled;
    if (changed()) return WaitResult::changed;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return WaitResult::timeout;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now) + std::chrono::milliseconds(1);
    pollfd fds[2] = {{m_impl->inotify_fd, POLLIN, 0}, {m_impl->cancel_fd, POLLIN, 0}};
    ::poll(fds, 2, static_cast<int>(std::min(left, m_impl->tick).count()));
  }
}

void ChangeWatcher::cancel() {
  m_impl->cancelled.store(true);
  const std::uint64_t one = 1;
  (void)!::write(m_impl->cancel_fd, &one, sizeof one);
}

void ChangeWatcher::reset_cancel() {
  std::uint64_t n = 0;
  (void)!::read(m_impl->cancel_fd, &n, sizeof n);
  m_impl->cancelled.store(false);
}

int ChangeWatcher::native_handle() const { return m_impl->inotify_fd; }

}  // namespace harness::store
