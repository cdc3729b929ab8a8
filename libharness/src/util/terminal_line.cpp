#include "harness/util/terminal_line.hpp"

#include <unistd.h>

namespace harness::util {

std::vector<std::string> LineEditor::feed(std::string_view bytes) {
  std::vector<std::string> lines;
  for (const char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    if (m_escape == Escape::started) { // ESC [ ... final byte, or ESC and one more (Alt+key)
      m_escape = c == '[' || c == 'O' ? Escape::csi : Escape::none;
      continue;
    }
    if (m_escape == Escape::csi) {
      if (c >= 0x40 && c <= 0x7e) m_escape = Escape::none;
      continue;
    }
    if (c == '\r' || c == '\n') {
      lines.push_back(std::move(m_line));
      m_line.clear();
    } else if (c == 0x7f || c == 0x08) {
      while (!m_line.empty() && (static_cast<unsigned char>(m_line.back()) & 0xC0) == 0x80) m_line.pop_back();
      if (!m_line.empty()) m_line.pop_back();
    } else if (c == 0x15) {
      m_line.clear();
    } else if (c == 0x17) {
      while (!m_line.empty() && m_line.back() == ' ') m_line.pop_back();
      while (!m_line.empty() && m_line.back() != ' ') m_line.pop_back();
    } else if (c == 0x04) {
      if (m_line.empty()) m_ended = true;
    } else if (c == 0x1b) {
      m_escape = Escape::started;
    } else if (c >= 0x20) {
      m_line.push_back(ch);
    }
  }
  return lines;
}

TerminalLineMode::TerminalLineMode(int fd) : m_fd(fd) {
  termios now{};
  if (!::isatty(fd) || ::tcgetattr(fd, &now) != 0) return;
  termios raw = now;
  raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
  raw.c_cc[VMIN] = 1;
  raw.c_cc[VTIME] = 0;
  if (::tcsetattr(fd, TCSANOW, &raw) == 0) m_saved = now;
}

TerminalLineMode::~TerminalLineMode() {
  if (m_saved) (void)::tcsetattr(m_fd, TCSANOW, &*m_saved);
}

} // namespace harness::util
