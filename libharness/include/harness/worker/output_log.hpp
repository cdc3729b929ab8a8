#pragma once
// A worker's output: every byte appended to its log file, the most recent part also kept in
// memory so a status display or harness_get_output answers without reading the file.

#include <cstdio>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace harness::worker {

/// How much of a worker's output its log file keeps before it stops writing: a task that prints
/// without end (`yes`, a runaway loop) wrote hundreds of MB a second until a timeout stopped it.
inline constexpr std::size_t default_log_file_cap = std::size_t{256} << 20;

class OutputLog {
public:
  /// Opens (appends to) `path`; `keep_bytes` bounds the in-memory tail. Past `file_cap` bytes the
  /// file gets one line saying so, and below it the in-memory tail, rewritten in place at most
  /// once a second and when the log closes (the head and the end of the output, the part between
  /// left out).
  explicit OutputLog(std::filesystem::path path, size_t keep_bytes = 64 * 1024, size_t file_cap = default_log_file_cap);
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
  /// Why the log file could not be opened or written ("No space left on device"), the first
  /// time it failed; empty while it holds the output. On a full disk a failed worker's log was
  /// empty and its reason said nothing of it (review II F9): the caller says it, with the tail.
  const std::string& write_error() const { return m_write_error; }

private:
  std::filesystem::path m_path;
  std::FILE* m_file = nullptr;
  std::string m_tail;
  size_t m_keep;
  size_t m_cap;
  size_t m_total = 0;
  size_t m_written = 0; ///< bytes of output in the file
  bool m_capped = false;
  std::string m_write_error;
  size_t m_tail_at = 0; ///< where the rewritten tail starts in the file, once capped
  std::chrono::steady_clock::time_point m_tail_written{};
  void write_tail();
};

/// The last `max_lines` lines of a file, reading only its end (for processes that do not hold
/// the OutputLog, such as harness-mcp).
std::string tail_file(const std::filesystem::path& path, size_t max_lines, size_t max_bytes = 256 * 1024);

} // namespace harness::worker
