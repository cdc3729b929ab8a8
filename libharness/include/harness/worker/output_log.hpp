#pragma once
// A worker's output: every byte appended to its log file, the most recent part also kept in
// memory so a status display or harness_get_output answers without reading the file.

#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

namespace harness::worker {

class OutputLog {
public:
  /// Opens (appends to) `path`; `keep_bytes` bounds the in-memory tail.
  explicit OutputLog(std::filesystem::path path, size_t keep_bytes = 64 * 1024);
  ~OutputLog();
  OutputLog(const OutputLog&) = delete;
  OutputLog& operator=(const OutputLog&) = delete;

  /// Appends a chunk of output (any bytes, not necessarily whole lines).
  void append(std::string_view chunk);
  /// The last `max_lines` complete or partial lines held in memory.
  std::string tail(size_t max_lines) const;
  /// Total bytes ever appended.
  size_t total_bytes() const { return m_total; }
  const std::filesystem::path& path() const { return m_path; }
  /// False when the log file could not be opened; output is still kept in memory.
  bool file_ok() const { return m_file != nullptr; }

private:
  std::filesystem::path m_path;
  std::FILE* m_file = nullptr;
  std::string m_tail;
  size_t m_keep;
  size_t m_total = 0;
};

/// The last `max_lines` lines of a file, reading only its end (for processes that do not hold
/// the OutputLog, such as harness-mcp).
std::string tail_file(const std::filesystem::path& path, size_t max_lines, size_t max_bytes = 256 * 1024);

} // namespace harness::worker
