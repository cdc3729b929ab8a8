#pragma once
// A line typed on a terminal that the program echoes itself, so that it can draw the line again
// (the orchestrator's live table redraws over the question while the person types the answer).

#include <optional>
#include <string>
#include <string_view>
#include <termios.h>
#include <vector>

namespace harness::util {

/// The line being typed, edited as a terminal's cooked mode would edit it: Backspace (DEL or ^H)
/// removes the last character (a whole UTF-8 sequence), ^U the line, ^W the last word; Enter (CR
/// or LF) ends it. Escape sequences (arrow keys) and other control characters are dropped.
class LineEditor {
public:
  /// Takes what was read; returns the lines it ended, in order, without their newline.
  std::vector<std::string> feed(std::string_view bytes);
  /// What is typed so far on the line not yet ended.
  const std::string& partial() const { return m_line; }
  /// ^D on an empty line: the person closed their input, as a cooked terminal reads it.
  bool ended() const { return m_ended; }

private:
  std::string m_line;
  enum class Escape { none, started, csi } m_escape = Escape::none;
  bool m_ended = false;
};

/// Switches the terminal `fd` to reading byte by byte without the terminal's echo (signals such
/// as ^C stay), for a LineEditor whose line the program draws; restores the earlier mode when
/// destroyed. Does nothing for a descriptor that is no terminal.
class TerminalLineMode {
public:
  explicit TerminalLineMode(int fd);
  ~TerminalLineMode();
  TerminalLineMode(const TerminalLineMode&) = delete;
  TerminalLineMode& operator=(const TerminalLineMode&) = delete;
  /// True when the terminal's mode was changed: the program echoes what is typed.
  bool active() const { return m_saved.has_value(); }

private:
  int m_fd;
  std::optional<termios> m_saved;
};

} // namespace harness::util
