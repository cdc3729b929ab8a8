#include "harness/worker/output_log.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include <unistd.h>

namespace harness::worker {
namespace {

std::string last_lines(std::string_view text, size_t max_lines) {
  if (max_lines == 0 || text.empty()) return {};
  size_t end = text.size();
  if (text.back() == '\n') --end; // a trailing newline does not start another line
  size_t pos = end;
  size_t lines = 0;
  while (pos > 0) {
    if (text[pos - 1] == '\n' && ++lines == max_lines) break;
    --pos;
  }
  return std::string(text.substr(pos));
}

} // namespace

OutputLog::OutputLog(std::filesystem::path path, size_t keep_bytes, size_t file_cap)
    : m_path(std::move(path)), m_keep(keep_bytes), m_cap(file_cap) {
  std::error_code ec;
  if (m_path.has_parent_path()) std::filesystem::create_directories(m_path.parent_path(), ec);
  m_file = std::fopen(m_path.c_str(), "abe"); // "e": close-on-exec, other workers must not inherit it
  if (!m_file) m_write_error = std::strerror(errno);
}

OutputLog::~OutputLog() {
  if (!m_file) return;
  if (m_capped) write_tail();
  std::fclose(m_file);
}

void OutputLog::write_tail() {
  // In place below the cap's line: the file holds the head and the output's end as of now.
  if (std::fseek(m_file, static_cast<long>(m_tail_at), SEEK_SET) != 0) return;
  // The whole lines of the kept tail (its first one is cut once older output was dropped).
  const auto nl = m_tail.find('\n');
  const bool cut = m_total > m_tail.size();
  const std::string_view lines = nl == std::string::npos || !cut ? std::string_view(m_tail) : std::string_view(m_tail).substr(nl + 1);
  std::fwrite(lines.data(), 1, lines.size(), m_file);
  std::fflush(m_file);
  if (::ftruncate(::fileno(m_file), static_cast<off_t>(m_tail_at + lines.size())) != 0) return;
  m_tail_written = std::chrono::steady_clock::now();
}

void OutputLog::append(std::string_view chunk) {
  if (chunk.empty()) return;
  m_total += chunk.size();
  m_tail.append(chunk);
  // Trim in large steps so appending stays amortized O(1).
  if (m_tail.size() > 2 * m_keep) m_tail.erase(0, m_tail.size() - m_keep);
  if (!m_file) return;
  if (m_capped) {
    // Rewritten at most once a second: a reader (harness_get_output) and a run killed with
    // SIGKILL find the end of the output at most that old.
    if (std::chrono::steady_clock::now() - m_tail_written >= std::chrono::seconds(1)) write_tail();
    return;
  }
  const std::string_view kept = chunk.substr(0, std::min(chunk.size(), m_cap - m_written));
  // A chunk larger than the stream's buffer is written at once, and fails here, not at the flush
  // (review LL F4).
  if (std::fwrite(kept.data(), 1, kept.size(), m_file) != kept.size() && m_write_error.empty())
    m_write_error = std::strerror(errno);
  m_written += kept.size();
  if (kept.size() < chunk.size()) {
    m_capped = true;
    const std::string size = m_cap >= (1u << 20) ? std::to_string(m_cap >> 20) + " MB" : std::to_string(m_cap) + " bytes";
    const std::string note = "\n[harness: output.log keeps the output's first " + size +
                             " and, below this line, its last part, rewritten as the worker goes on]\n";
    std::fwrite(note.data(), 1, note.size(), m_file);
    std::fflush(m_file);
    // Opened for appending, where every write goes to the end: reopened to write in place.
    m_tail_at = m_written + note.size();
    if (auto* f = std::freopen(m_path.c_str(), "r+e", m_file)) m_file = f;
    else m_file = nullptr; // freopen closed it; what is written stays
    if (m_file) write_tail();
    return;
  }
  if (std::fflush(m_file) != 0 && m_write_error.empty()) m_write_error = std::strerror(errno);
}

std::string OutputLog::tail(size_t max_lines) const { return last_lines(m_tail, max_lines); }

std::string tail_file(const std::filesystem::path& path, size_t max_lines, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return {};
  const std::streamoff size = in.tellg();
  const std::streamoff start = size > static_cast<std::streamoff>(max_bytes) ? size - static_cast<std::streamoff>(max_bytes) : 0;
  in.seekg(start);
  std::string data(static_cast<size_t>(size - start), '\0');
  in.read(data.data(), static_cast<std::streamsize>(data.size()));
  return last_lines(data, max_lines);
}

} // namespace harness::worker
