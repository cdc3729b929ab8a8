#include "harness/worker/output_log.hpp"

#include <algorithm>
#include <fstream>

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
}

OutputLog::~OutputLog() {
  if (!m_file) return;
  if (m_capped) { // the end of the output, which says how it ended
    const std::string note = "\n[harness: the last " + std::to_string(m_tail.size()) + " bytes of the output follow]\n";
    std::fwrite(note.data(), 1, note.size(), m_file);
    std::fwrite(m_tail.data(), 1, m_tail.size(), m_file);
  }
  std::fclose(m_file);
}

void OutputLog::append(std::string_view chunk) {
  if (chunk.empty()) return;
  m_total += chunk.size();
  if (m_file && !m_capped) {
    const std::string_view kept = chunk.substr(0, std::min(chunk.size(), m_cap - m_written));
    std::fwrite(kept.data(), 1, kept.size(), m_file);
    m_written += kept.size();
    if (kept.size() < chunk.size()) {
      m_capped = true;
      const std::string size = m_cap >= (1u << 20) ? std::to_string(m_cap >> 20) + " MB" : std::to_string(m_cap) + " bytes";
      const std::string note = "\n[harness: output.log stops at " + size +
                               "; the rest is not kept, but its last part is written here when the worker ends]\n";
      std::fwrite(note.data(), 1, note.size(), m_file);
    }
    std::fflush(m_file);
  }
  m_tail.append(chunk);
  // Trim in large steps so appending stays amortized O(1).
  if (m_tail.size() > 2 * m_keep) m_tail.erase(0, m_tail.size() - m_keep);
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
