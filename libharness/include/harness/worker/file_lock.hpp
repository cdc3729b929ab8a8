#pragma once
// An exclusive flock(2) on a file, held for the object's lifetime and released by the kernel if
// the process dies: safe against the crashes the orchestrator must survive.

#include <filesystem>

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

private:
  int m_fd = -1;
  bool m_waited = false;
};

} // namespace harness::worker
