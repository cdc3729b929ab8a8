#pragma once
// An exclusive flock(2) on a file, held for the object's lifetime and released by the kernel if
// the process dies: safe against the crashes the orchestrator must survive.

#include <filesystem>
#include <string>
#include <string_view>

namespace harness::worker {

class FileLock {
public:
  /// Creates `file` (and its directory, which gets a `*` .gitignore) and blocks until the lock is ours.
  explicit FileLock(const std::filesystem::path& file);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

  /// Another process held the lock when we asked: we waited for it.
  bool waited() const { return m_waited; }

  /// Why the lock is not held (the file could not be made or opened), or empty when it is. The
  /// caller decides whether to go on without it; most cannot (review KK F6).
  const std::string& error() const { return m_error; }

  /// Whether someone holds the lock on `file` now (a look, not a wait: it may be taken or freed
  /// the moment after). false when the file does not exist or cannot be opened.
  static bool held(const std::filesystem::path& file);

  /// What the lock's holders wrote into the file last (empty if nothing): a note from one holder
  /// to the next, written and read only while holding the lock.
  std::string content() const;
  void set_content(std::string_view text);

private:
  int m_fd = -1;
  bool m_waited = false;
  std::string m_error;
};

} // namespace harness::worker
