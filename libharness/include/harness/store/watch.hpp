#pragma once
// Cross-process wake-up: learn that another process committed to the store within a few
// milliseconds without spinning. A watcher holds its own read connection and compares
// `PRAGMA data_version`; it sleeps in poll(2) on an inotify descriptor watching the database
// directory (WAL writes touch `harness.db-wal`), with a short fallback tick in case an event
// is missed.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <memory>
#include <string>

namespace harness::store {

/// Why wait_for_change returned.
enum class WaitResult { changed, timeout, cancelled };

/// Watches one database for commits by any other connection.
class ChangeWatcher {
 public:
  /// Opens a watcher on `db_path` (the database must exist). `tick` bounds latency when
  /// inotify misses an event.
  static std::expected<ChangeWatcher, std::string> open(const std::filesystem::path& db_path,
                                                        std::chrono::milliseconds tick = std::chrono::milliseconds(5));
  ChangeWatcher(ChangeWatcher&&) noexcept;
  ChangeWatcher& operator=(ChangeWatcher&&) noexcept;
  ~ChangeWatcher();

  /// Blocks until a commit happened since the last call to changed()/wait_for_change() (or open),
  /// `timeout` elapsed, or cancel() was called (from any thread).
  WaitResult wait_for_change(std::chrono::milliseconds timeout);
  /// Non-blocking: true when a commit happened since the last check (drains inotify events).
  bool changed();
  /// Wakes a blocked wait_for_change with `cancelled`; sticky until reset_cancel().
  void cancel();
  /// Clears a previous cancel().
  void reset_cancel();
  /// A descriptor that becomes readable on activity (inotify); for an Asio
  /// posix::stream_descriptor wait_read, followed by changed(). Also use a timer of `tick`.
  int native_handle() const;

  struct Impl;  ///< private state

 private:
  explicit ChangeWatcher(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
};

}  // namespace harness::store
